import AsyncHTTPClient
import Foundation
import NIOCore
import NIOPosix
import XZSystem
import XZAudio

/// Seconds on a clock that never jumps.
func monotonicSeconds() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }

/// Bytes done, total, bytes per second and seconds left of a running task, as far as known.
struct ProgressSnapshot: Sendable, Equatable {
    var done: Int64
    var total: Int64?
    var rate: Double?
    var eta: Double?
}

/// A running task's counters, shared by its worker (writes) and the manager (reads).
final class LiveProgress: Sendable {
    private struct State {
        var done: Int64 = 0
        var most: Int64 = 0
        var total: Int64?
        var lastActivity = monotonicSeconds()
        var samples: [(time: Double, bytes: Int64)] = []
        var lastReport = 0.0
        /// Bytes since `windowStart`, for the minimum rate.
        var windowStart = monotonicSeconds()
        var windowBytes: Int64 = 0
        /// The writer waits for its reader (a stream's player is behind): no time counts against the rate.
        var heldBack = false
    }

    private let state = Mutex(State())
    private let interval: Double
    /// Called at most every `interval` seconds, outside the lock.
    private let report: @Sendable (ProgressSnapshot) -> Void

    init(interval: Double, report: @escaping @Sendable (ProgressSnapshot) -> Void = { _ in }) {
        self.interval = interval
        self.report = report
    }

    /// Something arrived (a connection, headers, bytes): the idle clock starts again. `bytes` of a body
    /// kept in memory count for the minimum rate without being progress.
    func touch(bytes: Int = 0) {
        state.withLock { state in
            state.lastActivity = monotonicSeconds()
            state.windowBytes += Int64(bytes)
        }
    }

    /// While set, the writer waits for its reader, and the rate is not measured.
    func holdBack(_ held: Bool) {
        state.withLock { state in
            state.heldBack = held
            state.windowStart = monotonicSeconds()
            state.windowBytes = 0
            state.lastActivity = monotonicSeconds()
        }
    }

    /// Measuring the rate starts over (a new attempt, whose writer waits for nothing yet).
    func startRateWindow() {
        state.withLock { state in
            state.heldBack = false
            state.windowStart = monotonicSeconds()
            state.windowBytes = 0
        }
    }

    /// True once a whole `window` seconds brought fewer than `minRate` bytes a second; checked by the
    /// watchdog, which starts a new window after each one that was fast enough.
    func isSlow(minRate: Int64, window: Double) -> Bool {
        guard minRate > 0 else { return false }
        let now = monotonicSeconds()
        return state.withLock { state in
            if state.heldBack {
                state.windowStart = now
                state.windowBytes = 0
                return false
            }
            let elapsed = now - state.windowStart
            guard elapsed >= window else { return false }
            if Double(state.windowBytes) < Double(minRate) * elapsed { return true }
            state.windowStart = now
            state.windowBytes = 0
            return false
        }
    }

    /// Seconds since anything arrived; 0 while the writer waits for its reader (a paused radio is no dead server).
    var idleSeconds: Double { state.withLock { $0.heldBack ? 0 : monotonicSeconds() - $0.lastActivity } }

    var bytesDone: Int64 { state.withLock { $0.done } }
    /// The most bytes the `.part` has held: only passing it counts as progress for retries.
    var highWater: Int64 { state.withLock { $0.most } }

    /// A new response: counting starts at what is already on disk.
    func reset(done: Int64, total: Int64?) {
        state.withLock { state in
            state.done = done
            state.most = max(state.most, done)
            state.total = total
            state.samples = [(monotonicSeconds(), done)]
            state.lastActivity = monotonicSeconds()
            state.windowStart = monotonicSeconds()
            state.windowBytes = 0
        }
        report(snapshot())
    }

    func add(_ count: Int) {
        let now = monotonicSeconds()
        let interval = interval
        let due: Bool = state.withLock { state in
            state.done += Int64(count)
            state.most = max(state.most, state.done)
            state.windowBytes += Int64(count)
            state.lastActivity = now
            guard now - state.lastReport >= interval else { return false }
            state.lastReport = now
            state.samples.append((now, state.done))
            // Rate over the last five seconds: steady enough to read, quick to follow a change.
            while state.samples.count > 2, let first = state.samples.first, now - first.time > 5 { state.samples.removeFirst() }
            return true
        }
        if due { report(snapshot()) }
    }

