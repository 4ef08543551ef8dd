import XZText

/// Bytes of an LRC file to text. Never fails: undecodable bytes become U+FFFD.
package enum LRCDecoding {
    /// Which decoding was used, for callers that report it.
    package enum Encoding: String, Sendable {
        case utf8, utf8BOM, utf16LE, utf16BE, gb18030, lossyUTF8
    }

    /// UTF-8 (BOM optional), UTF-16 LE/BE with a BOM, else GB18030/GBK when the bytes are not valid UTF-8
    /// (old Chinese LRC files), else lossy UTF-8. The BOM is not part of the result.
    package static func decode(_ bytes: [UInt8]) -> String {
        decodeDetecting(bytes).text
    }

    package static func decodeDetecting(_ bytes: [UInt8]) -> (text: String, encoding: Encoding) {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            return (String(decoding: bytes.dropFirst(3), as: UTF8.self), .utf8BOM)
        }
        if bytes.starts(with: [0xFF, 0xFE]) { return (utf16(bytes.dropFirst(2), bigEndian: false), .utf16LE) }
        if bytes.starts(with: [0xFE, 0xFF]) { return (utf16(bytes.dropFirst(2), bigEndian: true), .utf16BE) }
        if let text = String(validating: bytes, as: UTF8.self) { return (text, .utf8) }
        if let text = LegacyEncoding.decodeGB18030(bytes) { return (text, .gb18030) }
        return (String(decoding: bytes, as: UTF8.self), .lossyUTF8)
    }

    /// A trailing odd byte is dropped; unpaired surrogates become U+FFFD.
    private static func utf16(_ bytes: ArraySlice<UInt8>, bigEndian: Bool) -> String {
        var units: [UInt16] = []
        units.reserveCapacity(bytes.count / 2)
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let a = UInt16(bytes[i]), b = UInt16(bytes[i + 1])
            units.append(bigEndian ? a << 8 | b : b << 8 | a)
            i += 2
        }
        return String(decoding: units, as: UTF16.self)
    }
}
