import Foundation

/// The requests fuzz/fuzz.py has found a finding in (XZ_FUZZ_SKIP, one regular expression a line), which
/// are not run again, so the fuzzer gets past them.
package struct FuzzSkips {
    private let patterns: [NSRegularExpression]

    package init() {
        patterns = ProcessInfo.processInfo.environment["XZ_FUZZ_SKIP"].flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }?
            .split(separator: "\n").filter { !$0.hasPrefix("#") && !$0.isEmpty }
            .compactMap { try? NSRegularExpression(pattern: String($0)) } ?? []
    }

    /// The text is made only when there are requests to skip.
    package func skips(_ makeText: @autoclosure () -> String) -> Bool {
        guard !patterns.isEmpty else { return false }
        let text = makeText()
        let range = NSRange(text.startIndex..., in: text)
        return patterns.contains { $0.firstMatch(in: text, range: range) != nil }
    }
}
