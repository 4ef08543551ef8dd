import Foundation

/// The program's config file, `$XDG_CONFIG_HOME/xzmusic/config` (else `~/.config/xzmusic/config`):
/// one `key = value` a line, `#` starts a comment line, values may be quoted. Each layer reads the keys
/// it owns and leaves the others alone.
public struct ConfigFile: Sendable, Equatable {
    public struct Entry: Sendable, Equatable {
        public var key: String
        public var value: String
        /// 1-based, for error messages.
        public var line: Int
    }

    public let source: String
    public let entries: [Entry]

    public static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config).appendingPathComponent("xzmusic/config")
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent(".config/xzmusic/config")
    }

    /// The config file's entries; a missing file has none.
    public static func load(environment: [String: String] = ProcessInfo.processInfo.environment) throws(SystemError) -> ConfigFile {
        let url = location(environment: environment)
        guard let data = FileManager.default.contents(atPath: url.path) else { return ConfigFile(source: url.path, entries: []) }
        return try ConfigFile(parsing: String(decoding: data, as: UTF8.self), source: url.path)
    }

    public init(source: String, entries: [Entry]) {
        self.source = source
        self.entries = entries
    }

    public init(parsing text: String, source: String = "config") throws(SystemError) {
        var entries: [Entry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespacesAndNewlines)
            if line.isEmpty || line.hasPrefix("#") { continue }
            guard let equals = line.firstIndex(of: "=") else {
                throw .config("\(source) line \(index + 1): expected key = value")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, let first = value.first, first == "\"" || first == "'", value.last == first {
                value = String(value.dropFirst().dropLast())
            }
            entries.append(Entry(key: key, value: value, line: index + 1))
        }
        self.source = source
        self.entries = entries
    }

    /// An error naming the file and line of `entry`.
    public func error(_ entry: Entry, _ why: String) -> SystemError {
        .config("\(source) line \(entry.line): \(why)")
    }
}
