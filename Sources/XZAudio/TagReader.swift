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
            tags.artist = tags.artist ?? old.artist
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
        var first: [String: String] = [:]
        var lyrics: String?
        if let list = v2.text {
            for i in 0..<v2.texts {
                let entry = list[i]
                let id = frameID(entry.id)
                if id == "USLT" {
                    if lyrics == nil { lyrics = cleanLyrics(bytes(of: entry.text)) }
                    continue
                }
                guard first[id] == nil, let value = cleanLine(firstValue(bytes(of: entry.text))) else { continue }
                first[id] = value
            }
        }
        var tags = TrackTags()
        tags.title = first["TIT2"]
        tags.artist = first["TPE1"]
        tags.album = first["TALB"]
        tags.track = first["TRCK"].flatMap(trackNumber)
        tags.year = first["TYER"].flatMap(yearNumber) ?? first["TDRC"].flatMap(yearNumber)
        tags.lyrics = lyrics
        return tags
    }

    private static func frameID(_ id: (CChar, CChar, CChar, CChar)) -> String {
        let raw = [id.0, id.1, id.2, id.3].map { UInt8(bitPattern: $0) }
        return String(decoding: raw, as: UTF8.self)
    }

    /// The UTF-8 bytes of an mpg123_string (`fill` counts the closing NUL).
    private static func bytes(of string: mpg123_string) -> [UInt8] {
        guard let p = string.p, string.fill > 0 else { return [] }
        return UnsafeRawBufferPointer(start: p, count: string.fill).map { $0 }
    }

    /// ID3v2.4 text frames may hold several NUL-separated values; the first non-empty one is the value.
    private static func firstValue(_ bytes: [UInt8]) -> String {
        for part in bytes.split(separator: 0, omittingEmptySubsequences: true) {
            let text = String(decoding: part, as: UTF8.self)
            if !text.trimmingWhitespace().isEmpty { return text }
        }
        return ""
    }

    // MARK: ID3v1

    private static func fromV1(_ v1: mpg123_id3v1) -> TrackTags {
        var tags = TrackTags()
        tags.title = withUnsafeBytes(of: v1.title) { cleanLine(decodeLegacy(field($0))) }
        tags.artist = withUnsafeBytes(of: v1.artist) { cleanLine(decodeLegacy(field($0))) }
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
