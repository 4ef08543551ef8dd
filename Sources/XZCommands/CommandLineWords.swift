/// Splits a REPL line into words like a shell: spaces separate, single and double quotes group,
/// a backslash escapes the next character.
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
            if ch == "\"" || ch == "'" {
                quote = ch
                inWord = true
            } else if ch == " " || ch == "\t" {
                if inWord { words.append(current); current = ""; inWord = false }
            } else {
                current.append(ch)
                inWord = true
            }
        }
        if quote != nil || escaped { throw UnbalancedQuote() }
        if inWord { words.append(current) }
        return words
    }
}
