import CMPG123
import XZText

/// Turns libmpg123's parsed ID3v2 / ID3v1 data into TrackTags.
enum TagReader {
    static func read(_ handle: MPG123Handle) -> TrackTags {
        let mh = handle.pointer
        guard mpg123_meta_check(mh) & MPG123_ID3 != 0 else { return TrackTags() }
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_id3(mh, &v1, &v2) == MPG123_OK.rawValue else { return TrackTags() }

        var tags = TrackTags()
        if let v2 = v2?.pointee {
            tags = fromV2(v2)
        }
        // ID3v1 only fills what ID3v2 left empty.
        if let v1 = v1?.pointee {
            let old = fromV1(v1)
            tags.title = tags.title ?? old.title
            if tags.artist == nil {
                tags.artist = old.artist
                tags.artists = old.artists
            }
            if tags.genres.isEmpty { tags.genres = old.genres }
            tags.album = tags.album ?? old.album
            tags.year = tags.year ?? old.year
            tags.track = tags.track ?? old.track
        }
        return tags
    }

    // MARK: ID3v2

    private static func fromV2(_ v2: mpg123_id3v2) -> TrackTags {
        // Text frames and USLT are in `text`, v2.2 ids already promoted to v2.3 ones. libmpg123 1.31
        // overwrites a repeated frame id in place (older versions append), so take the first non-empty.
        var first: [String: [String]] = [:]
        var lyrics: String?
        if let list = v2.text {
            for i in 0..<v2.texts {
                let entry = list[i]
                let id = frameID(entry.id)
                if id == "USLT" {
                    if lyrics == nil { lyrics = cleanLyrics(bytes(of: entry.text)) }
                    continue
                }
                guard first[id] == nil else { continue }
                let values = allValues(bytes(of: entry.text)).compactMap(cleanLine)
                if !values.isEmpty { first[id] = values }
            }
        }
        // ID3v2.3 has no value lists: artists and genres are written "A/B" there.
        let slashLists = v2.version < 4
        func list(_ id: String) -> [String] {
            let values = first[id] ?? []
            guard slashLists else { return values }
            return values.flatMap { $0.split(separator: "/").compactMap { cleanLine(String($0)) } }
        }
        func one(_ id: String) -> String? { first[id]?.first }
        var tags = TrackTags()
        tags.title = one("TIT2")
        tags.artists = unique(list("TPE1"))
        tags.artist = tags.artists.isEmpty ? nil : tags.artists.joined(separator: " / ")
        tags.albumArtist = one("TPE2")
        tags.album = one("TALB")
        tags.genres = unique(list("TCON").map(genreName))
        tags.track = one("TRCK").flatMap(trackNumber)
        tags.disc = one("TPOS").flatMap(trackNumber)
        let date = one("TDRC") ?? one("TYER")
        tags.year = one("TYER").flatMap(yearNumber) ?? one("TDRC").flatMap(yearNumber)
        tags.date = date.flatMap { yearNumber($0) == nil ? nil : $0 }
        tags.lyrics = lyrics
        return tags
    }

    private static func unique(_ values: [String]) -> [String] {
        var seen = Set<String>()
        return values.filter { seen.insert($0).inserted }
    }

