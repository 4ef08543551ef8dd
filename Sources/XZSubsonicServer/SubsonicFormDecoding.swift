import XZSubsonicAPI
import XZSystem

/// `application/x-www-form-urlencoded` as a URL's query and a form POST's body carry parameters:
/// `a=1&b=x+y&c=%E7%8E%8B`, `+` a space, `%XX` a byte. Strict: a malformed escape or bytes that are no
/// UTF-8 refuse the whole request (error 0), so no parameter is ever read half-decoded.
package enum SubsonicFormDecoding {
    /// The pairs of `bytes` in order; a name without `=` has the empty value, empty pieces are skipped.
    package static func pairs(_ bytes: some Collection<UInt8>) throws(SubsonicError) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for piece in bytes.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = piece.firstIndex(of: UInt8(ascii: "="))
            let name = try decode(piece[piece.startIndex..<(equals ?? piece.endIndex)])
            let value = try equals.map { equals throws(SubsonicError) in try decode(piece[piece.index(after: equals)...]) } ?? ""
            pairs.append((name, value))
        }
        return pairs
    }

    /// One name or value: `+` and `%XX` decoded, then read as UTF-8.
    package static func decode(_ encoded: some Collection<UInt8>) throws(SubsonicError) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(encoded.count)
        var index = encoded.startIndex
        while index != encoded.endIndex {
            let byte = encoded[index]
            index = encoded.index(after: index)
            switch byte {
            case UInt8(ascii: "+"):
                bytes.append(UInt8(ascii: " "))
            case UInt8(ascii: "%"):
                guard index != encoded.endIndex, let high = ByteEncodings.hexDigit(encoded[index]) else { throw malformed }
                index = encoded.index(after: index)
                guard index != encoded.endIndex, let low = ByteEncodings.hexDigit(encoded[index]) else { throw malformed }
                index = encoded.index(after: index)
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw SubsonicError.generic("a parameter is not UTF-8 text")
        }
        return text
    }

    private static let malformed = SubsonicError.generic("a parameter holds a malformed percent escape")
}
