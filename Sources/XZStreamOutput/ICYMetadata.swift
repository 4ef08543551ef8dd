/// SHOUTcast's in-band titles: after every `interval` bytes of audio one length byte (in 16-byte units)
/// and that many bytes of `StreamTitle='…';`, padded with zeros; a zero byte when nothing changed.
enum ICYMetadata {
    /// MPD's interval.
    static let interval = 8192
    /// The longest title sent, in UTF-8 bytes (the block's own limit is 255 × 16).
    static let titleLimit = 1024

    /// The block announcing `title`.
    static func block(title: String) -> [UInt8] {
        var text = Array("StreamTitle='".utf8) + Array(clean(title).utf8) + Array("';".utf8)
        let units = (text.count + 15) / 16
        text += [UInt8](repeating: 0, count: units * 16 - text.count)
        return [UInt8(units)] + text
    }

    /// The title as data: control characters become spaces (no line breaks in a player's display), a
    /// quote becomes ’ (players read up to `';`), and it is cut on a character boundary at the limit.
    static func clean(_ title: String) -> String {
        var result = String.UnicodeScalarView()
        var bytes = 0
        for scalar in title.unicodeScalars {
            let kept: Unicode.Scalar
            switch scalar.value {
            case 0..<0x20, 0x7F..<0xA0: kept = " "
            case 0x27: kept = "\u{2019}"
            default: kept = scalar
            }
            bytes += UTF8.width(kept)
            guard bytes <= titleLimit else { break }
            result.append(kept)
        }
        return String(result)
    }
}
