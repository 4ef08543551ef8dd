import Foundation
import Hummingbird
import HummingbirdCore
import NIOCore
import NIOPosix
import XZSubsonicAPI
import XZSystem

/// What a client may make the API's server hold.
package struct SubsonicServerLimits: Sendable, Equatable {
    /// Requests being answered at once; one more is answered 503 with `Retry-After` at once.
    package var maxRequestsInFlight = 256
    /// Connections open at once; further ones wait in the listen queue until one closes.
    package var maxConnections = 512
    package var listenBacklog = 1024
    /// The largest form POST body; a larger one is answered 413.
    package var maxBodyBytes = 64 << 10
    /// The largest request head (request line and headers); a larger one is answered 400 and closed.
    package var maxHeadBytes = 64 << 10
    /// A connection with no request in progress (or a request head that does not arrive) is closed after
    /// this: kept short, as an idle client's connection holds one of the `maxConnections` places.
    package var idleTimeout: Duration = .seconds(15)
    /// A form body that does not arrive within this closes its connection.
    package var bodyTimeout: Duration = .seconds(30)
    /// A client that takes no byte for this long is cut off, and the stream it held stopped.
    package var stalledWriteTimeout: Duration = .seconds(60)
    /// Threads that run the router (SQLite reads, file lookups, encoding).
    package var threads = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// Chunks waiting between a stream's producer and its client.
    package var streamHandOffChunks = 8
    /// Bytes read from a file at a time: large, for few reads and writes per raw stream; a
    /// client slower than the disk holds up to 8 chunks read ahead (NIO's file reader's high watermark).
    package var fileChunkBytes = 1 << 20

    package init() {}
}

/// The API on HTTP (Hummingbird 2): started on an address and port, stopped with the host.
package final class SubsonicServer: Sendable {
    package let router: SubsonicRouter
    package let limits: SubsonicServerLimits
    private let pool: NIOThreadPool
    private let events: MultiThreadedEventLoopGroup
    private let running = Mutex<Task<Void, Never>?>(nil)

    /// `credentials`: where wrong credentials are counted by client address; MPD's listener's, for one
    /// count per address over both protocols.
    package init(library: SubsonicLibrary, limits: SubsonicServerLimits = SubsonicServerLimits(),
                 endpoints: [String: SubsonicEndpoint] = SubsonicEndpoints.all,
                 credentials: CredentialThrottle = CredentialThrottle()) {
        router = SubsonicRouter(library: library, endpoints: endpoints, throttle: credentials)
        self.limits = limits
        pool = NIOThreadPool(numberOfThreads: limits.threads)
        events = MultiThreadedEventLoopGroup(numberOfThreads: min(2, ProcessInfo.processInfo.activeProcessorCount))
    }

    /// Listens on `address` and `port` (0 picks a free one) and answers from then on; returns the port
    /// bound. Throws when the address cannot be bound.
    package func start(address: String, port: Int) async throws -> Int {
        pool.start()
        let responder = SubsonicHTTPResponder(router: router, limits: limits, pool: pool,
                                              gate: RequestGate(capacity: limits.maxRequestsInFlight), throttle: router.throttle)
        let bound = BoundPort()
        let stalled = TimeAmount(limits.stalledWriteTimeout)
        let http = HTTP1Channel.Configuration(
            additionalChannelHandlers: [StalledWriteGuard(limit: stalled)],
            idleTimeout: TimeAmount(limits.idleTimeout),
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxHeadBytes, maxHeaderListSize: limits.maxHeadBytes))
        var application = Application(
            responder: responder,
            server: .http1(configuration: http),
            configuration: ApplicationConfiguration(
                address: .hostname(address, port: port), serverName: "xzmusic", backlog: limits.listenBacklog,
                availableConnectionsDelegate: MaximumAvailableConnections(limits.maxConnections)),
            onServerRunning: { channel in bound.resolve(.success(channel.localAddress?.port ?? port)) },
            eventLoopGroupProvider: .shared(events))
        // Its lines would interleave with serve's own (which says where the API listens); failures to
        // listen reach the caller as errors, and a stop is no error.
        application.logger.logLevel = .critical
        let task = Task {
            do {
                try await application.run()
                bound.resolve(.failure(SubsonicServerError.stopped))
            } catch {
                bound.resolve(.failure(error))
            }
        }
        running.withLock { $0 = task }
        do {
            return try await bound.port()
        } catch {
            task.cancel()
            running.withLock { $0 = nil }
            throw error
        }
    }

    /// Closes the listener and every connection (streams end), then the threads.
    package func stop() async {
        let task = running.withLock { task in
            defer { task = nil }
            return task
        }
        if let task {
            task.cancel()
            await task.value
        }
        try? await pool.shutdownGracefully()
        try? await events.shutdownGracefully()
    }

    /// As `stop()`, from any thread of a program about to exit: nothing is waited for.
    package func stopForExit() {
        running.withLock { task in
            task?.cancel()
            task = nil
        }
    }
}

package struct SubsonicServerError: Error, CustomStringConvertible {
    package var description: String
    static let stopped = SubsonicServerError(description: "the Subsonic API's server stopped before it listened")
}

/// The port the listener bound, told once by whichever comes first: the server running, or failing.
private final class BoundPort: Sendable {
    private let state = Mutex<(result: Result<Int, any Error>?, waiter: CheckedContinuation<Int, any Error>?)>((nil, nil))

    func resolve(_ result: Result<Int, any Error>) {
        let waiter = state.withLock { state -> CheckedContinuation<Int, any Error>? in
            guard state.result == nil else { return nil }
            state.result = result
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(with: result)
    }

    func port() async throws -> Int {
        try await withCheckedThrowingContinuation { continuation in
            let result = state.withLock { state -> Result<Int, any Error>? in
                if state.result == nil { state.waiter = continuation }
                return state.result
            }
            if let result { continuation.resume(with: result) }
        }
    }
}

extension TimeAmount {
    init(_ duration: Duration) {
        let (seconds, attoseconds) = duration.components
        self = .nanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
