import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import XZSystem
import XZAudio

/// Writes one response's body into the `.part` file from the client's event loop.
///
/// Each chunk is on disk before the client asks for the next, so when a connection ends early
/// every byte that arrived is kept and the resume starts right after it. (AsyncHTTPClient's async
/// body stream drops what it reads after the consumer's last demand when a connection ends early:
/// up to a whole socket buffer, megabytes, that a resume would fetch again.)
///
/// Runs on one event loop (`.delegateAndChannel`), so its lock is never contended; the final URL is
/// read from outside once the request is over.
final class PartWriter: HTTPClientResponseDelegate, Sendable {
    typealias Response = Written

    struct Written: Sendable {
        var size: Int64
        var total: Int64?
    }

    /// The response was not one to write; `decision` says what to do instead.
    struct Unused: Error {
        let decision: ResumePlan.Decision
    }

    private let partPath: String
    private let partial: PartialDownload
    private let live: LiveProgress
    private let onSource: @Sendable (URL, String, Int64?, Int64) throws -> Void
    /// Readers of the `.part` while it fills (a song playing as it downloads).
    private let growing: GrowingFile?
    /// A seek past the arrived bytes stops this request (see SeekJumps).
    private let jumps: SeekJumps?
    private let state: Mutex<State>

    private struct State {
        var file: PartFile?
        var total: Int64?
        var visited: URL
    }

    init(url: URL, partPath: String, partial: PartialDownload, live: LiveProgress, growing: GrowingFile? = nil,
         jumps: SeekJumps? = nil, onSource: @escaping @Sendable (URL, String, Int64?, Int64) throws -> Void) {
        self.growing = growing
        self.jumps = jumps
        self.partPath = partPath
        self.partial = partial
        self.live = live
        self.onSource = onSource
        state = Mutex(State(visited: url))
    }

    /// Where the redirects led; read after the request ends.
    var finalURL: URL { state.withLock { $0.visited } }

    func didVisitURL(task: HTTPClient.Task<Written>, _ request: HTTPClient.Request, _ head: HTTPResponseHead) {
        state.withLock { $0.visited = request.url }
    }

    func didReceiveHead(task: HTTPClient.Task<Written>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        live.touch()
        var fields: [String: String] = [:]
        for (name, value) in head.headers where fields[name.lowercased()] == nil { fields[name.lowercased()] = value }
        let response = ResponseHead(status: Int(head.status.code), headers: fields)
        let url = finalURL
        let offset: Int64
        let total: Int64?
        switch ResumePlan.decide(response, partial: partial, url: url.absoluteString) {
        case .writeFromStart(let t):
            offset = 0
            total = t
        case .append(let o, let t):
            offset = o
            total = t
        case let other:
            // Failing the head stops the body from being read at all.
            return task.eventLoop.makeFailedFuture(Unused(decision: other))
        }
        do {
            try onSource(url, response.validator, total, offset)
            try state.withLock { state throws in
                state.file = try PartFile(path: partPath, offset: offset)
                state.total = total
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        if let growing {
            growing.truncate(at: offset)
            growing.didWrite(at: 0, count: Int(offset))
            growing.setTotal(total)
        }
        live.reset(done: offset, total: total)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Written>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        let written: (at: Int64, end: Int64)?
        do {
            written = try state.withLock { state throws -> (at: Int64, end: Int64)? in
                guard let file = state.file else { return nil }
                let at = file.size
                try buffer.withUnsafeReadableBytes { try file.write($0) }
                return (at, file.size)
            }
        } catch {
            return task.eventLoop.makeFailedFuture(error)
        }
        guard let written else { return task.eventLoop.makeSucceededVoidFuture() }
        growing?.didWrite(at: written.at, count: buffer.readableBytes)
        if let jumps, jumps.wrote(upTo: written.end) { return task.eventLoop.makeFailedFuture(JumpedAway()) }
        live.add(buffer.readableBytes)
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Written>) throws -> Written {
        state.withLock { Written(size: $0.file?.size ?? 0, total: $0.total) }
    }
}
