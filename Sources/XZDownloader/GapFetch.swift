import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import XZSystem
import XZAudio
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A player seeking past what has arrived: the download leaves its place in line and fetches from the seek
/// point with a Range request at once, then fills the gaps it left, one request at a time.
final class SeekJumps: Sendable {
    /// A want this far past the bytes arriving is a seek, not playback catching up.
    static let window: Int64 = 128 * 1024

    private let growing: GrowingFile
    private let state = Mutex(State())

    private struct State {
        var target: Int64?
        /// Where the running request writes next, and where it started.
        var writing: Int64 = 0
        var jumping = false
    }

    /// A seek has left the sequential transfer; gaps are filled from now on.
    var isJumping: Bool { state.withLock { $0.jumping } }

    init(growing: GrowingFile) {
        self.growing = growing
    }

    /// From the reader: bytes at `offset` are wanted and missing. A place well past the running request
    /// becomes the next target, and the running request stops at its next chunk.
    func want(_ offset: Int64) {
        // Without a known size there is no Range to ask for: the reader waits for the bytes in line.
        guard growing.size != nil else { return }
        state.withLock { state in
            let front = state.writing
            guard offset < front || offset > front + Self.window else { return }
            state.target = offset
            state.jumping = true
        }
    }

    /// The running request has written up to `offset`; true when it should stop for a jump.
    func wrote(upTo offset: Int64) -> Bool {
        state.withLock { state in
            state.writing = offset
            return state.target != nil
        }
    }

    /// Where the next request starts: the wanted place when it is still missing, else the first gap.
    func nextStart(total: Int64) -> Int64? {
        let held = growing.heldRanges
        return state.withLock { state in
            defer { state.target = nil }
            let start: Int64?
            if let wanted = state.target, held.contiguous(from: wanted) == 0, wanted < total {
                start = wanted
            } else {
                start = held.firstGap(from: 0, before: total)
            }
            if let start { state.writing = start }
            return start
        }
    }
}

/// Thrown out of a sequential transfer that left its place for a seek.
struct JumpedAway: Error {}

/// The request of a gap ended where it should: at bytes already held, or for a newer jump.
private struct GapFilled: Error {}

extension Fetcher {
    /// Fills every gap of the `.part` (`growing` knows what it holds), the one a seek wants first, each
    /// with `Range: bytes=START-` and `If-Range` so only the same version of the file is spliced. A request
    /// stops as soon as it reaches bytes already held. Returns when the file is whole.
    func fetchGaps(_ url: URL, partPath: String, growing: GrowingFile, jumps: SeekJumps, validator: String, total: Int64,
                   live: LiveProgress) async throws -> Int64 {
        let fd = openForWriting(partPath)
        guard fd >= 0 else { throw PartFile.error(errno, action: "open", path: partPath, size: 0) }
        defer { close(fd) }
        while let start = jumps.nextStart(total: total) {
            live.reset(done: growing.heldRanges.heldBytes, total: total)
            var request = try HTTPClient.Request(url: url.absoluteString, method: .GET)
            request.headers.add(name: "User-Agent", value: settings.userAgent)
            request.headers.add(name: "Accept-Encoding", value: "identity")
            for (name, value) in ResumePlan.requestHeaders(for: PartialDownload(bytesOnDisk: start, validator: validator)) {
                request.headers.add(name: name, value: value)
            }
            let writer = GapWriter(fd: fd, url: url.absoluteString, path: partPath, start: start, total: total, validator: validator,
                                   growing: growing, jumps: jumps, live: live)
            let task = client.execute(request: request, delegate: writer, eventLoop: .delegateAndChannel(on: client.eventLoopGroup.next()))
            do {
                try await withTaskCancellationHandler {
                    try await task.futureResult.get()
                } onCancel: {
                    task.cancel()
                }
            } catch is GapFilled {
                continue
            } catch let stop as PartWriter.Unused {
                switch stop.decision {
                case .retry(let error, let after): throw RetryableFailure(error: error, retryAfter: after)
                case .fail(let error): throw error
                default:
                    throw DownloadError.verification("the server's answer to a Range request for \(url.absoluteString) cannot be spliced")
                }
            } catch {
                throw classify(error, url: url)
            }
        }
        return total
    }
}

/// The `.part` for writes at any place, never truncated (Fetcher has an `open` of its own).
private func openForWriting(_ path: String) -> Int32 {
    open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
}

/// Writes one Range answer at its place in the `.part`, stopping at bytes already held.
private final class GapWriter: HTTPClientResponseDelegate, Sendable {
    typealias Response = Void

