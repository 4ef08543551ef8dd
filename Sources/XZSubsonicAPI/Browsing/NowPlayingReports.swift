import Foundation
import XZStats
import XZSystem

/// What a Subsonic client said it is playing (`scrobble` with `submission=false`).
package struct NowPlayingReport: Sendable, Equatable {
    package var user: UserID
    package var username: String
    /// The client's name (`c`), control characters removed.
    package var client: String
    package var songId: Int64
    package var at: Date

    package init(user: UserID, username: String, client: String, songId: Int64, at: Date) {
        self.user = user
        self.username = username
        self.client = client
        self.songId = songId
        self.at = at
    }
}

/// The latest report of each user's client, kept in memory for `getNowPlaying`: one per (user, client),
/// at most `maxReports`, forgotten after `keptFor`. One store per library (`of`).
package final class NowPlayingReports: Sendable {
    package static let maxReports = 256
    /// Reports older than this are no longer playing.
    package static let keptFor: TimeInterval = 30 * 60
    /// The longest client name kept.
    static let maxClientName = 128

    private let reports = Mutex<[NowPlayingReport]>([])

    package init() {}

    /// Keeps `report` in place of that user's client's last one; the oldest goes past the cap.
    package func add(_ report: NowPlayingReport) {
        var report = report
        report.client = String(report.client.unicodeScalars.filter { $0.properties.generalCategory != .control }
            .prefix(Self.maxClientName).map(Character.init))
        reports.withLock { reports in
            reports.removeAll { $0.user == report.user && $0.client == report.client }
            reports.append(report)
            if reports.count > Self.maxReports { reports.removeFirst(reports.count - Self.maxReports) }
        }
    }

    /// Reports of the last `keptFor`, newest first.
    package func current(now: Date = Date()) -> [NowPlayingReport] {
        reports.withLock { reports in
            reports.removeAll { now.timeIntervalSince($0.at) > Self.keptFor }
            return reports.reversed()
        }
    }

    // MARK: One store per library

    private static let stores = Mutex<[ObjectIdentifier: (library: Weak, store: NowPlayingReports)]>([:])

    /// The store of `library`, made on first use; stores of libraries gone are dropped.
    package static func of(_ library: SubsonicLibrary) -> NowPlayingReports {
        stores.withLock { stores in
            let key = ObjectIdentifier(library)
            if let kept = stores[key], kept.library.object === library { return kept.store }
            stores = stores.filter { $0.value.library.object != nil }
            let store = NowPlayingReports()
            stores[key] = (Weak(library), store)
            return store
        }
    }

    private struct Weak: Sendable {
        weak var object: SubsonicLibrary?
        init(_ object: SubsonicLibrary) { self.object = object }
    }
}