    func snapshot() -> ProgressSnapshot {
        state.withLock { state in
            let done = state.done
            let total = state.total
            guard let first = state.samples.first, let last = state.samples.last, last.time - first.time > 0.2 else {
                return ProgressSnapshot(done: done, total: total)
            }
            let rate = Double(last.bytes - first.bytes) / (last.time - first.time)
            let eta = total.flatMap { rate > 0 ? Double(max(0, $0 - done)) / rate : nil }
            return ProgressSnapshot(done: done, total: total, rate: rate, eta: eta)
        }
    }
}

/// A failed attempt that is worth another.
struct RetryableFailure: Error {
    let error: DownloadError
    let retryAfter: Double?
}

/// One HTTP GET at a time over the shared client, which follows redirects.
struct Fetcher: Sendable {
    private let clients: OnDemandHTTPClient
    let settings: DownloadSettings

    /// The client; one the fetcher makes itself is made at the first request.
    var client: HTTPClient { clients.client }

    init(client: HTTPClient, settings: DownloadSettings) {
        self.init(clients: OnDemandHTTPClient(client), settings: settings)
    }

    init(clients: OnDemandHTTPClient, settings: DownloadSettings) {
        self.clients = clients
        self.settings = settings
    }

    /// How an owned client follows redirects: at most 5, and never back to an address already asked.
    static let maxRedirects = 5
    static let redirects = HTTPClient.Configuration.RedirectConfiguration.follow(max: maxRedirects, allowCycles: false)

