#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Decoding of the legacy Chinese encodings found in old tags and LRC files.
package enum LegacyEncoding {
    /// Decodes GB18030 (a superset of GBK and GB2312) through iconv; nil when the bytes are not valid.
    package static func decodeGB18030(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty else { return "" }
        let cd = iconv_open("UTF-8", "GB18030")
        guard cd != iconv_t(bitPattern: -1) else { return nil }
        defer { iconv_close(cd) }
        var input = bytes.map { CChar(bitPattern: $0) }
        var output = [CChar](repeating: 0, count: bytes.count * 4 + 4)
        let written: Int? = input.withUnsafeMutableBufferPointer { inBuf in
            output.withUnsafeMutableBufferPointer { outBuf in
                var inPtr: UnsafeMutablePointer<CChar>? = inBuf.baseAddress
                var inLeft = inBuf.count
                var outPtr: UnsafeMutablePointer<CChar>? = outBuf.baseAddress
                var outLeft = outBuf.count
                let result = iconv(cd, &inPtr, &inLeft, &outPtr, &outLeft)
                if result == -1 || inLeft != 0 { return nil }
                return outBuf.count - outLeft
            }
        }
        guard let count = written else { return nil }
        return String(decoding: output[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Recovers GBK text that a tagger stored as Latin-1 (each byte became one U+0000...U+00FF scalar).
    /// Only when every byte above 0x7F pairs into a GBK character whose trail byte is also above 0x7F:
    /// genuine Latin-1 words ("Björk", "Café") have lone accented letters and are left alone.
    package static func recoverGBKStoredAsLatin1(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.unicodeScalars.count)
        for scalar in text.unicodeScalars {
            guard scalar.value <= 0xFF else { return text }
            bytes.append(UInt8(scalar.value))
        }
        guard looksLikeGBK(bytes), let decoded = decodeGB18030(bytes) else { return text }
        return decoded
    }

    static func looksLikeGBK(_ bytes: [UInt8]) -> Bool {
        var i = 0
        var pairs = 0
        while i < bytes.count {
            let b = bytes[i]
            if b < 0x80 { i += 1; continue }
            guard b >= 0x81, b <= 0xFE, i + 1 < bytes.count else { return false }
            let trail = bytes[i + 1]
            guard trail >= 0x80, trail <= 0xFE else { return false }
            pairs += 1
            i += 2
        }
        return pairs > 0
    }
}
