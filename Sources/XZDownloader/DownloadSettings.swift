import Foundation
import XZSystem
import XZText

/// How downloads behave. The command layer starts from `load()` (the config file) and lets flags override.
package struct DownloadSettings: Sendable, Equatable {
    /// Tasks transferring at once.
    package var concurrency: Int = 3
    /// Further attempts after a retryable failure (connection error, timeout, 5xx, 429).
    package var retries: Int = 5
    /// Seconds without a byte from the server (or without a connection) before an attempt is abandoned.
    package var idleTimeout: Double = 30
    /// An LRCLIB-compatible lyrics server.
    package var lyricsServer: String = "https://lrclib.net"
    /// Open catalogues `catalogue search` asks (see CatalogueSources.swift).
    package var archiveURL = "https://archive.org"
    package var jamendoURL = "https://api.jamendo.com"
    /// Jamendo's API wants an application's client id; none is built in.
    package var jamendoClientID = ""
    package var ccmixterURL = "https://ccmixter.org"
    /// Lookups `lyrics fetch` makes at once.
    package var lyricsConcurrency: Int = 2
    /// Days a lyrics lookup that found nothing is not asked again.
    package var lyricsMissDays: Double = 30
    /// Whether fetched lyrics are also written as `.lrc` beside the song's file.
    package var lyricsSidecar = false
    /// How a server's operator may reach the user (an email or URL), sent in the User-Agent when set.
    package var userAgentContact: String?
    /// The program and its version, and the contact when there is one.
    package var userAgent: String {
        "xzmusic/\(XZMusicVersion.string)" + (userAgentContact.map { " (\($0))" } ?? "")
    }
    /// First backoff step in seconds; each retry doubles it, up to `maxBackoff`, with jitter.
    package var initialBackoff: Double = 0.5
    package var maxBackoff: Double = 30
    /// A Retry-After longer than this is cut to it, so one answer cannot stall a task for hours.
    package var maxRetryAfter: Double = 300
    /// Minimum seconds between two progress events (and progress writes) of one task.
    package var progressInterval: Double = 0.25
    /// Whether a catalogue song played online becomes its offline copy.
    package var onlineCache: OnlineCache = .keep
    /// Seconds of audio a stream buffers before it starts (and after it caught up with its download).
    package var prebufferSeconds: Double = 1
    /// A transfer slower than `minRate` bytes a second, averaged over `minRateWindow` seconds, is abandoned
    /// (and retried like a timeout): a server trickling a byte every few seconds never trips the idle
    /// timeout. 1 KiB/s is an eighth of the lowest bitrate radio uses (32 kbit/s); the window is long
    /// enough to ride out a stall of a real network. Time a stream is held back by its player is not counted.
    package var minRate: Int64 = 1024
    package var minRateWindow: Double = 30
    /// A download whose size neither the catalogue nor the server says stops here.
    package var maxDownloadSize: Int64 = 2 << 30
    /// Bytes of a stream of no announced length (internet radio) held at once, in memory: what is played
    /// is dropped, and the fetch waits while the player is this far behind. 4 MiB is over a minute and
    /// a half of 320 kbit/s audio.
    package var streamBuffer: Int = 4 << 20

    package init() {}

    /// The defaults with the process's config file applied (read once per process); a missing file is no error.
    package static func load() throws(SystemError) -> DownloadSettings {
        try DownloadSettings(config: ConfigFile.load())
    }

    /// The defaults with the config file of `environment` applied, read now.
    package static func load(environment: [String: String]) throws(SystemError) -> DownloadSettings {
        try DownloadSettings(config: ConfigFile.load(environment: environment))
    }

    /// Reads the download keys; a bad value is an error naming its line.
    package static func parse(_ text: String, source: String = "config", base: DownloadSettings = DownloadSettings()) throws(SystemError) -> DownloadSettings {
        try DownloadSettings(config: ConfigFile(parsing: text, source: source), base: base)
    }

    package init(config: ConfigFile, base: DownloadSettings = DownloadSettings()) throws(SystemError) {
        var settings = base
        if let n = try config.wholeNumber(.concurrency) { settings.concurrency = n }
        if let n = try config.wholeNumber(.retries) { settings.retries = n }
        if let seconds = try config.number(.timeout) { settings.idleTimeout = seconds }
        if let n = try config.wholeNumber(.minRate) { settings.minRate = Int64(n) }
        if let seconds = try config.number(.minRateWindow) { settings.minRateWindow = seconds }
        if let n = try config.wholeNumber(.maxDownloadSize) { settings.maxDownloadSize = Int64(n) }
        if let cache = try config.text(.onlineCache) { settings.onlineCache = OnlineCache(rawValue: cache) ?? .keep }
        if let seconds = try config.number(.prebuffer) { settings.prebufferSeconds = seconds }
        if let n = try config.wholeNumber(.streamBuffer) { settings.streamBuffer = n }
        if let url = try config.text(.lyricsServer) { settings.lyricsServer = url }
        if let n = try config.wholeNumber(.lyricsConcurrency) { settings.lyricsConcurrency = n }
        if let days = try config.number(.lyricsMissDays) { settings.lyricsMissDays = days }
        if let sidecar = try config.yesNo(.lyricsSidecar) { settings.lyricsSidecar = sidecar }
        if let url = try config.text(.archiveURL) { settings.archiveURL = url }
        if let url = try config.text(.jamendoURL) { settings.jamendoURL = url }
        if let id = try config.text(.jamendoClientID) { settings.jamendoClientID = id }
        if let url = try config.text(.ccmixterURL) { settings.ccmixterURL = url }
        if let contact = try config.text(.userAgentContact), let entry = config.entry(.userAgentContact) {
            guard contact.utf8.count <= 200, contact.utf8.allSatisfy({ (0x20...0x7E).contains($0) && !"()\\".utf8.contains($0) }) else {
                throw config.error(entry, "user_agent_contact must be at most 200 printable ASCII characters without ( ) or \\, not \(String(reflecting: String(contact.prefix(60))))")
            }
            settings.userAgentContact = contact.isEmpty ? nil : contact
        }
        self = settings
    }
}