    /// Sends GET to `url` and returns the response the redirects lead to, with the URL it came from.
    func open(_ url: URL, live: LiveProgress) async throws -> (HTTPClientResponse, ResponseHead, URL) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .GET
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        // Byte counts and Range offsets are about the file itself, never a compressed form of it.
        request.headers.add(name: "Accept-Encoding", value: "identity")
        live.touch()
        let response: HTTPClientResponse
        do {
            response = try await client.execute(request, timeout: .hours(24 * 7))
        } catch {
            throw classify(error, url: url)
        }
        live.touch()
        let finalURL = response.url ?? url
        var fields: [String: String] = [:]
        for (name, value) in response.headers where fields[name.lowercased()] == nil { fields[name.lowercased()] = value }
        let head = ResponseHead(status: Int(response.status.code), headers: fields)
        // A redirect that reaches us is one the client would not follow: say why.
        if case .redirect(let location) = ResumePlan.decide(head, partial: PartialDownload(), url: finalURL.absoluteString) {
            throw try unfollowedRedirect(location, from: finalURL)
        }
        return (response, head, finalURL)
    }

    /// Connection failures (refused, reset, TLS, early close) are retried, except those no retry can
    /// mend (`permanentConnectionFailure`). `url` is where the failure happened, `start` the address
    /// asked for, when redirects led elsewhere.
    func classify(_ error: Error, url: URL, start: URL? = nil) -> Error {
        if error is DownloadError || error is RetryableFailure || error is CancellationError || error is JumpedAway { return error }
        if let permanent = Self.permanentConnectionFailure(error, url: url) { return permanent }
        if let http = error as? HTTPClientError {
            if http == .cancelled { return CancellationError() }
            if http == .redirectCycleDetected {
                return DownloadError.redirect("a redirect loop, starting at \((start ?? url).absoluteString)")
            }
            if http == .redirectLimitReached {
                return DownloadError.redirect("too many redirects: gave up after \(Self.maxRedirects), starting at \((start ?? url).absoluteString)")
            }
            if http == .readTimeout || http == .connectTimeout || http == .deadlineExceeded {
                return timeout(url)
            }
        }
        if Task.isCancelled { return CancellationError() }
        let message = "connection to \(url.host ?? url.absoluteString) failed: \(error)"
        return RetryableFailure(error: DownloadError.network(message), retryAfter: nil)
    }

    /// A connection that no retry can mend: a host name that resolves to no address, or a loopback
    /// address where nothing listens (no network lies between to come back). Nil for any other failure.
    static func permanentConnectionFailure(_ error: Error, url: URL) -> DownloadError? {
        let host = url.host ?? url.absoluteString
        if error is SocketAddressError {
            return DownloadError.network("cannot find the host \(host): the name resolves to no address")
        }
        let port = url.port ?? (url.scheme?.lowercased() == "https" ? 443 : 80)
        let refused = DownloadError.network("connection refused by \(host) port \(port): nothing listens there")
        // An address given as such is connected to directly: the socket's own error comes back.
        if let failure = error as? IOError {
            return failure.errnoCode == ECONNREFUSED && Self.isLoopback(host) ? refused : nil
        }
        // A name is resolved first, then each of its addresses tried.
        guard let failure = error as? NIOConnectionError else { return nil }
        if failure.connectionErrors.isEmpty, failure.dnsAError != nil || failure.dnsAAAAError != nil {
            return DownloadError.network("cannot find the host \(host): the name resolves to no address")
        }
        let allRefused = !failure.connectionErrors.isEmpty && failure.connectionErrors.allSatisfy {
            ($0.error as? IOError)?.errnoCode == ECONNREFUSED && $0.target.ipAddress.map(Self.isLoopback) == true
        }
        return allRefused ? refused : nil
    }

    /// 127.0.0.0/8, ::1 or localhost.
    private static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        if bare == "localhost" || bare == "::1" { return true }
        let parts = bare.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { UInt8($0) != nil } && parts.first == "127"
    }

    /// One attempt at the file: resumes the `.part` when the server allows it, else starts it over.
    /// `onSource` runs before the first byte is written, to record which version is being fetched.
    /// The body stops with `.tooLarge` past `limit` (by default `max_download_size`) or the size the server
    /// announced. With a `window`, a body of no announced length goes to `growing`'s memory window of that
    /// many bytes instead of the `.part` (a radio stream). Returns the size of the complete file.
    func fetchFile(_ url: URL, partPath: String, partial start: PartialDownload, live: LiveProgress, growing: GrowingFile? = nil,
                   jumps: SeekJumps? = nil, limit: PartWriter.SizeLimit? = nil, window: Int? = nil,
                   onSource: @escaping @Sendable (URL, String, Int64?, Int64) throws -> Void) async throws -> Int64 {
        let limit = limit ?? .of(catalogueSize: nil, settings: settings)
        var partial = ResumePlan.resumable(start)
        var restarted = false
        while true {
            let writer = PartWriter(url: url, partPath: partPath, partial: partial, live: live, growing: growing,
                                    jumps: jumps, limit: limit, window: window, onSource: onSource)
            let written: PartWriter.Written
            do {
                // A stream listened to asks a station for its titles between the audio (see ICYMetadata).
                let icy = window == nil ? [] : [ICYMetadata.requestHeader]
                written = try await send(url, headers: ResumePlan.requestHeaders(for: partial) + icy, to: writer, live: live)
            } catch let stop as PartWriter.Unused {
                switch stop.decision {
                case .restartWithoutRange(let reason):
                    // Once: a server that cannot give a usable range even to a plain GET is broken.
                    guard !restarted else { throw DownloadError.verification("\(reason) from \(writer.finalURL.absoluteString)") }
                    restarted = true
                    partial = PartialDownload()
                    continue
                case .redirect(let location):
                    throw try unfollowedRedirect(location, from: writer.finalURL)
                case .retry(let error, let after):
                    throw RetryableFailure(error: error, retryAfter: after)
                case .fail(let error):
                    throw error
                case .complete(let size):
                    live.reset(done: size, total: size)
                    return size
                case .writeFromStart, .append:
                    throw DownloadError.io("response for \(writer.finalURL.absoluteString) was not written")
                }
            } catch {
                throw classify(error, url: writer.finalURL, start: url)
            }
            if written.endlessStation {
                throw RetryableFailure(error: DownloadError.network("the station closed the connection"), retryAfter: nil)
            }
            guard let total = written.total else { return written.size }
            if written.size < total {
                throw RetryableFailure(error: DownloadError.network("connection closed after \(written.size) of \(total) bytes from \(writer.finalURL.absoluteString)"), retryAfter: nil)
            }
            if written.size > total {
                throw DownloadError.verification("received \(written.size) bytes, but the server announced \(total)")
            }
            return total
        }
    }

    /// Runs one request through `writer` on a single event loop, so the writer sees every body
    /// byte before the client can report the connection's end; cancelling the task cancels it.
    private func send(_ url: URL, headers: [(String, String)], to writer: PartWriter, live: LiveProgress) async throws -> PartWriter.Written {
        var request = try HTTPClient.Request(url: url.absoluteString, method: .GET)
        request.headers.add(name: "User-Agent", value: settings.userAgent)
        request.headers.add(name: "Accept-Encoding", value: "identity")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        live.touch()
        let task = client.execute(request: request, delegate: writer, eventLoop: .delegateAndChannel(on: client.eventLoopGroup.next()))
        return try await withTaskCancellationHandler {
            try await task.futureResult.get()
        } onCancel: {
            task.cancel()
        }
    }

    /// The error for a redirect the client did not follow.
    private func unfollowedRedirect(_ location: String, from finalURL: URL) throws -> DownloadError {
        guard let next = URL(string: location, relativeTo: finalURL)?.absoluteURL else {
            return DownloadError.redirect("unreadable redirect Location \"\(location)\" from \(finalURL.absoluteString)")
        }
        _ = try DownloadURL.checked(next.absoluteString)
        return DownloadError.redirect("redirect to \(next.absoluteString) not followed, from \(finalURL.absoluteString)")
    }

    /// A small body (lyrics, a JSON answer) in memory, at most `limit` bytes.
    func fetchSmall(_ url: URL, limit: Int = 4 << 20, live: LiveProgress) async throws -> (ResponseHead, Data) {
        let (response, head, finalURL) = try await open(url, live: live)
        var data = Data()
        do {
            for try await buffer in response.body {
                guard data.count + buffer.readableBytes <= limit else {
                    throw DownloadError.verification("answer from \(finalURL.absoluteString) is larger than \(limit) bytes")
                }
                buffer.withUnsafeReadableBytes { data.append(contentsOf: $0) }
                // Only the clocks: answers kept in memory are no progress that earns more retries.
                live.touch(bytes: buffer.readableBytes)
            }
        } catch {
            throw classify(error, url: finalURL)
        }
        if let length = head.contentLength, length != Int64(data.count) {
            throw RetryableFailure(error: DownloadError.network("connection closed after \(data.count) of \(length) bytes from \(finalURL.absoluteString)"), retryAfter: nil)
        }
        return (head, data)
    }

    /// Runs `body`, abandoning it once `live` has seen nothing for the idle timeout, or less than the
    /// minimum rate over its window.
    func withIdleTimeout<T: Sendable>(_ live: LiveProgress, url: URL, _ body: @escaping @Sendable () async throws -> T) async throws -> T {
        let limit = settings.idleTimeout
        let minRate = settings.minRate, window = settings.minRateWindow
        live.touch()
        live.startRateWindow()
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await body() }
            group.addTask {
                let step = min(0.25, max(0.01, min(limit, window) / 4))
                while live.idleSeconds < limit, !live.isSlow(minRate: minRate, window: window) {
                    try await Task.sleep(nanoseconds: UInt64(step * 1e9))
                }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                throw live.idleSeconds >= limit ? timeout(url) : tooSlow(url)
            }
            return value
        }
    }

    func tooSlow(_ url: URL) -> RetryableFailure {
        let host = url.host ?? url.absoluteString
        return RetryableFailure(error: DownloadError.timeout("\(host) sent less than \(settings.minRate) bytes a second for \(Self.seconds(settings.minRateWindow))"),
                                retryAfter: nil)
    }

    func timeout(_ url: URL) -> RetryableFailure {
        let host = url.host ?? url.absoluteString
        return RetryableFailure(error: DownloadError.timeout("no data from \(host) for \(Self.seconds(settings.idleTimeout))"), retryAfter: nil)
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : String(format: "%.1f s", value)
    }

    /// Runs attempts until one succeeds, backing off between failures. An attempt that moved the
    /// download forward starts the count again, so a flaky connection still finishes a big file.
    /// `playing` says a listener waits for the bytes: a host that cannot be reached at all (no byte ever came)
    /// then fails at once with one line, so the queue goes on, instead of after every retry.
    /// Progress is at least `progressFloor` new bytes.
    func withRetries<T: Sendable>(_ live: LiveProgress, url: URL, onFailure: (DownloadError) -> Void,
                                  playing: () -> Bool = { false }, progressFloor: Int64 = 1,
                                  _ attempt: @escaping @Sendable () async throws -> T) async throws -> T {
        let policy = RetryPolicy(settings)
        var failures = 0
        while true {
            try Task.checkCancellation()
            let before = live.highWater
            do {
                return try await withIdleTimeout(live, url: url, attempt)
            } catch let failure as RetryableFailure {
                if Task.isCancelled { throw CancellationError() }
                if live.highWater - before >= max(1, progressFloor) { failures = 0 }
                failures += 1
                onFailure(failure.error)
                let unreachable = live.highWater == 0 && (failure.error == .network || failure.error == .timeout)
                if unreachable, playing() {
                    throw failure.error
                }
                guard let delay = policy.delay(failures: failures, retryAfter: failure.retryAfter,
                                               jitter: Double.random(in: 0 ..< 1)) else {
                    let tries = failures == 1 ? "1 attempt" : "\(failures) attempts"
                    throw failure.error("\(failure.error.description) (gave up after \(tries))")
                }
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
    }
}
