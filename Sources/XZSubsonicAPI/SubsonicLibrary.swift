import XZAccounts
import XZCatalogue
import XZHostCore

/// What every endpoint reaches: the host (its player through its one door, its catalogue and statistics),
/// the library's users, the API's settings, and the media services with their caches and caps.
package final class SubsonicLibrary: Sendable {
    package let host: PlayerHost
    package let accounts: AccountStore
    package let settings: SubsonicSettings
    package let media: SubsonicMedia
    package let covers: CoverArtCache

    package var database: LibraryDatabase { host.database }

    package init(host: PlayerHost, accounts: AccountStore, settings: SubsonicSettings) {
        self.host = host
        self.accounts = accounts
        self.settings = settings
        media = SubsonicMedia(host: host, settings: settings)
        covers = CoverArtCache(host: host, settings: settings)
    }
}
