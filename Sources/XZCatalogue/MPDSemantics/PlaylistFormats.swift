import Foundation
import CXMLReader

/// The playlist file formats MPD's playlist plugins read, each parsed here and nowhere else: what a
/// file in the music folder, a remote list fetched by URL, and `playlist import` of another player's
/// file all go through. Every parser takes bytes already capped by its caller and reads at most
/// `limit` entries.
package enum PlaylistFormat: String, Sendable, CaseIterable {
    case m3u, pls, xspf

    /// The format of a file by its suffix (in any case), as MPD's plugins claim suffixes.
    package init?(fileName: String) {
        guard let dot = fileName.lastIndex(of: "."), !fileName[fileName.index(after: dot)...].contains("/") else {
            return nil
        }
        switch fileName[fileName.index(after: dot)...].lowercased() {
        case "m3u", "m3u8": self = .m3u
        case "pls": self = .pls
        case "xspf": self = .xspf
        default: return nil
        }
    }

    /// The format a server says it sends, by the MIME types MPD's plugins claim.
    package init?(contentType: String) {
        let type = contentType.split(separator: ";").first?.trimmingCharacters(in: .whitespaces).lowercased() ?? ""
        switch type {
        case "audio/x-mpegurl", "audio/mpegurl", "application/x-mpegurl", "application/vnd.apple.mpegurl":
            self = .m3u
        case "audio/x-scpls", "audio/scpls": self = .pls
        case "application/xspf+xml": self = .xspf
        default: return nil
        }
    }

    /// The entries of `data` in this format; junk gives fewer entries, never a failure. A location with
    /// a NUL in it names nothing any file system or URL has: it is no entry.
    package func parse(_ data: Data, limit: Int) -> [PlaylistEntry] {
        let entries: [PlaylistEntry]
        switch self {
        case .m3u: entries = M3U.parse(data, limit: limit)
        case .pls: entries = PLS.parse(data, limit: limit)
        case .xspf: entries = XSPF.parse(data, limit: limit)
        }
        return entries.filter { !$0.location.utf8.contains(0) }
    }
}

/// SHOUTcast's PLS: an INI file whose `[playlist]` section holds `FileN`, `TitleN` and `LengthN` keys
/// (keys in any case), entries in the order of N, at most `NumberOfEntries` of them when it is given.
package enum PLS {
    package static func parse(_ data: Data, limit: Int) -> [PlaylistEntry] {
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        var files: [Int: (location: String, line: Int)] = [:]
        var titles: [Int: String] = [:]
        var lengths: [Int: Int] = [:]
        var declared: Int?
        var inPlaylist = false
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        for (index, raw) in lines.enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("[") {
                inPlaylist = line.lowercased() == "[playlist]"
                continue
            }
            guard inPlaylist, !line.hasPrefix(";"), !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") else {
                continue
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == "numberofentries" {
                declared = Int(value).map { max(0, $0) }
                continue
            }
            // The number is the entry's place: 1 up to the most a list may hold.
            func number(after prefix: String) -> Int? {
                guard key.hasPrefix(prefix), let n = Int(key.dropFirst(prefix.count)), n >= 1, n <= limit else { return nil }
                return n
            }
            if let n = number(after: "file"), !value.isEmpty {
                files[n] = (value, index + 1)
            } else if let n = number(after: "title"), !value.isEmpty {
                titles[n] = value
            } else if let n = number(after: "length"), let seconds = Int(value), seconds >= 0, seconds < 10_000_000 {
                lengths[n] = seconds * 1000
            }
        }
        let cap = min(limit, declared ?? limit)
        return files.keys.sorted().prefix { $0 <= cap }.prefix(max(0, limit)).map { n in
            var entry = PlaylistEntry(location: files[n]!.location, title: titles[n], durationMs: lengths[n], line: files[n]!.line)
            // As MPD's pls plugin: the title is the song's Title, a length above 0 its length.
            if let title = titles[n] { entry.tags.add(.title, title) }
            if let length = lengths[n], length > 0 { entry.tags.durationMs = length }
            return entry
        }
    }
}

