import XZText

/// The text rules every tag value goes through: mis-encoding repair, cleaning, genre numbers, numbers.
enum TagText {
    static func unique(_ values: [String]) -> [String] {
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

    // MARK: Cleaning

    /// Undoes the common mis-encodings, then makes the text terminal-safe and trims it; empty becomes nil.
    static func cleanLine(_ text: String) -> String? {
        let cleaned = TerminalText.sanitize(repairEncoding(text)).trimmingWhitespace()
        return cleaned.isEmpty ? nil : cleaned
    }

    /// Lyrics keep their line breaks; each line is sanitised on its own.
    static func cleanLyrics(_ text: String) -> String? {
        let lines = repairEncoding(text).replacingCRLF().split(separator: "\n", omittingEmptySubsequences: false)
            .map { TerminalText.sanitize(String($0)).trimmingTrailingWhitespace() }
        let joined = lines.joined(separator: "\n").trimmingWhitespace()
        return joined.isEmpty ? nil : joined
    }

    static func repairEncoding(_ text: String) -> String {
        repairMojibake(repairByteSwappedUTF16(text))
    }

    /// UTF-16 without a BOM is big-endian by the spec and some readers take it so, but some taggers
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
