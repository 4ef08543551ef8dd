import Foundation

/// Splits a REPL line into words like a shell: spaces separate, double quotes and single quotes at
/// the start of a word group, a backslash escapes the next character. An apostrophe inside a word is
/// text: `search don't stop` is three words. (Paths expand `~` where they are used.)
enum CommandLineWords {
    struct UnbalancedQuote: Error, CustomStringConvertible {
        var description: String { "unbalanced quote" }
    }

    static func split(_ line: String) throws -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quote: Character?
        var escaped = false
        func endWord() {
            words.append(current)
            current = ""
            inWord = false
        }
        for ch in line {
            if escaped {
                current.append(ch)
                escaped = false
                continue
            }
            if ch == "\\" && quote != "'" {
                escaped = true
                inWord = true
                continue
            }
            if let q = quote {
                if ch == q { quote = nil } else { current.append(ch) }
                continue
            }
            if ch == "\"" || (ch == "'" && !inWord) {
                quote = ch
                inWord = true
            } else if ch == " " || ch == "\t" {
                if inWord { endWord() }
            } else {
                current.append(ch)
                inWord = true
            }
        }
        if quote != nil || escaped { throw UnbalancedQuote() }
        if inWord { endWord() }
        return words
    }

    /// argument-parser reads "-5" as an option, but in `seek -5` and `lyrics offset -150` it is a
    /// value: an end-of-options marker goes before the first negative number when no option follows.
    static func markingNegativeNumbers(_ words: [String]) -> [String] {
        guard let first = words.firstIndex(where: isNegativeNumber), !words[..<first].contains("--"),
              !words[first...].contains(where: { $0.hasPrefix("-") && !isNegativeNumber($0) }) else { return words }
        var marked = words
        marked.insert("--", at: first)
        return marked
    }

    /// "-5", "-150", "-1:30", "-2.5".
    static func isNegativeNumber(_ word: String) -> Bool {
        guard word.hasPrefix("-"), let next = word.dropFirst().first, next.isASCII, next.isNumber else { return false }
        return word.dropFirst().allSatisfy { $0.isASCII && ($0.isNumber || $0 == ":" || $0 == ".") }
    }
}
