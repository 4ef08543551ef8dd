import Foundation
import XZSubsonicAPI
import XZSystem

/// Carries a stream's bytes from its producer, which blocks in `write` on a thread of its own, to the
/// response writer, which awaits them. At most `capacity` chunks wait between the two: a producer ahead
/// of its client waits for room, and one whose client went is told so by `write` throwing.
final class MediaStreamBridge: MediaSink, Sendable {
    struct ClientGone: Error {}

    let chunks: AsyncThrowingStream<[UInt8], any Error>
    private let continuation: AsyncThrowingStream<[UInt8], any Error>.Continuation
    /// Room for chunks, and whether the client went; the producer sleeps on it.
    private let room: Monitor<(free: Int, gone: Bool)>

    init(capacity: Int) {
        (chunks, continuation) = AsyncThrowingStream.makeStream(of: [UInt8].self, throwing: (any Error).self)
        let room = Monitor((free: max(1, capacity), gone: false))
        self.room = room
        // Wakes a producer waiting for room, which then sees the client gone.
        continuation.onTermination = { _ in room.change { $0.gone = true } }
    }

    /// Runs `produce` on a thread of its own; the chunks end when it returns, or with its error.
    func start(_ produce: @escaping @Sendable (any MediaSink) throws -> Void) {
        let thread = Thread { [self] in
            do {
                try produce(self)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        thread.name = "xzmusic.subsonic-stream"
        thread.start()
    }

    func write(_ bytes: [UInt8]) throws {
        guard !bytes.isEmpty else { return }
        let gone = room.wait { state -> Bool? in
            if state.gone { return true }
            guard state.free > 0 else { return nil }
            state.free -= 1
            return false
        } ?? true
        if gone { throw ClientGone() }
        if case .terminated = continuation.yield(bytes) { throw ClientGone() }
    }

    /// The writer took a chunk: room for the next.
    func took() { room.change { $0.free += 1 } }

    /// The client went, or the response ended early: the producer stops at its next write.
    func cancel() { continuation.finish() }
}
