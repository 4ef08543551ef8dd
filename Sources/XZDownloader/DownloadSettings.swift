import Foundation
import XZSystem
import XZText

/// How downloads behave. The command layer starts from `load()` (the config file) and lets flags override.
public struct DownloadSettings: Sendable, Equatable {
    /// Tasks transferring at once.
    public var concurrency: Int = 3
    /// Further attempts after a retryable failure (connection error, timeout, 5xx, 429).
    public var retries: Int = 5
    /// Seconds without a byte from the server (or without a connection) before an attempt is abandoned.
    public var idleTimeout: Double = 30
    /// An LRCLIB-compatible lyrics server.
    public var lyricsServer: String = "https://lrclib.net"
    /// Open catalogues `catalogue search` asks (see CatalogueSources.swift).
    public var archiveURL = "https://archive.org"
    public var jamendoURL = "https://api.jamendo.com"
    /// Jamendo's API wants an application's client id; none is built in.
    public var jamendoClientID = ""
    public var ccmixterURL = "https://ccmixter.org"
    /// Lookups `lyrics fetch` makes at once.
    public var lyricsConcurrency: Int = 2
    /// Days a lyrics lookup that found nothing is not asked again.
    public var lyricsMissDays: Double = 30
    /// Whether fetched lyrics are also written as `.lrc` beside the song's file.
    public var lyricsSidecar = false
    public var userAgent = "xzmusic/\(XZMusicVersion.string) (\(XZMusicVersion.homepage))"
    /// First backoff step in seconds; each retry doubles it, up to `maxBackoff`, with jitter.
    public var initialBackoff: Double = 0.5
    public var maxBackoff: Double = 30
    /// A Retry-After longer than this is cut to it, so one answer cannot stall a task for hours.
    public var maxRetryAfter: Double = 300
    /// Minimum seconds between two progress events (and progress writes) of one task.
    public var progressInterval: Double = 0.25
    /// Whether a catalogue song played online becomes its offline copy.
    public var onlineCache: OnlineCache = .keep
    /// Seconds of audio a stream buffers before it starts (and after it caught up with its download).
    public var prebufferSeconds: Double = 1
    /// A transfer slower than `minRate` bytes a second, averaged over `minRateWindow` seconds, is abandoned
    /// (and retried like a timeout): a server trickling a byte every few seconds never trips the idle
    /// timeout. 1 KiB/s is an eighth of the lowest bitrate radio uses (32 kbit/s); the window is long
    /// enough to ride out a stall of a real network. Time a stream is held back by its player is not counted.
    public var minRate: Int64 = 1024
    public var minRateWindow: Double = 30
    /// A download whose size neither the catalogue nor the server says stops here.
    public var maxDownloadSize: Int64 = 2 << 30
    /// Bytes of a stream of no announced length (internet radio) held at once, in memory: what is played
    /// is dropped, and the fetch waits while the player is this far behind. 4 MiB is over a minute and
    /// a half of 320 kbit/s audio.
    public var streamBuffer: Int = 4 << 20

    public init() {}

    /// The defaults with the config file's values applied; a missing file is no error.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SystemError) -> DownloadSettings {
        try DownloadSettings(config: ConfigFile.load(environment: environment))
    }

    /// Reads the download keys; a bad value is an error naming its line.
    public static func parse(_ text: String, source: String = "config", base: DownloadSettings = DownloadSettings()) throws(SystemError) -> DownloadSettings {
        try DownloadSettings(config: ConfigFile(parsing: text, source: source), base: base)
    }

    public init(config: ConfigFile, base: DownloadSettings = DownloadSettings()) throws(SystemError) {
        var settings = base
        for entry in config.entries {
            let value = entry.value
            func fail(_ why: String) -> SystemError { config.error(entry, why) }
            switch entry.key {
            case "concurrency":
                guard let n = Int(value), (1 ... 32).contains(n) else { throw fail("concurrency must be a whole number from 1 to 32") }
                settings.concurrency = n
            case "retries":
                guard let n = Int(value), (0 ... 100).contains(n) else { throw fail("retries must be a whole number from 0 to 100") }
                settings.retries = n
            case "timeout":
                guard let seconds = Double(value), seconds > 0, seconds <= 3600 else { throw fail("timeout must be seconds, more than 0") }
                settings.idleTimeout = seconds
            case "lyrics_server":
                guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                      scheme == "http" || scheme == "https", url.host != nil else {
                    throw fail("lyrics_server must be an http or https URL")
                }
                settings.lyricsServer = value
            case "archive_url", "jamendo_url", "ccmixter_url":
                guard let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                      scheme == "http" || scheme == "https", url.host != nil else {
                    throw fail("\(entry.key) must be an http or https URL")
                }
                switch entry.key {
                case "archive_url": settings.archiveURL = value
                case "jamendo_url": settings.jamendoURL = value
                default: settings.ccmixterURL = value
                }
            case "jamendo_client_id":
                settings.jamendoClientID = value
            case "lyrics_concurrency":
                guard let n = Int(value), (1 ... 8).contains(n) else { throw fail("lyrics_concurrency must be a whole number from 1 to 8") }
                settings.lyricsConcurrency = n
            case "lyrics_miss_days":
                guard let days = Double(value), days >= 0, days <= 3650 else { throw fail("lyrics_miss_days must be days, from 0 to 3650") }
                settings.lyricsMissDays = days
            case "lyrics_sidecar":
                switch value.lowercased() {
                case "yes", "true", "on", "1": settings.lyricsSidecar = true
                case "no", "false", "off", "0": settings.lyricsSidecar = false
                default: throw fail("lyrics_sidecar must be yes or no")
                }
            case "online_cache":
                guard let cache = OnlineCache(rawValue: value) else { throw fail("online_cache must be keep or none") }
                settings.onlineCache = cache
            case "min_rate":
                guard let n = Int64(value), (0 ... 1 << 30).contains(n) else { throw fail("min_rate must be bytes a second, from 0 (off) to 1073741824") }
                settings.minRate = n
            case "min_rate_window":
                guard let seconds = Double(value), seconds >= 1, seconds <= 3600 else { throw fail("min_rate_window must be seconds, from 1 to 3600") }
                settings.minRateWindow = seconds
            case "max_download_size":
                guard let n = Int64(value), n >= 1 << 20 else { throw fail("max_download_size must be bytes, at least 1048576") }
                settings.maxDownloadSize = n
            case "stream_buffer":
                guard let n = Int(value), (64 << 10 ... 1 << 30).contains(n) else {
                    throw fail("stream_buffer must be bytes, from 65536 to 1073741824")
                }
                settings.streamBuffer = n
            case "prebuffer":
                guard let seconds = Double(value), seconds >= 0, seconds <= 60 else {
                    throw fail("prebuffer must be seconds of audio, from 0 to 60")
                }
                settings.prebufferSeconds = seconds
            default:
                continue
            }
        }
        self = settings
    }
}
