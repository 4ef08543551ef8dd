import Foundation
import XZCatalogue
import XZSystem

/// When the catalogue last changed, as `getIndexes`' `lastModified` tells clients: the time this process
/// first saw the catalogue's current version (every addition, removal and edit moves it, whoever makes
/// it), so a client's `ifModifiedSince` never hides a change. A process that just started has seen no
/// earlier version, and clients read the folders again once.
enum CatalogueChangeClock {
    private static let seen = Mutex<[String: (version: Int64, at: Date)]>([:])
    /// Libraries one process serves are few; past this many the table starts again.
    private static let maxLibraries = 64

    static func lastModified(of database: LibraryDatabase, now: Date = Date()) throws -> Date {
        let version = try database.catalogueVersion()
        return seen.withLock { seen in
            if let kept = seen[database.path], kept.version == version { return kept.at }
            if seen.count >= maxLibraries { seen.removeAll() }
            // Whole milliseconds, as the client gets them back.
            var at = Date(timeIntervalSince1970: (now.timeIntervalSince1970 * 1000).rounded(.down) / 1000)
            // Always later than the version before, however close the change came.
            if let kept = seen[database.path], at <= kept.at { at = kept.at.addingTimeInterval(0.001) }
            seen[database.path] = (version, at)
            return at
        }
    }
}