/// XSPF ("spiff"): `<track>` elements of a `<trackList>` with a `<location>`, `<title>` and `<duration>`
/// (milliseconds). No DTD is read and no entity expanded: a document declaring any is refused whole.
package enum XSPF {
    package static func parse(_ data: Data, limit: Int) -> [PlaylistEntry] {
        guard limit > 0, data.range(of: Data("<!DOCTYPE".utf8)) == nil, data.range(of: Data("<!ENTITY".utf8)) == nil else {
            return []
        }
        let reader = Reader(limit: limit)
        guard let length = Int32(exactly: data.count) else { return [] }
        withExtendedLifetime(reader) {
            var events = xz_xml_events(
                context: Unmanaged.passUnretained(reader).toOpaque(),
                start: { context, name, line in Reader.of(context).start(String(cString: name), line: line) },
                end: { context, name in Reader.of(context).end(String(cString: name)) },
                text: { context, bytes, count in
                    Reader.of(context).text(UnsafeRawBufferPointer(start: bytes, count: Int(count)))
                })
            // A document broken part-way keeps the tracks read before the break, as MPD's expat reader does.
            _ = data.withUnsafeBytes { bytes in
                bytes.baseAddress.map { xz_xml_parse($0.assumingMemoryBound(to: CChar.self), length, &events) }
            }
        }
        return reader.entries
    }

    /// Collects tracks as the parser reports elements; used by one parse on one thread only. Each event
    /// answers nonzero to stop the parse.
    private final class Reader {
        let limit: Int
        var entries: [PlaylistEntry] = []
        private var track: PlaylistEntry?
        private var field: String?
        /// The field's text as UTF-8, decoded whole at its end (a chunk may end inside a character).
        private var text: [UInt8] = []
        /// Bytes kept per field: a location longer than any path is no location.
        private static let fieldCap = 8_192

        init(limit: Int) { self.limit = limit }

        static func of(_ context: UnsafeMutableRawPointer?) -> Reader {
            Unmanaged<Reader>.fromOpaque(context!).takeUnretainedValue()
        }

        /// The fields MPD reads as tags (its annotation is a Comment, which MPD keeps no more than we do).
        private static let tags: [String: SongTag] = ["title": .title, "creator": .artist, "album": .album, "trackNum": .track]

        func start(_ name: String, line: Int) -> Int32 {
            switch name {
            case "track": track = PlaylistEntry(location: "", line: line)
            case "location", "title", "duration", "creator", "album", "trackNum":
                guard track != nil, field == nil else { return 0 }
                field = name
                text = []
            default: break
            }
            return 0
        }

        func text(_ bytes: UnsafeRawBufferPointer) -> Int32 {
            guard field != nil else { return 0 }
            text += bytes.prefix(Self.fieldCap - text.count)
            return 0
        }

        func end(_ name: String) -> Int32 {
            if name == field, var current = track {
                let written = String(decoding: text, as: UTF8.self)
                let value = written.trimmingCharacters(in: .whitespacesAndNewlines)
                // As MPD's xspf plugin: a track's fields after its location are its tags, as written.
                if !current.location.isEmpty, let tag = Self.tags[name] { current.tags.add(tag, written) }
                switch name {
                // The first location is the track's; others are alternatives MPD does not read either.
                case "location" where current.location.isEmpty: current.location = value
                case "title" where !value.isEmpty: current.title = value
                case "duration": current.durationMs = Int(value).flatMap { $0 >= 0 ? $0 : nil }
                default: break
                }
                track = current
                field = nil
            } else if name == "track", let current = track {
                track = nil
                guard !current.location.isEmpty else { return 0 }
                entries.append(current)
                if entries.count >= limit { return 1 }
            }
            return 0
        }
    }
}
