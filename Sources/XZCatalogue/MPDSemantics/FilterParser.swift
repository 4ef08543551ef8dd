import Foundation

/// Parses filters exactly as MPD 0.23's SongFilter does (src/song/Filter.cxx), with its error messages.
package enum FilterParser {
    /// Parentheses an expression may nest. MPD's parser recurses without a bound (50,000 `(` overflow a
    /// thread's stack); clients nest a few levels (`((a) AND (!(b)))` is 3). The SQL a filter becomes is
    /// the tighter bound: SQLite's parser stack (100 entries) takes about 30 levels alternating `AND`
    /// and `!`, so 20 leaves a margin.
    package static let maxDepth = 20
    /// Conditions (tests of a song in expressions, and old-style pairs) one request may hold: SQLite's
    /// expression depth (1,000) and bound values (32,766) keep far above what this many become.
    package static let maxConditions = 256

    /// Arguments of find/search/count/list: expressions in parentheses and old-style `TAG VALUE` pairs,
    /// all of which must hold. `foldCase`: `search` (case-insensitive, and old pairs match substrings).
    package static func parse(_ arguments: [String], foldCase: Bool) throws(CatalogueError) -> [SongFilter] {
        guard !arguments.isEmpty else { throw .badFilter("Incorrect number of filter arguments") }
        var filters: [SongFilter] = []
        var rest = arguments[...]
        var conditions = 0
        while let first = rest.first {
            if first.hasPrefix("(") {
                rest = rest.dropFirst()
                var scanner = Scanner(first, conditions: conditions)
                let filter = try scanner.expression(foldCase: foldCase)
                guard scanner.atEnd else { throw .badFilter("Unparsed garbage after expression") }
                conditions = scanner.conditions
                filters.append(filter)
                continue
            }
            guard rest.count >= 2 else { throw .badFilter("Incorrect number of filter arguments") }
            conditions += 1
            guard conditions <= maxConditions else { throw Scanner.tooManyConditions }
            let name = rest.removeFirst(), value = rest.removeFirst()
            filters.append(try pair(name, value, foldCase: foldCase))
        }
        return filters
    }

    /// One expression, e.g. `(Artist == 'x')`, for the catalogue's own `find`.
    package static func parseExpression(_ text: String, foldCase: Bool = false) throws(CatalogueError) -> SongFilter {
        guard text.hasPrefix("(") else { throw .badFilter("'(' expected") }
        var scanner = Scanner(text)
        let filter = try scanner.expression(foldCase: foldCase)
        guard scanner.atEnd else { throw .badFilter("Unparsed garbage after expression") }
        return filter
    }

    enum FilterType: Equatable {
        case tag(SongTag), any, file, base, modifiedSince, addedSince, audioFormat
    }

    static func filterType(_ name: String) -> FilterType? {
        let lower = name.lowercased()
        if lower == "file" || lower == "filename" { return .file }
        if lower == "any" { return .any }
        if name == "base" { return .base }
        if name == "modified-since" { return .modifiedSince }
        if name == "added-since" { return .addedSince }
        if lower == "audioformat" { return .audioFormat }
        return SongTag(name).map(FilterType.tag)
    }

    static func pair(_ name: String, _ value: String, foldCase: Bool) throws(CatalogueError) -> SongFilter {
        guard let type = filterType(name) else { throw .badFilter("Unknown filter type") }
        // MPD 0.20 compatibility: case folding also means substring matching.
        let match = StringMatch(foldCase ? .contains : .equal, value, foldCase: foldCase)
        switch type {
        case .base:
            guard isSafeLocalURI(value) else { throw .badFilter("Bad URI") }
            return .base(value)
        case .modifiedSince: return .modifiedSince(try timestamp(value))
        case .addedSince: return .addedSince(try timestamp(value))
        case .file: return .uri(match)
        case .any: return .tag(nil, match)
        case .tag(let tag): return .tag(tag, match)
        case .audioFormat: return .audioFormat(try audioFormat(value, mask: false))
        }
    }

    /// MPD's uri_safe_local: relative, no `.`/`..` segments, no empty segment.
    package static func isSafeLocalURI(_ uri: String) -> Bool {
        if uri.isEmpty { return true }
        if uri.hasPrefix("/") { return false }
        return uri.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { !$0.isEmpty && $0 != "." && $0 != ".." }
    }

    /// ISO 8601 (a date, or a date and time in UTC or with an offset), else a whole number of Unix seconds.
    static func timestamp(_ text: String) throws(CatalogueError) -> Int64 {
        if let date = iso8601(text) { return Int64(date.timeIntervalSince1970.rounded(.down)) }
        if !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int64(text) { return value }
        throw .badFilter("Failed to parse time stamp")
    }

    private static func iso8601(_ text: String) -> Date? {
        let full = ISO8601DateFormatter()
        if let date = full.date(from: text) { return date }
        for format in ["yyyy-MM-dd'T'HH:mm:ss", "yyyy-MM-dd'T'HH:mm", "yyyy-MM-dd"] {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            if let date = formatter.date(from: text) { return date }
        }
        return nil
    }

    static func audioFormat(_ text: String, mask: Bool) throws(CatalogueError) -> AudioFormatMask {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3 else { throw .badFilter("Failed to parse audio format: \(text)") }
        func number(_ part: String, _ what: String) throws(CatalogueError) -> Int? {
            if mask && part == "*" { return nil }
            guard let value = Int(part), value > 0 else { throw .badFilter("Failed to parse \(what): \(text)") }
            return value
        }
        let rate = try number(parts[0], "sample rate")
        let bits: String? = mask && parts[1] == "*" ? nil : parts[1]
        guard bits == nil || ["8", "16", "24", "32", "f", "dsd"].contains(bits!) else {
            throw .badFilter("Failed to parse sample format: \(text)")
        }
        let channels = try number(parts[2], "channel count")
        return AudioFormatMask(sampleRate: rate, bits: bits, channels: channels)
    }

    /// Reads one parenthesised expression as MPD's SongFilter::ParseExpression does.
    struct Scanner {
        let bytes: [UInt8]
        var position = 0
        /// Expressions open around the current position, and conditions read so far (those of the
        /// request's earlier arguments included).
        var depth = 0
        var conditions: Int

        init(_ text: String, conditions: Int = 0) {
            bytes = Array(text.utf8)
            self.conditions = conditions
        }

        static let tooDeep = CatalogueError.badFilter("Filter nested too deeply (at most \(FilterParser.maxDepth) levels)")
        static let tooManyConditions = CatalogueError.badFilter(
            "Too many filter conditions (at most \(FilterParser.maxConditions))")

        var atEnd: Bool { position >= bytes.count }
        var current: UInt8 { position < bytes.count ? bytes[position] : 0 }
        func peek(_ offset: Int) -> UInt8 { position + offset < bytes.count ? bytes[position + offset] : 0 }

        mutating func stripLeft() {
            while position < bytes.count, bytes[position] == 0x20 || (0x09...0x0D).contains(bytes[position]) {
                position += 1
            }
        }

        static func isWordByte(_ c: UInt8) -> Bool {
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F || c == 0x2D
        }

        mutating func word() throws(CatalogueError) -> String {
            let start = position
            while Self.isWordByte(current) { position += 1 }
            guard position > start else { throw .badFilter("Word expected") }
            let text = String(decoding: bytes[start..<position], as: UTF8.self)
            stripLeft()
            return text
        }

        mutating func quoted() throws(CatalogueError) -> String {
            let quote = current
            guard quote == 0x22 || quote == 0x27 else { throw .badFilter("Quoted string expected") }
            position += 1
            var value: [UInt8] = []
            while current != quote {
                // A backslash escapes the next character.
                if current == 0x5C { position += 1 }
                guard !atEnd else { throw .badFilter("Closing quote not found") }
                value.append(current)
                position += 1
                guard value.count < 4096 else { throw .badFilter("Quoted value is too long") }
            }
            position += 1
            stripLeft()
            return String(decoding: value, as: UTF8.self)
        }

        mutating func closing() throws(CatalogueError) {
            guard current == 0x29 else { throw .badFilter("')' expected") }
            position += 1
            stripLeft()
        }

        /// Case-insensitive `prefix` (ending in a space) at the current position.
        mutating func take(_ prefix: String) -> Bool {
            let p = Array(prefix.utf8)
            guard position + p.count <= bytes.count else { return false }
            for (i, c) in p.enumerated() where (bytes[position + i] | 0x20) != (c | 0x20) { return false }
            position += p.count
            stripLeft()
            return true
        }

        mutating func stringMatch(foldCase: Bool) throws(CatalogueError) -> StringMatch {
            if take("contains ") { return StringMatch(.contains, try quoted(), foldCase: foldCase) }
            if take("!contains ") { return StringMatch(.contains, try quoted(), foldCase: foldCase, negated: true) }
            if take("starts_with ") { return StringMatch(.startsWith, try quoted(), foldCase: foldCase) }
            if take("!starts_with ") { return StringMatch(.startsWith, try quoted(), foldCase: foldCase, negated: true) }
            if (current == 0x21 || current == 0x3D) && peek(1) == 0x7E {
                let negated = current == 0x21
                position += 2
                stripLeft()
                let pattern = try quoted()
                _ = try FilterRegex.compiled(pattern, foldCase: foldCase)
                return StringMatch(.regex, pattern, foldCase: foldCase, negated: negated)
            }
            let negated: Bool
            if current == 0x21 && peek(1) == 0x3D {
                negated = true
            } else if current == 0x3D && peek(1) == 0x3D {
                negated = false
            } else {
                throw .badFilter("'==' or '!=' expected")
            }
            position += 2
            stripLeft()
            return StringMatch(.equal, try quoted(), foldCase: foldCase, negated: negated)
        }

        mutating func expression(foldCase: Bool) throws(CatalogueError) -> SongFilter {
            guard current == 0x28 else { throw .badFilter("'(' expected") }
            // Checked before recursing: the nesting a client sends never reaches the thread's stack.
            guard depth < FilterParser.maxDepth else { throw Self.tooDeep }
            depth += 1
            defer { depth -= 1 }
            position += 1
            stripLeft()
            if current == 0x28 {
                let first = try expression(foldCase: foldCase)
                if current == 0x29 {
                    position += 1
                    return first
                }
                guard try word() == "AND" else { throw .badFilter("'AND' expected") }
                var items = [first]
                while true {
                    items.append(try expression(foldCase: foldCase))
                    if current == 0x29 {
                        position += 1
                        return .and(items)
                    }
                    guard try word() == "AND" else { throw .badFilter("'AND' expected") }
                }
            }
            if current == 0x21 {
                position += 1
                stripLeft()
                guard current == 0x28 else { throw .badFilter("'(' expected") }
                let inner = try expression(foldCase: foldCase)
                try closing()
                return .not(inner)
            }
            // A test of a song is a condition; `AND` and `!` around tests are not (the depth bounds them).
            conditions += 1
            guard conditions <= FilterParser.maxConditions else { throw Self.tooManyConditions }
            let name = try word()
            guard let type = FilterParser.filterType(name) else { throw .badFilter("Unknown filter type: \(name)") }
            switch type {
            case .modifiedSince, .addedSince:
                let value = try FilterParser.timestamp(try quoted())
                try closing()
                return type == .modifiedSince ? .modifiedSince(value) : .addedSince(value)
            case .base:
                let value = try quoted()
                try closing()
                return .base(value)
            case .audioFormat:
                let mask: Bool
                if current == 0x3D && peek(1) == 0x3D {
                    mask = false
                } else if current == 0x3D && peek(1) == 0x7E {
                    mask = true
                } else {
                    throw .badFilter("'==' or '=~' expected")
                }
                position += 2
                stripLeft()
                let format = try FilterParser.audioFormat(try quoted(), mask: mask)
                try closing()
                return .audioFormat(format)
            case .file:
                let match = try stringMatch(foldCase: foldCase)
                try closing()
                return .uri(match)
            case .any:
                let match = try stringMatch(foldCase: foldCase)
                try closing()
                return .tag(nil, match)
            case .tag(let tag):
                let match = try stringMatch(foldCase: foldCase)
                try closing()
                return .tag(tag, match)
            }
        }
    }
}
