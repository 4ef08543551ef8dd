import Foundation
import XZCatalogue
import XZHost
import XZMPDCommands
import XZServer
import XZSystem

/// How `serve` listens: config keys `port`, `bind_to_address`, `password`, `music_directory`, `state_file`
/// and `restore_paused` (MPD's names); flags override them. The music folder's watch: `auto_update`,
/// `auto_update_depth`. The queue's cap: `max_playlist_length`. What a client may make the host hold:
/// `max_command_list_size` and `max_output_buffer_size`, in KiB as MPD reads them, and
/// `request_time_budget`.
public struct HostSettings: Sendable, Equatable {
    public var port = 6600
    public var bindAddress = "127.0.0.1"
    public var password: String?
    public var musicDirectory: URL
    /// Where the host keeps its queue and player state: `host.state` in the library folder when nil,
    /// nowhere with `state_file = none`.
    public var stateFilePath: String?
    public var keepsState = true
    /// Music playing when the host stopped comes back paused (MPD's `restore_paused`; on here).
    public var restorePaused = true
    public var libraryWatch = LibraryWatchSettings()
    /// The most entries the queue holds (MPD's `max_playlist_length`, 16,384 by default); stored
    /// playlists are held to it too.
    public var maxPlaylistLength = PlayerHost.defaultMaxQueueLength
    public var limits = ServerLimits()

    public init(musicDirectory: URL = SongNaming.defaultMusicDirectory()) {
        self.musicDirectory = musicDirectory
    }

    public init(config: ConfigFile) throws {
        self.init()
        libraryWatch = try LibraryWatchSettings(config: config)
        for entry in config.entries {
            switch entry.key {
            case "port":
                guard let port = Int(entry.value), (0...65535).contains(port) else {
                    throw config.error(entry, "port must be a number from 0 to 65535")
                }
                self.port = port
            case "bind_to_address":
                guard !entry.value.isEmpty else { throw config.error(entry, "bind_to_address needs an address") }
                bindAddress = entry.value
            case "password":
                guard !entry.value.isEmpty else { throw config.error(entry, "password must not be empty") }
                password = entry.value
            case "music_directory":
                musicDirectory = URL(fileURLWithPath: (entry.value as NSString).expandingTildeInPath)
            case "state_file":
                let path = (entry.value as NSString).expandingTildeInPath
                if ["none", "no", "off", ""].contains(entry.value.lowercased()) {
                    keepsState = false
                } else if path.hasPrefix("/") {
                    stateFilePath = path
                } else {
                    throw config.error(entry, "state_file must be an absolute path, or none")
                }
            case "restore_paused":
                guard let value = ["yes": true, "no": false, "true": true, "false": false, "on": true, "off": false,
                                   "1": true, "0": false][entry.value.lowercased()] else {
                    throw config.error(entry, "restore_paused must be yes or no")
                }
                restorePaused = value
            case "max_playlist_length":
                guard let length = Int(entry.value), (1...Int(Int32.max)).contains(length) else {
                    throw config.error(entry, "max_playlist_length must be a whole number of songs, at least 1")
                }
                maxPlaylistLength = length
            case "request_time_budget":
                guard let seconds = Double(entry.value), seconds.isFinite, seconds >= 0.001, seconds <= 86_400 else {
                    throw config.error(entry, "request_time_budget must be a number of seconds from 0.001 to 86400")
                }
                limits.requestBudget = .milliseconds(Int64((seconds * 1000).rounded()))
            case "max_command_list_size":
                limits.maxCommandListBytes = try Self.kibibytes(entry, in: config)
            case "max_output_buffer_size":
                limits.maxOutputBytes = try Self.kibibytes(entry, in: config)
            default:
                continue
            }
        }
    }

    /// A size in KiB, as MPD reads its buffer sizes: from 1 KiB to 1 GiB.
    private static func kibibytes(_ entry: ConfigFile.Entry, in config: ConfigFile) throws -> Int {
        guard let value = Int(entry.value), (1...1024 * 1024).contains(value) else {
            throw config.error(entry, "\(entry.key) must be a size in KiB from 1 to 1048576")
        }
        return value * 1024
    }

    /// The state file of a host of `library`, or nil when it keeps none.
    public func stateFile(library: LibraryFolder) -> String? {
        guard keepsState else { return nil }
        return stateFilePath ?? library.url.appendingPathComponent("host.state").path
    }

    /// Loopback needs no password; any other address does, so the music is never open to a network.
    public func validate() throws {
        let loopback = ["127.0.0.1", "::1", "localhost"].contains(bindAddress) || bindAddress.hasPrefix("127.")
        if !loopback, password == nil {
            throw HostingError.refusedAddress("refusing to listen on \(bindAddress) without a password: set 'password = …' in the config")
        }
    }
}
