import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The program's config file, `$XDG_CONFIG_HOME/xzmusic/config` (else `~/.config/xzmusic/config`):
/// one `key = value` a line, `#` starts a comment line, values may be quoted. MPD's blocks
/// (`audio_output { … }`) hold settings written as MPD writes them, `key "value"`, or as `key = value`.
/// Its keys are the table of
/// `ConfigKeys.swift`; each reader asks for its own (`config.yesNo(.autoUpdate)`) and gets the value in
/// the key's domain, or an error naming the file, the line and the key.
package struct ConfigFile: Sendable, Equatable {
    package struct Entry: Sendable, Equatable {
        package var key: String
        package var value: String
        /// 1-based, for error messages.
        package var line: Int

        package init(key: String, value: String, line: Int) {
            self.key = key
            self.value = value
            self.line = line
        }
    }

    /// A `NAME { … }` block: one `audio_output`, with its own settings.
    package struct Block: Sendable, Equatable {
        package var name: String
        package var entries: [Entry]
        /// The line of `NAME {`.
        package var line: Int

        package init(name: String, entries: [Entry], line: Int) {
            self.name = name
            self.entries = entries
            self.line = line
        }

        /// The setting `key` of the block (the last, when set twice).
        package func value(_ key: String) -> String? {
            entries.last { $0.key == key }?.value
        }
    }

    package let source: String
    package let entries: [Entry]
    package let blocks: [Block]

    /// A config file is a few hundred bytes; a larger one than this is refused rather than read.
    package static let sizeLimit = 1 << 20

    package static func location(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return URL(fileURLWithPath: config, isDirectory: true).appendingPathComponent("xzmusic/config", isDirectory: false)
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".config/xzmusic/config", isDirectory: false)
    }

    /// The process's config file, read at the first call and kept: every reader of one process sees the
    /// same file, read once (as MPD reads its own at start). A file that could not be read stays an error.
    package static func load() throws(SystemError) -> ConfigFile {
        try processFile.get()
    }

    private static let processFile = Result { () throws(SystemError) in
        try load(environment: ProcessEnvironment.variables("XDG_CONFIG_HOME", "HOME"))
    }

    /// The config file of `environment`, read now; a missing file has no entries.
    package static func load(environment: [String: String]) throws(SystemError) -> ConfigFile {
        let path = location(environment: environment).path
        let bytes: [UInt8]?
        do {
            bytes = try RegularFile.readWhole(path, limit: sizeLimit)
        } catch where error.code == ENOENT {
            return ConfigFile(source: path, entries: [])
        } catch where error == .cannotOpen {
            throw .config("cannot read the config file \(path): \(String(cString: strerror(error.code)))")
        } catch {
            throw .config("the config file \(path) is not a regular file")
        }
        guard let bytes else { throw .config("the config file \(path) is larger than \(sizeLimit / 1024) KiB") }
        return try ConfigFile(parsing: String(decoding: bytes, as: UTF8.self), source: path)
    }

    package init(source: String, entries: [Entry], blocks: [Block] = []) {
        self.source = source
        self.entries = entries
        self.blocks = blocks
    }

    /// Blocks the file may hold; any other `NAME {` is an error naming its line.
    package static let blockNames: Set<String> = ["audio_output"]
    /// Blocks of one file; more is taken for a mistake rather than read.
    package static let blockLimit = 64

    package init(parsing text: String, source: String = "config") throws(SystemError) {
        var entries: [Entry] = []
        var blocks: [Block] = []
        var open: Block?
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimming(newlines: true)
            if line.isEmpty || line.hasPrefix("#") { continue }
            let at = "\(source) line \(index + 1)"
            if line == "}" {
                guard let block = open else { throw .config("\(at): \"}\" closes no block") }
                blocks.append(block)
                open = nil
                continue
            }
            if line.hasSuffix("{") {
                let name = line.dropLast().trimming(newlines: false).lowercased()
                guard open == nil else { throw .config("\(at): a block cannot hold another block") }
                guard Self.blockNames.contains(name) else {
                    throw .config("\(at): unknown block \(String(reflecting: String(name.prefix(60)))); blocks: \(Self.blockNames.sorted().joined(separator: ", "))")
                }
                guard blocks.count < Self.blockLimit else { throw .config("\(at): more than \(Self.blockLimit) blocks") }
                open = Block(name: name, entries: [], line: index + 1)
                continue
            }
            let entry: Entry
            if let equals = line.firstIndex(of: "=") {
                entry = Entry(key: line[..<equals].trimming(newlines: false).lowercased(),
                              value: Self.unquoted(line[line.index(after: equals)...].trimming(newlines: false)), line: index + 1)
            } else if open != nil, let space = line.firstIndex(where: { $0 == " " || $0 == "\t" }) {
                // MPD's own spelling inside a block: `name "value"`.
                entry = Entry(key: line[..<space].lowercased(),
                              value: Self.unquoted(line[space...].trimming(newlines: false)), line: index + 1)
            } else {
                throw .config("\(at): expected key = value")
            }
            if open != nil { open!.entries.append(entry) } else { entries.append(entry) }
        }
        if let open { throw .config("\(source) line \(open.line): the \(open.name) block is not closed with \"}\"") }
        self.source = source
        self.entries = entries
        self.blocks = blocks
    }

    private static func unquoted(_ text: Substring) -> String {
        if text.count >= 2, let first = text.first, first == "\"" || first == "'", text.last == first {
            return String(text.dropFirst().dropLast())
        }
        return String(text)
    }

    /// The blocks named `name` (`audio_output`), in the file's order.
    package func blocks(named name: String) -> [Block] {
        blocks.filter { $0.name == name }
    }

    /// An error naming the file and line of a block's setting.
    package func error(in block: Block, _ entry: Entry?, _ why: String) -> SystemError {
        .config("\(source) line \(entry?.line ?? block.line): \(block.name): \(why)")
    }

    /// An error naming the file and line of `entry`.
    package func error(_ entry: Entry, _ why: String) -> SystemError {
        .config("\(source) line \(entry.line): \(why)")
    }
}

