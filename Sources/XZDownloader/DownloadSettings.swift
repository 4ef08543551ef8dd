import Foundation
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
    public var userAgent = "xzmusic/\(XZMusicVersion.string) (\(XZMusicVersion.homepage))"
    /// First backoff step in seconds; each retry doubles it, up to `maxBackoff`, with jitter.
    public var initialBackoff: Double = 0.5
    public var maxBackoff: Double = 30
    /// A Retry-After longer than this is cut to it, so one answer cannot stall a task for hours.
    public var maxRetryAfter: Double = 300
    /// Minimum seconds between two progress events (and progress writes) of one task.
    public var progressInterval: Double = 0.25

    public init() {}

    /// `$XDG_CONFIG_HOME/xzmusic/config`, else `~/.config/xzmusic/config`.
    public static func configFile(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("xzmusic/config")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/xzmusic/config")
    }

    /// The defaults with the config file's values applied; a missing file is no error.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> DownloadSettings {
        let url = configFile(environment: environment)
        guard let data = FileManager.default.contents(atPath: url.path) else { return DownloadSettings() }
        return try parse(String(decoding: data, as: UTF8.self), source: url.path)
    }

    /// Lines `key = value`; `#` starts a comment line. Keys other layers own are left alone, so one
    /// config file serves the whole program; a bad value of a download key is an error with its line.
    public static func parse(_ text: String, source: String = "config", base: DownloadSettings = DownloadSettings()) throws -> DownloadSettings {
        var settings = base
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            func fail(_ why: String) -> DownloadError {
                DownloadError(.io, "\(source) line \(index + 1): \(why)")
            }
            guard let equals = line.firstIndex(of: "=") else { throw fail("expected key = value") }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            switch key {
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
            default:
                continue
            }
        }
        return settings
    }
}
