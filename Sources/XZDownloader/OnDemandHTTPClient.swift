import AsyncHTTPClient
import XZSystem

/// An HTTP client made at the first request that needs it: most processes that hold a download manager
/// (a one-shot `play`, a host nobody asks to fetch) never do, and making one starts NIO's event loop
/// threads, which every such command paid for as it started.
final class OnDemandHTTPClient: Sendable {
    private enum State {
        case unmade(DownloadSettings)
        case made(HTTPClient)
        /// Shut down; a request after that gets a client already shut down, and fails as on any closed client.
        case closed
    }

    private let state: Mutex<State>

    /// A client made from `settings` when first asked for (`Fetcher.makeClient`).
    init(making settings: DownloadSettings) { state = Mutex(.unmade(settings)) }

    /// The caller's client, made already.
    init(_ client: HTTPClient) { state = Mutex(.made(client)) }

    var client: HTTPClient {
        state.withLock { state in
            switch state {
            case .made(let client):
                return client
            case .unmade(let settings):
                let client = Fetcher.makeClient(settings)
                state = .made(client)
                return client
            case .closed:
                let client = Fetcher.makeClient(DownloadSettings())
                client.shutdown { _ in }
                return client
            }
        }
    }

    /// The client taken out to be shut down, if one was made; later requests fail.
    private func close() -> HTTPClient? {
        state.withLock { state in
            defer { state = .closed }
            if case .made(let client) = state { return client }
            return nil
        }
    }

    /// Shuts the client down, if one was made, and waits for it.
    func shutdown() async {
        try? await close()?.shutdown()
    }

    /// Shuts the client down, if one was made, without waiting (a deinit cannot).
    func shutdownWithoutWaiting() {
        close()?.shutdown { _ in }
    }
}