extension Substring {
    /// Without the white space at either end, as Foundation's `trimmingCharacters(in:)` with
    /// `.whitespacesAndNewlines` (`newlines`) or `.whitespaces`, the same scalars, without the bridging
    /// through NSString that cost every command as it read the config file.
    func trimming(newlines: Bool) -> Substring {
        func trims(_ scalar: Unicode.Scalar) -> Bool {
            guard scalar.properties.isWhitespace else { return false }
            if newlines { return true }
            switch scalar.value {
            case 0x0A ... 0x0D, 0x85, 0x2028, 0x2029: return false
            default: return true
            }
        }
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !trims($0) }), let last = scalars.lastIndex(where: { !trims($0) }) else {
            return ""
        }
        return Substring(scalars[first ... last])
    }
}

// MARK: - Values, by key

extension ConfigFile {
    /// The line that sets `key`: the last, when the file sets it twice.
    package func entry(_ key: ConfigKey) -> Entry? {
        entries.last { $0.key == key.name }
    }

    /// `key`'s value, nil when the file does not set it. A value outside the key's domain is an error
    /// naming the file, the line and the key.
    package func value(_ key: ConfigKey) throws(SystemError) -> ConfigValue? {
        assert(ConfigKey.named(key.name) == key, "\(key.name) is not in ConfigKey.all")
        guard let entry = entry(key) else { return nil }
        guard let value = key.parse(entry.value) else { throw error(entry, key.refusal(of: entry.value)) }
        return value
    }

    package func yesNo(_ key: ConfigKey) throws(SystemError) -> Bool? {
        switch try value(key) {
        case nil: return nil
        case .yesNo(let value): return value
        default: preconditionFailure("\(key.name) is no yes/no key")
        }
    }

    package func wholeNumber(_ key: ConfigKey) throws(SystemError) -> Int? {
        switch try value(key) {
        case nil: return nil
        case .wholeNumber(let value): return value
        default: preconditionFailure("\(key.name) is no whole-number key")
        }
    }

    package func number(_ key: ConfigKey) throws(SystemError) -> Double? {
        switch try value(key) {
        case nil: return nil
        case .number(let value): return value
        default: preconditionFailure("\(key.name) is no number key")
        }
    }

    /// A word, URL, text, secret or path key's value (a path with `~` expanded).
    package func text(_ key: ConfigKey) throws(SystemError) -> String? {
        switch try value(key) {
        case nil: return nil
        case .text(let value): return value
        default: preconditionFailure("\(key.name) is no text key, or takes none")
        }
    }
}

// MARK: - Warnings

