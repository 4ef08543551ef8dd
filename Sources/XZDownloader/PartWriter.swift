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
        /// A station's endless stream (windowed, with ICY headers): its end is a dropped connection.
        var endlessStation = false
    }

    /// The response was not one to write; `decision` says what to do instead.
    struct Unused: Error {
        let decision: ResumePlan.Decision
    }

    /// The most bytes the file may have, and who said so, for the error past it.
    struct SizeLimit: Sendable {
        var bytes: Int64
        var promise: String

        /// The catalogue's size when it has one: the finished file must match it exactly (see `AudioJob.verify`),
        /// so a byte more can never be kept. Else `max_download_size`.
        static func of(catalogueSize: Int64?, settings: DownloadSettings) -> SizeLimit {
            if let size = catalogueSize, size > 0 { return SizeLimit(bytes: size, promise: "the catalogue says \(size) bytes") }
            return SizeLimit(bytes: settings.maxDownloadSize, promise: "max_download_size is \(settings.maxDownloadSize) bytes")
        }
    }

    private let partPath: String
    private let partial: PartialDownload
    private let live: LiveProgress
    private let onSource: @Sendable (URL, String, Int64?, Int64) throws -> Void
    /// Readers of the `.part` while it fills (a song playing as it downloads).
    private let growing: GrowingFile?
    /// A seek past the arrived bytes stops this request (see SeekJumps).
    private let jumps: SeekJumps?
    private let limit: SizeLimit
    /// A stream of no announced length goes to `growing`'s memory window of this many bytes, never to disk.
    private let window: Int?
    private let state: Mutex<State>

    private struct State {
        var file: PartFile?
        var total: Int64?
        var visited: URL
        /// Bytes of this response put into the window.
        var windowed: Int64?
        /// The station's metadata between the audio bytes, and its name.
        var icy: ICYMetadata?
        var stationName: String?
        var isStation = false
    }

    init(url: URL, partPath: String, partial: PartialDownload, live: LiveProgress, growing: GrowingFile? = nil,
         jumps: SeekJumps? = nil, limit: SizeLimit, window: Int? = nil,
         onSource: @escaping @Sendable (URL, String, Int64?, Int64) throws -> Void) {
        self.growing = growing
        self.limit = limit
        self.window = growing == nil ? nil : window
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
            try readStation(fields)
        } catch {
            // The player names the URL.
            return task.eventLoop.makeFailedFuture(DownloadError.notAudio("\(error)"))
        }
        if let window, let growing, total.map({ $0 > limit.bytes }) ?? true {
            // Endless (radio), or a length past what any download may have: a bounded window in memory,
            // never the disk; a reconnect goes on at its end.
            do { try onSource(url, response.validator, nil, 0) } catch { return task.eventLoop.makeFailedFuture(error) }
            growing.useWindow(capacity: window)
            state.withLock { $0.windowed = 0 }
            // Counted on from what earlier connections brought, so each reconnect that plays is progress.
            live.reset(done: growing.size ?? growing.heldRanges.ranges.last?.upperBound ?? 0, total: nil)
            return task.eventLoop.makeSucceededVoidFuture()
        }
        if let total, total > limit.bytes {
            return task.eventLoop.makeFailedFuture(DownloadError.tooLarge(
                "\(url.absoluteString) announces \(total) bytes, but \(limit.promise); not downloaded"))
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

    /// A station's headers (`icy-*`): its name, said from the stream's next byte on, and the interval of its
    /// metadata. Throws for an interval that cannot be used.
    private func readStation(_ fields: [String: String]) throws(ICYMetadata.BadInterval) {
        let icy = try ICYMetadata.forResponse(fields)
        let name = fields["icy-name"].flatMap { StreamTags(name: $0).name }
        let isStation = fields.keys.contains { $0.hasPrefix("icy-") }
        state.withLock { state in
            state.icy = icy
            state.stationName = name
            state.isStation = isStation
        }
        if isStation { growing?.announce(StreamTags(name: name)) }
    }

    /// The audio of a body part, its ICY metadata taken out and announced where it stood.
    private func audio(of buffer: ByteBuffer) -> ByteBuffer {
        var titles: [(ahead: Int, title: String)] = []
        let parted = state.withLock { state -> ByteBuffer? in
            guard state.icy != nil else { return nil }
            var audio = ByteBufferAllocator().buffer(capacity: buffer.readableBytes)
            buffer.withUnsafeReadableBytes { bytes in
                state.icy?.feed(bytes, audio: { audio.writeBytes($0) }, title: { ahead, title in
                    if let title { titles.append((ahead, title)) }
                })
            }
            return audio
        }
        guard let parted else { return buffer }
        if let growing, !titles.isEmpty {
            let name = state.withLock { $0.stationName }
            for (ahead, title) in titles { growing.announce(StreamTags(name: name, title: title), ahead: ahead) }
        }
        return parted
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Written>, _ body: ByteBuffer) -> EventLoopFuture<Void> {
        let buffer = audio(of: body)
        if let growing, state.withLock({ $0.windowed != nil }) {
            let promise = task.eventLoop.makePromise(of: Void.self)
            appendToWindow(growing, buffer, promise)
            return promise.futureResult
        }
        let written: (at: Int64, end: Int64)?
        do {
            written = try state.withLock { state throws -> (at: Int64, end: Int64)? in
                guard let file = state.file else { return nil }
                let at = file.size
                // Past the promised size the body can never be kept: stop before writing it.
                let cap = min(state.total ?? limit.bytes, limit.bytes)
                if at + Int64(buffer.readableBytes) > cap {
                    let announced = state.total.map { $0 <= limit.bytes } ?? false
                    let why = announced ? "the server announced \(cap) bytes" : limit.promise
                    throw DownloadError.tooLarge("\(state.visited.absoluteString) sent more than \(cap) bytes, but \(why); stopped")
                }
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

    /// Appends as much as the window takes and waits (without reading on) for the reader to make room for
    /// the rest; the promise completes once all of `buffer` is in.
    private func appendToWindow(_ growing: GrowingFile, _ buffer: ByteBuffer, _ promise: EventLoopPromise<Void>) {
        let taken = buffer.withUnsafeReadableBytes { growing.append($0) }
        state.withLock { $0.windowed? += Int64(taken) }
        live.add(taken)
        guard taken < buffer.readableBytes else {
            promise.succeed()
            return
        }
        var rest = buffer
        rest.moveReaderIndex(forwardBy: taken)
        live.holdBack(true)
        growing.whenRoom { [live] room in
            live.holdBack(false)
            // No room ever: the player let go or the file failed, and the task is being stopped.
            guard room else { return promise.fail(CancellationError()) }
            promise.futureResult.eventLoop.execute { self.appendToWindow(growing, rest, promise) }
        }
    }

    func didFinishRequest(task: HTTPClient.Task<Written>) throws -> Written {
        state.withLock { Written(size: $0.windowed ?? $0.file?.size ?? 0, total: $0.total, endlessStation: $0.windowed != nil && $0.isStation) }
    }
}