    private let fd: Int32
    private let url: String
    private let path: String
    private let start: Int64
    private let total: Int64
    private let validator: String
    private let growing: GrowingFile
    private let jumps: SeekJumps
    private let live: LiveProgress
    /// Used from the one event loop the request runs on, so its lock is never contended.
    private let cursor = Mutex(Cursor())

    private struct Cursor {
        var position: Int64 = 0
        /// A server that ignored Range sends the file from its start: bytes before `start` are skipped.
        var skip: Int64 = 0
    }

    init(fd: Int32, url: String, path: String, start: Int64, total: Int64, validator: String, growing: GrowingFile, jumps: SeekJumps,
         live: LiveProgress) {
        self.fd = fd
        self.url = url
        self.path = path
        self.start = start
        self.total = total
        self.validator = validator
        self.growing = growing
        self.jumps = jumps
        self.live = live
    }

    func didReceiveHead(task: HTTPClient.Task<Void>, _ head: HTTPResponseHead) -> EventLoopFuture<Void> {
        live.touch()
        var fields: [String: String] = [:]
        for (name, value) in head.headers where fields[name.lowercased()] == nil { fields[name.lowercased()] = value }
        let response = ResponseHead(status: Int(head.status.code), headers: fields)
        let partial = PartialDownload(bytesOnDisk: start, validator: validator, expectedTotal: total)
        switch ResumePlan.decide(response, partial: partial, url: url) {
        case .append(let offset, _):
            cursor.withLock { $0 = Cursor(position: offset) }
        case .writeFromStart(let size) where size == nil || size == total:
            // Range ignored: the whole file comes again; only what is missing is written.
            if !validator.isEmpty, !response.validator.isEmpty, response.validator != validator {
                return task.eventLoop.makeFailedFuture(DownloadError.verification("the file changed on the server while it played"))
            }
            cursor.withLock { $0 = Cursor(position: 0, skip: start) }
        case let other:
            return task.eventLoop.makeFailedFuture(PartWriter.Unused(decision: other))
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didReceiveBodyPart(task: HTTPClient.Task<Void>, _ buffer: ByteBuffer) -> EventLoopFuture<Void> {
        cursor.withLock { writeBody(buffer, task: task, at: &$0) }
    }

    private func writeBody(_ buffer: ByteBuffer, task: HTTPClient.Task<Void>, at cursor: inout Cursor) -> EventLoopFuture<Void> {
        var bytes = buffer
        if cursor.skip > 0 {
            let dropped = Int(min(Int64(bytes.readableBytes), cursor.skip))
            bytes.moveReaderIndex(forwardBy: dropped)
            cursor.skip -= Int64(dropped)
            cursor.position += Int64(dropped)
            // Still before the gap: nothing to write or check yet.
            if cursor.skip > 0 || bytes.readableBytes == 0 { return task.eventLoop.makeSucceededVoidFuture() }
        }
        // Up to the next byte already held: what lies there came another way.
        let held = growing.heldRanges
        let next = held.ranges.first { $0.lowerBound > cursor.position }?.lowerBound ?? total
        let room = Int(max(0, min(Int64(bytes.readableBytes), next - cursor.position)))
        if held.contiguous(from: cursor.position) > 0 {
            return task.eventLoop.makeFailedFuture(GapFilled())
        }
        if room > 0 {
            let written = bytes.withUnsafeReadableBytes { raw -> Int in
                var done = 0
                while done < room {
                    let n = pwrite(fd, raw.baseAddress! + done, room - done, off_t(cursor.position + Int64(done)))
                    if n < 0 {
                        if errno == EINTR { continue }
                        return -Int(errno)
                    }
                    done += n
                }
                return done
            }
            if written < 0 {
                return task.eventLoop.makeFailedFuture(PartFile.error(Int32(-written), action: "write", path: path, size: cursor.position))
            }
            growing.didWrite(at: cursor.position, count: room)
            live.add(room)
            cursor.position += Int64(room)
        }
        if room < bytes.readableBytes || cursor.position >= total || jumps.wrote(upTo: cursor.position) {
            return task.eventLoop.makeFailedFuture(GapFilled())
        }
        return task.eventLoop.makeSucceededVoidFuture()
    }

    func didFinishRequest(task: HTTPClient.Task<Void>) throws {
        // A body that ended before its gap was filled: the next round asks again from there.
        let (position, skip) = cursor.withLock { ($0.position, $0.skip) }
        if position < total, growing.heldRanges.contiguous(from: position) == 0, skip == 0 {
            throw RetryableFailure(error: DownloadError.network("connection closed at byte \(position) of \(total)"), retryAfter: nil)
        }
    }
}
