import Dispatch
import XZCatalogue
import XZHostCore
import XZSystem

/// What every MPD connection to one host shares: the host, its password, the wrong passwords counted per
/// client address, and the song records listings reuse (MPD's database in memory).
package final class MPDService: Sendable {
    package let host: PlayerHost
    /// Required before anything but the `beforePassword` commands; nil: every client may do everything.
    package let password: String?
    package let limits: SessionLimits
    /// Wrong passwords by client address, over all its connections (the Subsonic API's kind of count).
    package let credentials: CredentialThrottle
    let songRecords = SongRecords()
    /// `stats`'s totals, counted again only when the catalogue changed.
    let catalogueSummary = Mutex<CatalogueSummary?>(nil)
    /// The client-to-client message channels (`subscribe`, `sendmessage`).
    let messageChannels = MessageChannels()

    package init(host: PlayerHost, password: String? = nil, limits: SessionLimits = SessionLimits(),
                 credentials: CredentialThrottle = CredentialThrottle()) {
        self.host = host
        self.password = password
        self.limits = limits
        self.credentials = credentials
    }

    /// Watches the catalogue while clients may list it (`PlayerHost.watchCatalogue`). `makingRecordsAhead`:
    /// after every change, the songs' records are made again in the background (`SongRecords.warm`), a
    /// few MB for a small catalogue.
    package func watchCatalogue(polling interval: DispatchTimeInterval = .seconds(1), makingRecordsAhead: Bool) {
        host.watchCatalogue(polling: interval) { [weak self] in
            guard let self, makingRecordsAhead else { return }
            // Records are only made ahead of need: a failure here leaves the listing to make them.
            try? songRecords.warm(host: host)
        }
    }
}

/// What one client's requests may make the host hold, MPD's caps under MPD's config names.
package struct SessionLimits: Sendable, Equatable {
    /// Bytes one command list may hold, counted as MPD counts them (each line and its end):
    /// `max_command_list_size`, 2 MiB by default. Past it MPD hangs up without an answer, and so do we.
    package var maxCommandListBytes = 2 * 1024 * 1024
    /// Bytes one answer may reach: `max_output_buffer_size`, 8 MiB by default. The answer stops growing
    /// there and the client is dropped, as MPD drops a client whose output buffer is full.
    package var maxOutputBytes = 8 * 1024 * 1024
    /// Wrong passwords one connection may try before it is dropped; each waits longer than the one before,
    /// counted over the connection and over its address's connections (`MPDService.credentials`).
    package var passwordAttempts = 3
    /// Lines that are no command at all (unknown names, unparsable) before a connection's first command:
    /// past this many the peer is not an MPD client (a header block sent to the wrong port) and is dropped.
    /// 4 is fewer than the headers any HTTP client sends, and more than a client probing a few newer commands.
    package var unknownLinesBeforeCommand = 4
    /// How long one request, or one command list, may take before it is cancelled with an ACK: a
    /// request that would hold a blocking thread longer (a slow filter over a large library) gives it back.
    /// `request_time_budget` (XZMusic's own; MPD has none).
    package var requestBudget = SessionLimits.defaultRequestBudget
    package static let defaultRequestBudget = Duration.seconds(10)

    package init() {}
}
