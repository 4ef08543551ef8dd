import Foundation
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZServer
import XZSubsonicAPI
import XZSystem
import XZZeroconf

/// How `serve` listens: config keys `port`, `bind_to_address`, `password`, `music_directory`, `state_file`
/// and `restore_paused` (MPD's names); flags override them. The music folder's watch: `auto_update`,
/// `auto_update_depth`. The queue's cap: `max_playlist_length`. What a client may make the host hold:
/// `max_command_list_size` and `max_output_buffer_size`, in KiB as MPD reads them, and
/// `request_time_budget`. Zeroconf: `zeroconf_enabled` and `zeroconf_name`. The Subsonic API: `subsonic_*`.
package struct HostSettings: Sendable, Equatable {
    package var port = 6600
    package var bindAddress = "127.0.0.1"
    package var password: String?
    package var musicDirectory: URL
    /// Where the host keeps its queue and player state: `host.state` in the library folder when nil,
    /// nowhere with `state_file = none`.
    package var stateFilePath: String?
    package var keepsState = true
    /// Music playing when the host stopped comes back paused (MPD's `restore_paused`; on here).
    package var restorePaused = true
    package var libraryWatch = LibraryWatchSettings()
    /// The most entries the queue holds (MPD's `max_playlist_length`, 16,384 by default); stored
    /// playlists are held to it too.
    package var maxPlaylistLength = PlayerHost.defaultMaxQueueLength
    package var limits = ServerLimits()
    /// The host shows itself over MPRIS on the session bus (`mpris`).
    package var mpris = true
    /// Phones find the host through avahi-daemon (MPD's `zeroconf_enabled`).
    package var zeroconfEnabled = true
    /// The name it is announced by, `%h` being the host name (MPD's `zeroconf_name`).
    package var zeroconfName = ZeroconfName.defaultTemplate
    /// The Subsonic API (`subsonic_*`); off unless `subsonic.port` is set. Its cache folder is the
    /// library's, set when the host starts.
    package var subsonic = SubsonicSettings(cacheFolder: FileManager.default.temporaryDirectory)

    package init(musicDirectory: URL = SongNaming.defaultMusicDirectory()) {
        self.musicDirectory = musicDirectory
    }

    package init(config: ConfigFile) throws {
        self.init()
        libraryWatch = try LibraryWatchSettings(config: config)
        if let port = try config.wholeNumber(.port) { self.port = port }
        if let address = try config.text(.bindToAddress) { bindAddress = address }
        if let password = try config.text(.password) { self.password = password }
        if let folder = try config.text(.musicDirectory) { musicDirectory = URL(fileURLWithPath: folder) }
        switch try config.value(.stateFile) {
        case .noPath?: keepsState = false
        case .text(let path)?: stateFilePath = path
        default: break
        }
        if let restorePaused = try config.yesNo(.restorePaused) { self.restorePaused = restorePaused }
        if let length = try config.wholeNumber(.maxPlaylistLength) { maxPlaylistLength = length }
        if let mpris = try config.yesNo(.mpris) { self.mpris = mpris }
        if let seconds = try config.number(.requestTimeBudget) {
            limits.requestBudget = .milliseconds(Int64((seconds * 1000).rounded()))
        }
        // In KiB, as MPD reads its buffer sizes.
        if let kibibytes = try config.wholeNumber(.maxCommandListSize) { limits.maxCommandListBytes = kibibytes * 1024 }
        if let kibibytes = try config.wholeNumber(.maxOutputBufferSize) { limits.maxOutputBytes = kibibytes * 1024 }
        if let enabled = try config.yesNo(.zeroconfEnabled) { zeroconfEnabled = enabled }
        if let name = try config.text(.zeroconfName) { zeroconfName = name }
        if let port = try config.wholeNumber(.subsonicPort) { subsonic.port = port }
        if let address = try config.text(.subsonicBindToAddress) { subsonic.bindAddress = address }
        if let count = try config.wholeNumber(.subsonicMaxTranscodes) { subsonic.maxTranscodes = count }
        if let bytes = try config.wholeNumber(.subsonicTranscodeCache) { subsonic.transcodeCacheBytes = Int64(bytes) }
        if let bytes = try config.wholeNumber(.subsonicCoverCache) { subsonic.coverCacheBytes = Int64(bytes) }
    }

    /// The state file of a host of `library`, or nil when it keeps none.
    package func stateFile(library: LibraryFolder) -> String? {
        guard keepsState else { return nil }
        return stateFilePath ?? library.url.appendingPathComponent("host.state").path
    }

    /// Loopback needs no password; any other address does, so the music is never open to a network.
    package func validate() throws {
        if !Self.isLoopback(bindAddress), password == nil {
            throw HostingError.refusedAddress("refusing to listen on \(bindAddress) without a password: set 'password = …' in the config")
        }
    }

    /// An address only this machine reaches.
    package static func isLoopback(_ address: String) -> Bool {
        ["127.0.0.1", "::1", "localhost"].contains(address) || address.hasPrefix("127.")
    }
}
