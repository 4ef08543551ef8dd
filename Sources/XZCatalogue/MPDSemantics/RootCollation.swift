import CCollation
import XZSystem

/// ICU's root collation, the order MPD gives folder and file names (its IcuCollate): Latin letters without
/// regard to case or accents first, then Hangul, kana, Han. Its sort keys compare as bytes, so a name's
/// key is made once and a sort compares bytes.
final class RootCollation: @unchecked Sendable {
    // Safe to share: the collator is used only under `lock`, and lives as long as the process.
    private let collator: UnsafeMutableRawPointer?
    private let lock = Mutex(())

    static let shared = RootCollation()

    private init() {
        collator = xz_collator_open_root()
    }

    /// Appends the sort key of `name` (UTF-8) with its terminating 0, which no key holds before its end;
    /// false, and nothing appended, when ICU could not be opened.
    func appendKey(_ name: ArraySlice<UInt8>, to key: inout [UInt8]) -> Bool {
        guard let collator else { return false }
        let text = Array(String(decoding: name, as: UTF8.self).utf16)
        var capacity = text.count * 4 + 16
        while true {
            let (bytes, length) = lock.withLock { _ -> ([UInt8], Int) in
                var bytes = [UInt8](repeating: 0, count: capacity)
                let length = text.withUnsafeBufferPointer { text in
                    bytes.withUnsafeMutableBufferPointer { buffer in
                        xz_collator_sort_key(collator, text.baseAddress, Int32(text.count), buffer.baseAddress, Int32(capacity))
                    }
                }
                return (bytes, Int(length))
            }
            guard length > 0 else { return false }
            if length <= capacity {
                key += bytes[..<length]
                return true
            }
            capacity = length
        }
    }
}
