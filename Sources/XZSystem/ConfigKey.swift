import Foundation

/// One key of the config file: its name, the values it takes, its default, what it sets and which
/// settings type reads it. Every key is declared once, in `ConfigKeys.swift`; readers ask the file for a
/// key's value (`config.wholeNumber(.port)`) and get it parsed into the key's domain, or an error line.
package struct ConfigKey: Sendable, Hashable, CustomStringConvertible {
    /// The values a key takes; any other is a one-line error naming the file, the line and the key.
    package enum Kind: Sendable, Hashable {
        /// yes or no (see `ConfigKey.yesNo`).
        case yesNo
        /// A whole number in the range; the unit names what it counts ("KiB", "songs").
        case wholeNumber(ClosedRange<Int>, unit: String?)
        /// A number in the range, decimals allowed.
        case number(ClosedRange<Double>, unit: String)
        /// One of these words, as written.
        case choice([String])
        /// An http or https URL with a host.
        case httpURL
        /// Any text on the line; an empty value only where `allowsEmpty`.
        case text(allowsEmpty: Bool)
        /// Text that is never shown (a password); not empty.
        case secret
        /// An absolute path, `~` being the home folder; with `orNone`, also `none` (or `no`, `off`, empty)
        /// for no file at all.
        case path(orNone: Bool)
    }

    /// What a key is when the file does not set it.
    package enum Default: Sendable, Hashable {
        /// This value, written as the file would write it.
        case value(String)
        /// The environment variable's value when it is set and one the key takes, else this value.
        case environment(String, otherwise: String)
        /// Nothing; the text says what that means.
        case unset(String)
    }

    /// The settings type that reads a key (and, in the comment, its layer).
    package enum Reader: String, Sendable, Hashable, CaseIterable {
        /// The host's listener, music folder, state file and limits: `HostSettings`.
        case host = "HostSettings"
        /// The music folder's watch (XZHostCore).
        case libraryWatch = "LibraryWatchSettings"
        /// Loudness matching (XZPlaybackEngine).
        case replayGain = "ReplayGainSettings"
        /// Crossfade's additions to MPD's (XZPlaybackEngine).
        case crossfade = "CrossfadeSettings"
        /// Downloads, streams, lyrics lookups and open catalogues (XZDownloader).
        case downloads = "DownloadSettings"
    }

    package let name: String
    package let kind: Kind
    package let defaultValue: Default
    /// One line: what the key sets.
    package let summary: String
    package let reader: Reader

    package init(_ name: String, _ kind: Kind, _ defaultValue: Default, _ summary: String, readBy reader: Reader) {
        self.name = name
        self.kind = kind
        self.defaultValue = defaultValue
        self.summary = summary
        self.reader = reader
    }

    package var description: String { name }

    /// The table's key called `name`, nil when there is none.
    package static func named(_ name: String) -> ConfigKey? { byName[name] }

    private static let byName = Dictionary(all.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })

    /// The config's one yes/no parser, for every yes/no key. MPD's words (`yes`/`true`/`1`, `no`/`false`/`0`,
    /// in any case, as its ParseBool) and `on`/`off`, which XZMusic has always taken.
    package static func yesNo(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "yes", "true", "1", "on": return true
        case "no", "false", "0", "off": return false
        default: return nil
        }
    }

    /// `text` as this key takes it, nil when the key does not take it. `environment` gives `~` its home.
    package func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigValue? {
        kind.parse(text, environment: environment)
    }

    /// What the key takes, to end "KEY must be …".
    package var expectation: String { kind.expectation }

    /// The line's complaint about a value the key does not take: `port must be …, not "x"`. The value is
    /// quoted with its control characters escaped, so a hostile file cannot write to the terminal.
    package func refusal(of text: String) -> String { Self.refusal(name, kind, text) }

    /// The complaint about `text` for a key `name` of the domain `kind`, a block's key as the file's.
    package static func refusal(_ name: String, _ kind: Kind, _ text: String) -> String {
        let shown = text.count > 60 ? String(text.prefix(60)) + "…" : text
        return "\(name) must be \(kind.expectation), not \(String(reflecting: shown))"
    }

    /// A number as a person writes it: `30`, not `30.0`.
    static func plain(_ number: Double) -> String {
        number == number.rounded() && abs(number) < 1e15 ? String(Int(number)) : String(number)
    }
}

/// The one parser of config values, for the file's keys and for the keys of its blocks alike.
extension ConfigKey.Kind {
    /// `text` in this domain, nil when it is outside. `environment` gives `~` its home.
    package func parse(_ text: String, environment: [String: String] = ProcessInfo.processInfo.environment) -> ConfigValue? {
        switch self {
        case .yesNo:
            return ConfigKey.yesNo(text).map(ConfigValue.yesNo)
        case .wholeNumber(let range, _):
            guard let number = Int(text), range.contains(number) else { return nil }
            return .wholeNumber(number)
        case .number(let range, _):
            // `range` is finite, so NaN and infinity are outside it.
            guard let number = Double(text), range.contains(number) else { return nil }
            return .number(number)
        case .choice(let words):
            return words.contains(text) ? .text(text) : nil
        case .httpURL:
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", url.host != nil else { return nil }
            return .text(text)
        case .text(let allowsEmpty):
            return text.isEmpty && !allowsEmpty ? nil : .text(text)
        case .secret:
            return text.isEmpty ? nil : .text(text)
        case .path(let orNone):
            if orNone, ["none", "no", "off", ""].contains(text.lowercased()) { return .noPath }
            let path = HomePath.expand(text, environment: environment)
            return path.hasPrefix("/") ? .text(path) : nil
        }
    }

    /// What the domain takes, to end "KEY must be …".
    package var expectation: String {
        switch self {
        case .yesNo:
            return "yes or no"
        case .wholeNumber(let range, let unit):
            return "a whole number\(unit.map { " of \($0)" } ?? "") from \(range.lowerBound) to \(range.upperBound)"
        case .number(let range, let unit):
            return "a number of \(unit) from \(ConfigKey.plain(range.lowerBound)) to \(ConfigKey.plain(range.upperBound))"
        case .choice(let words):
            return words.dropLast().joined(separator: ", ") + (words.count > 1 ? " or " : "") + (words.last ?? "")
        case .httpURL:
            return "an http or https URL"
        case .text:
            return "some text"
        case .secret:
            return "some text, not empty"
        case .path(let orNone):
            return orNone ? "an absolute path, or none" : "an absolute path"
        }
    }
}

/// A config value parsed into its key's domain.
package enum ConfigValue: Sendable, Equatable {
    case yesNo(Bool)
    case wholeNumber(Int)
    case number(Double)
    /// A word, a URL, text or an absolute path (`~` expanded).
    case text(String)
    /// `none` for a path key that takes it: no file.
    case noPath
}