    /// ID3 genre references ("(17)", "17", "(17)Rock") become names; numbers outside the ID3v1
    /// list stay as written.
    static func genreName(_ text: String) -> String {
        var rest = Substring(text)
        var number: Substring = ""
        if rest.hasPrefix("("), let close = rest.firstIndex(of: ")") {
            number = rest[rest.index(after: rest.startIndex)..<close]
            rest = rest[rest.index(after: close)...]
            if !rest.isEmpty { return String(rest) }
        } else {
            number = rest
        }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && $0.isNumber }), let index = Int(number),
              index < id3v1Genres.count else {
            if number == "RX" { return "Remix" }
            if number == "CR" { return "Cover" }
            return text
        }
        return id3v1Genres[index]
    }

    static let id3v1Genres = [
        "Blues", "Classic Rock", "Country", "Dance", "Disco", "Funk", "Grunge", "Hip-Hop", "Jazz", "Metal",
        "New Age", "Oldies", "Other", "Pop", "R&B", "Rap", "Reggae", "Rock", "Techno", "Industrial",
        "Alternative", "Ska", "Death Metal", "Pranks", "Soundtrack", "Euro-Techno", "Ambient", "Trip-Hop",
        "Vocal", "Jazz+Funk", "Fusion", "Trance", "Classical", "Instrumental", "Acid", "House", "Game",
        "Sound Clip", "Gospel", "Noise", "AlternRock", "Bass", "Soul", "Punk", "Space", "Meditative",
        "Instrumental Pop", "Instrumental Rock", "Ethnic", "Gothic", "Darkwave", "Techno-Industrial",
        "Electronic", "Pop-Folk", "Eurodance", "Dream", "Southern Rock", "Comedy", "Cult", "Gangsta", "Top 40",
        "Christian Rap", "Pop/Funk", "Jungle", "Native American", "Cabaret", "New Wave", "Psychadelic", "Rave",
        "Showtunes", "Trailer", "Lo-Fi", "Tribal", "Acid Punk", "Acid Jazz", "Polka", "Retro", "Musical",
        "Rock & Roll", "Hard Rock",
    ]

    private static func frameID(_ id: (CChar, CChar, CChar, CChar)) -> String {
        let raw = [id.0, id.1, id.2, id.3].map { UInt8(bitPattern: $0) }
        return String(decoding: raw, as: UTF8.self)
    }

    /// The UTF-8 bytes of an mpg123_string (`fill` counts the closing NUL).
    private static func bytes(of string: mpg123_string) -> [UInt8] {
        guard let p = string.p, string.fill > 0 else { return [] }
        return UnsafeRawBufferPointer(start: p, count: string.fill).map { $0 }
    }

    /// ID3v2.4 text frames may hold several NUL-separated values.
    private static func allValues(_ bytes: [UInt8]) -> [String] {
        bytes.split(separator: 0, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
    }

    /// The first picture of the tag: the front cover when there is one (MPD's choice too).
    static func picture(_ handle: MPG123Handle) -> EmbeddedPicture? {
        let mh = handle.pointer
        var v1: UnsafeMutablePointer<mpg123_id3v1>?
        var v2: UnsafeMutablePointer<mpg123_id3v2>?
        guard mpg123_meta_check(mh) & MPG123_ID3 != 0, mpg123_id3(mh, &v1, &v2) == MPG123_OK.rawValue,
              let tag = v2?.pointee, let pictures = tag.picture, tag.pictures > 0 else { return nil }
        let all = (0..<tag.pictures).map { pictures[$0] }.filter { $0.size > 0 && $0.data != nil }
        let frontCover = Int8(bitPattern: UInt8(mpg123_id3_pic_front_cover.rawValue))
        guard let chosen = all.first(where: { $0.type == frontCover }) ?? all.first, let data = chosen.data else { return nil }
        let mime = String(decoding: bytes(of: chosen.mime_type).prefix { $0 != 0 }, as: UTF8.self)
        return EmbeddedPicture(mimeType: mime, data: Array(UnsafeBufferPointer(start: data, count: chosen.size)))
    }

    // MARK: ID3v1

    private static func fromV1(_ v1: mpg123_id3v1) -> TrackTags {
        var tags = TrackTags()
        tags.title = withUnsafeBytes(of: v1.title) { cleanLine(decodeLegacy(field($0))) }
        tags.artist = withUnsafeBytes(of: v1.artist) { cleanLine(decodeLegacy(field($0))) }
        tags.artists = tags.artist.map { [$0] } ?? []
        if Int(v1.genre) < id3v1Genres.count { tags.genres = [id3v1Genres[Int(v1.genre)]] }
        tags.album = withUnsafeBytes(of: v1.album) { cleanLine(decodeLegacy(field($0))) }
        tags.year = withUnsafeBytes(of: v1.year) { yearNumber(String(decoding: field($0), as: UTF8.self)) }
        // ID3v1.1: a zero at comment[28] makes comment[29] the track number.
        tags.track = withUnsafeBytes(of: v1.comment) { c in
            c.count == 30 && c[28] == 0 && c[29] != 0 ? Int(c[29]) : nil
        }
        return tags
    }

    /// A fixed-size v1 field up to its first NUL.
    private static func field(_ raw: UnsafeRawBufferPointer) -> [UInt8] {
        Array(raw.prefix { $0 != 0 })
    }

    /// v1 fields are raw bytes; read them as Latin-1 and let repairEncoding sort out the rest.
    private static func decodeLegacy(_ raw: [UInt8]) -> String {
        String(String.UnicodeScalarView(raw.map { Unicode.Scalar($0) }))
    }

    // MARK: Cleaning

    /// Undoes the common mis-encodings, then makes the text terminal-safe and trims it; empty becomes nil.
    private static func cleanLine(_ text: String) -> String? {
        let cleaned = TerminalText.sanitize(repairEncoding(text)).trimmingWhitespace()
        return cleaned.isEmpty ? nil : cleaned
    }

    /// Lyrics keep their line breaks; each line is sanitised on its own.
    private static func cleanLyrics(_ bytes: [UInt8]) -> String? {
        let text = repairEncoding(String(decoding: bytes, as: UTF8.self))
        let lines = text.replacingCRLF().split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.sanitize(String($0)).trimmingTrailingWhitespace() }
        let joined = lines.joined(separator: "\n").trimmingWhitespace()
        return joined.isEmpty ? nil : joined
    }

    static func repairEncoding(_ text: String) -> String {
        repairMojibake(repairByteSwappedUTF16(text))
    }

    /// UTF-16 without a BOM is big-endian by the spec and libmpg123 reads it so, but some taggers
    /// (ffmpeg among them) write little-endian: "T" comes out as U+5400. When every character has a
    /// zero low byte and swapping gives printable Latin-1, swap back.
    static func repairByteSwappedUTF16(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard scalars.count >= 2 else { return text }
        var swapped = String.UnicodeScalarView()
        for scalar in scalars {
            let v = scalar.value
            guard v >= 0x100, v <= 0xFF00, v & 0xFF == 0 else { return text }
            let low = v >> 8
            guard low >= 0x20, !(0x7F...0x9F).contains(low), let s = Unicode.Scalar(low) else { return text }
            swapped.append(s)
        }
        return String(swapped)
    }

    /// Text whose scalars all fit in one byte may be bytes of another encoding read as Latin-1:
    /// UTF-8 (valid UTF-8 with multi-byte sequences), GBK (XZText's heuristic decides), or
    /// Windows-1252, whose curly quotes and dashes sit where Latin-1 has invisible C1 controls.
    static func repairMojibake(_ text: String) -> String {
        var raw: [UInt8] = []
        raw.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return text }
            raw.append(UInt8(scalar.value))
        }
        guard raw.contains(where: { $0 >= 0x80 }) else { return text }
        if let utf8 = String(validating: raw, as: UTF8.self) { return utf8 }
        let gbk = LegacyEncoding.recoverGBKStoredAsLatin1(text)
        if gbk != text { return gbk }
        guard raw.contains(where: { (0x80...0x9F).contains($0) }) else { return text }
        return String(String.UnicodeScalarView(raw.map { windows1252[$0] ?? Unicode.Scalar($0) }))
    }

    private static let windows1252: [UInt8: Unicode.Scalar] = [
        0x80: "\u{20AC}", 0x82: "\u{201A}", 0x83: "\u{0192}", 0x84: "\u{201E}", 0x85: "\u{2026}",
        0x86: "\u{2020}", 0x87: "\u{2021}", 0x88: "\u{02C6}", 0x89: "\u{2030}", 0x8A: "\u{0160}",
        0x8B: "\u{2039}", 0x8C: "\u{0152}", 0x8E: "\u{017D}", 0x91: "\u{2018}", 0x92: "\u{2019}",
        0x93: "\u{201C}", 0x94: "\u{201D}", 0x95: "\u{2022}", 0x96: "\u{2013}", 0x97: "\u{2014}",
        0x98: "\u{02DC}", 0x99: "\u{2122}", 0x9A: "\u{0161}", 0x9B: "\u{203A}", 0x9C: "\u{0153}",
        0x9E: "\u{017E}", 0x9F: "\u{0178}",
    ]

    // MARK: Numbers

    /// "3/12" -> 3; zero or no leading digits -> nil.
    static func trackNumber(_ text: String) -> Int? {
        let digits = text.trimmingWhitespace().prefix { $0.isASCII && $0.isNumber }
        guard let value = Int(digits), value > 0 else { return nil }
        return value
    }

    /// The first run of four digits ("2008-05-01", "1993"); anything else (e.g. "0") -> nil.
    static func yearNumber(_ text: String) -> Int? {
        let chars = Array(text.utf8)
        var run = 0
        for (i, c) in chars.enumerated() {
            if c >= 0x30 && c <= 0x39 {
                run += 1
                if run == 4 {
                    let next = i + 1 < chars.count ? chars[i + 1] : 0
                    if next >= 0x30 && next <= 0x39 { continue }  // part of a longer number
                    let value = Int(String(decoding: chars[(i - 3)...i], as: UTF8.self)) ?? 0
                    return value > 0 ? value : nil
                }
            } else {
                run = 0
            }
        }
        return nil
    }
}

extension String {
    func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace || $0 == "\0" }
        guard let start = firstIndex(where: { !isSpace($0) }),
              let end = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[start...end])
    }

    func trimmingTrailingWhitespace() -> String {
        guard let end = lastIndex(where: { !($0.isWhitespace || $0 == "\0") }) else { return "" }
        return String(self[...end])
    }

    func replacingCRLF() -> String {
        // "\r\n" is a single Character in Swift, so map per scalar.
        var out = String.UnicodeScalarView()
        var previousCR = false
        for scalar in unicodeScalars {
            if scalar == "\r" {
                out.append("\n")
                previousCR = true
                continue
            }
            if scalar == "\n" && previousCR { previousCR = false; continue }
            previousCR = false
            out.append(scalar)
        }
        return String(out)
    }
}
