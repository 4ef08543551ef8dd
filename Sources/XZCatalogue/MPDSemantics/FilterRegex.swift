import CPCRE2
import XZSystem

/// A pattern of `=~` / `!~`, compiled by PCRE2 as MPD 0.23 compiles it (UniqueRegex: `.` matches a
/// newline too, groups capture nothing, no UTF mode, so `.` is one byte and `search` folds ASCII only).
/// Every match runs under a match and heap limit: a backtracking pattern gives up on a value after a
/// bounded amount of work instead of holding a thread for good.
package final class FilterRegex: @unchecked Sendable {
    // Safe to share between threads: the compiled code is never changed after `init` (PCRE2 documents
    // a compiled pattern as usable by several threads at once), and each match makes its own match data.
    private let code: OpaquePointer

    /// Backtracking steps one value may cost (PCRE2's default is 10,000,000, MPD's): tag values are
    /// short, so an ordinary pattern needs a few thousand; a runaway one stops after ~0.1 ms a value,
    /// and is no match, as MPD counts a failed match.
    package static let matchLimit: UInt32 = 100_000
    /// Heap the interpreter may use for backtracking, in KiB (the JIT keeps to its own 32 KiB stack).
    static let heapLimitKiB: UInt32 = 4096

    /// Compiles `pattern`, caseless for `search`; MPD's message when it does not compile.
    package init(_ pattern: String, caseless: Bool) throws(CatalogueError) {
        // MPD hands PCRE2 a C string: a pattern ends at its first NUL (kept, so the buffer is never empty).
        let bytes = Array(pattern.utf8.prefix { $0 != 0 }) + [0]
        var options = UInt32(PCRE2_DOTALL | PCRE2_NO_AUTO_CAPTURE)
        if caseless { options |= UInt32(PCRE2_CASELESS) }
        var errorCode: Int32 = 0
        var errorOffset = 0
        let compiled = bytes.withUnsafeBufferPointer { buffer in
            pcre2_compile_8(buffer.baseAddress!, buffer.count - 1, options, &errorCode, &errorOffset, nil)
        }
        guard let compiled else {
            throw .badFilter("Error in regex at offset \(errorOffset): \(Self.message(errorCode))")
        }
        // As MPD: JIT where the platform has it; without it the interpreter gives the same answers.
        _ = pcre2_jit_compile_8(compiled, UInt32(PCRE2_JIT_COMPLETE))
        code = compiled
    }

    deinit { pcre2_code_free_8(code) }

    /// Whether the pattern matches somewhere in `text`; a match that passes the limits is no match.
    package func matches(_ text: String) -> Bool {
        // Without its limits (no memory for them) no match is run.
        guard let context = Self.limits.context,
              let data = pcre2_match_data_create_from_pattern_8(code, nil) else { return false }
        defer { pcre2_match_data_free_8(data) }
        var text = text
        return text.withUTF8 { buffer in
            guard let subject = buffer.baseAddress else {
                // PCRE2 refuses a null subject even of length 0.
                let empty: UInt8 = 0
                return withUnsafePointer(to: empty) { pcre2_match_8(code, $0, 0, 0, 0, data, context) >= 0 }
            }
            return pcre2_match_8(code, subject, buffer.count, 0, 0, data, context) >= 0
        }
    }

    /// The match context of every match: set once, then only read.
    private final class Limits: @unchecked Sendable {
        // Safe to share: written only here, before any match sees it; PCRE2 only reads it while matching.
        let context: OpaquePointer?

        init() {
            context = pcre2_match_context_create_8(nil)
            if let context {
                pcre2_set_match_limit_8(context, FilterRegex.matchLimit)
                pcre2_set_depth_limit_8(context, FilterRegex.matchLimit)
                pcre2_set_heap_limit_8(context, FilterRegex.heapLimitKiB)
            }
        }
    }

    private static let limits = Limits()

    private static func message(_ code: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let length = pcre2_get_error_message_8(code, &buffer, buffer.count)
        return length > 0 ? String(decoding: buffer.prefix(Int(length)), as: UTF8.self) : "error \(code)"
    }

    /// Patterns compiled once, shared by every query thread.
    private static let cache = Mutex<[String: FilterRegex]>([:])

    /// The compiled pattern, from the cache when it was compiled before.
    static func compiled(_ pattern: String, foldCase: Bool) throws(CatalogueError) -> FilterRegex {
        let key = (foldCase ? "i" : "c") + pattern
        if let known = cache.withLock({ $0[key] }) { return known }
        let regex = try FilterRegex(pattern, caseless: foldCase)
        cache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[key] = regex
        }
        return regex
    }
}
