import Dispatch
import XZHost
import XZSystem

/// What every MPD connection to one host shares: the host, its password, and the song records listings
/// reuse (MPD's database in memory).
public final class MPDService: Sendable {
    public let host: PlayerHost
    /// Required before anything but the `beforePassword` commands; nil: every client may do everything.
    public let password: String?
    /// How long one request, or one command list, may take before it is cancelled with an ACK: a
    /// request that would hold a blocking thread longer (a slow filter over a large library) gives it back.
    public let requestBudget: Duration
    /// The budget unless the config says otherwise (`request_time_budget`).
    public static let defaultRequestBudget = Duration.seconds(10)
    let songRecords = SongRecords()
    /// The client-to-client message channels (`subscribe`, `sendmessage`).
    let messageChannels = MessageChannels()

    /// The most one answer may take (the server's output limit); `binarylimit` stays below it.
    public let maxOutputBytes: Int

    public init(host: PlayerHost, password: String? = nil, maxOutputBytes: Int = 8 * 1024 * 1024,
                requestBudget: Duration = MPDService.defaultRequestBudget) {
        self.host = host
        self.password = password
        self.maxOutputBytes = maxOutputBytes
        self.requestBudget = requestBudget
    }

    /// Watches the catalogue while clients may list it (`PlayerHost.watchCatalogue`). `makingRecordsAhead`:
    /// after every change, the songs' records are made again in the background (`SongRecords.warm`), a
    /// few MB for a small catalogue.
    public func watchCatalogue(every interval: DispatchTimeInterval = .seconds(1), makingRecordsAhead: Bool) {
        host.watchCatalogue(every: interval) { [weak self] in
            guard let self, makingRecordsAhead else { return }
            // Records are only made ahead of need: a failure here leaves the listing to make them.
            try? songRecords.warm(host: host)
        }
    }
}