extension ConfigFile {
    /// One line for each line of the file that sets nothing: a key the table does not know (with the
    /// closest known key), a key of MPD's that XZMusic does not read, and a key set twice, whose earlier
    /// line is ignored. MPD stops at such lines; these only warn.
    package var warnings: [String] {
        var warnings: [String] = []
        var firstLine: [String: Int] = [:]
        for entry in entries {
            let at = "\(source) line \(entry.line)"
            // Made only for a line that warns: String(reflecting:) is dear at every start.
            var quoted: String { String(reflecting: entry.key.count > 60 ? String(entry.key.prefix(60)) + "…" : entry.key) }
            if ConfigKey.named(entry.key) != nil {
                if let first = firstLine[entry.key] {
                    warnings.append("\(at): \(quoted) is set again (first on line \(first)); this line counts")
                } else {
                    firstLine[entry.key] = entry.line
                }
            } else if let known = ConfigKey.mpdOnly[entry.key] {
                warnings.append(known.map { "\(at): \(quoted) is MPD's name; XZMusic's key is \"\($0)\"" }
                    ?? "\(at): \(quoted) is an MPD setting XZMusic does not use; ignored")
            } else if let suggestion = Self.closest(to: entry.key, among: ConfigKey.all.map(\.name)) {
                warnings.append("\(at): unknown key \(quoted); did you mean \"\(suggestion)\"?")
            } else {
                warnings.append("\(at): unknown key \(quoted); ignored ('xzmusic config' lists the keys)")
            }
        }
        return warnings
    }

    /// One line for each key of `block` that sets nothing: one of MPD's that XZMusic does not read
    /// (`mpdOnly`), or one not in `known` (with the closest known key), as the file's own keys are told.
    package func warnings(in block: Block, known: [String], mpdOnly: Set<String>) -> [String] {
        block.entries.compactMap { entry in
            guard !known.contains(entry.key) else { return nil }
            let at = "\(source) line \(entry.line): \(block.name)"
            let quoted = String(reflecting: entry.key.count > 60 ? String(entry.key.prefix(60)) + "…" : entry.key)
            if mpdOnly.contains(entry.key) { return "\(at): \(quoted) is an MPD setting XZMusic does not use; ignored" }
            if let suggestion = Self.closest(to: entry.key, among: known) {
                return "\(at): unknown key \(quoted); did you mean \"\(suggestion)\"?"
            }
            return "\(at): unknown key \(quoted); ignored (keys: \(known.joined(separator: ", ")))"
        }
    }

    /// The name of `names` nearest to a misspelt `name` (edit distance), when near enough to be what was
    /// meant: at most half the longer name's letters differ.
    static func closest(to name: String, among names: [String]) -> String? {
        let typed = Array(name.unicodeScalars)
        // Nothing longer than twice the longest key is a misspelling of one, and costs no comparison.
        guard typed.count <= 60 else { return nil }
        var best: (name: String, distance: Int)?
        for candidate in names {
            let known = Array(candidate.unicodeScalars)
            let distance = editDistance(typed, known)
            if distance * 2 <= max(typed.count, known.count), distance < best?.distance ?? .max {
                best = (candidate, distance)
            }
        }
        return best?.name
    }

    /// Levenshtein distance: insertions, deletions and substitutions.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        var previous = Array(0...b.count)
        for (i, x) in a.enumerated() {
            var current = [i + 1] + Array(repeating: 0, count: b.count)
            for (j, y) in b.enumerated() {
                current[j + 1] = x == y ? previous[j] : 1 + min(previous[j], previous[j + 1], current[j])
            }
            previous = current
        }
        return previous[b.count]
    }
}

// MARK: - Effective values

/// A key's effective value and where it came from, as `xzmusic config` shows it.
package struct ConfigSetting: Sendable, Equatable {
    package enum Source: Sendable, Equatable {
        case file(line: Int)
        case environment(String)
        case defaultValue
    }

    package let key: ConfigKey
    /// The value as written (nil: not set); a secret key's is hidden.
    package let text: String?
    package let source: Source
    /// Why the file's value is not one the key takes (`port must be …`).
    package let problem: String?
}

extension ConfigFile {
    /// Every key of the table: its value in this file, else from the environment, else its default.
    package func settings(environment: [String: String] = ProcessInfo.processInfo.environment) -> [ConfigSetting] {
        ConfigKey.all.map { key in
            if let entry = entry(key) {
                let valid = key.parse(entry.value, environment: environment) != nil
                let shown = key.kind == .secret && valid ? "********" : entry.value
                return ConfigSetting(key: key, text: shown, source: .file(line: entry.line),
                                     problem: valid ? nil : key.refusal(of: entry.value))
            }
            switch key.defaultValue {
            case .value(let text):
                return ConfigSetting(key: key, text: text, source: .defaultValue, problem: nil)
            case .environment(let variable, let otherwise):
                if let text = environment[variable], !text.isEmpty, key.parse(text, environment: environment) != nil {
                    return ConfigSetting(key: key, text: text, source: .environment(variable), problem: nil)
                }
                return ConfigSetting(key: key, text: otherwise, source: .defaultValue, problem: nil)
            case .unset:
                return ConfigSetting(key: key, text: nil, source: .defaultValue, problem: nil)
            }
        }
    }
}
