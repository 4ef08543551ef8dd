import Foundation

/// A query as FTS5 terms: words (the last a prefix) and CJK runs (the characters typed together).
struct QueryTerms {
    struct Part {
        /// The word, or the characters of a CJK run.
        var tokens: [[UInt8]]
        var isCJK: Bool
    }

    var parts: [Part]
    /// The folded query run together, compared with the stored keys for ranking.
    var key: String

    init?(_ query: String) {
        var field = FoldedField()
        field.fold(query)
        guard !field.isEmpty else { return nil }
        var parts: [Part] = []
        for t in field.tokens {
            let bytes = Array(field.textBytes(t))
            if t.isIdeograph && t.continuesRun, let last = parts.last, last.isCJK {
                parts[parts.count - 1].tokens.append(bytes)
            } else {
                parts.append(Part(tokens: [bytes], isCJK: t.isIdeograph))
            }
        }
        self.parts = parts
        key = field.keyString
    }

    /// Whether the last part is a word, which matches as a prefix.
    var lastIsPrefix: Bool { parts.last.map { !$0.isCJK } ?? false }

    /// The MATCH expression; `lastAsPrefix: false` asks for the last word whole, a cheap first try
    /// (FTS5 merges the doclists of every term a prefix covers before returning anything).
    func expression(lastAsPrefix: Bool) -> String {
        var out = ""
        for (i, part) in parts.enumerated() {
            if i > 0 { out += " " }
            if part.isCJK {
                if part.tokens.count == 1 {
                    // Every occurrence of a character starts a pair or ends a run.
                    out += "\"" + String(decoding: part.tokens[0], as: UTF8.self) + "\"*"
                } else {
                    let pairs = (0..<(part.tokens.count - 1)).map {
                        String(decoding: part.tokens[$0] + part.tokens[$0 + 1], as: UTF8.self)
                    }
                    out += "\"" + pairs.joined(separator: " ") + "\""
                }
            } else {
                out += "\"" + String(decoding: part.tokens[0], as: UTF8.self) + "\""
                if lastAsPrefix && i == parts.count - 1 { out += "*" }
            }
        }
        return out
    }

    /// Whether a stored search document (space-separated terms) holds every part as
    /// `expression(lastAsPrefix: true)` asks: exactly what MATCH decides, done on the document text
    /// so candidates found through other indexes can be checked cheaply.
    /// Term boundaries of a document, kept between calls to save allocations.
    struct Scratch {
        var starts: [Int] = []
        var ends: [Int] = []
    }

    func matches(document: UnsafeBufferPointer<UInt8>) -> Bool {
        var scratch = Scratch()
        return matches(document: document, scratch: &scratch)
    }

    func matches(document: UnsafeBufferPointer<UInt8>, scratch: inout Scratch) -> Bool {
        scratch.starts.removeAll(keepingCapacity: true)
        scratch.ends.removeAll(keepingCapacity: true)
        var i = 0
        let n = document.count
        while i < n {
            while i < n && document[i] == 0x20 { i += 1 }
            guard i < n else { break }
            let s = i
            while i < n && document[i] != 0x20 { i += 1 }
            scratch.starts.append(s)
            scratch.ends.append(i)
        }
        let starts = scratch.starts, ends = scratch.ends
        let termCount = starts.count
        /// Term `term` is `a` followed by `b` (b may be empty), or begins so when `prefix`.
        func term(_ term: Int, is a: [UInt8], _ b: [UInt8], prefix: Bool) -> Bool {
            let length = ends[term] - starts[term]
            let wanted = a.count + b.count
            if prefix ? length < wanted : length != wanted { return false }
            let base = starts[term]
            for k in 0..<a.count where document[base + k] != a[k] { return false }
            for k in 0..<b.count where document[base + a.count + k] != b[k] { return false }
            return true
        }
        for (p, part) in parts.enumerated() {
            var found = false
            if part.isCJK && part.tokens.count > 1 {
                let width = part.tokens.count - 1
                var t = 0
                while !found && t + width <= termCount {
                    found = (0..<width).allSatisfy { term(t + $0, is: part.tokens[$0], part.tokens[$0 + 1], prefix: false) }
                    t += 1
                }
            } else {
                let prefix = part.isCJK || p == parts.count - 1
                var t = 0
                while !found && t < termCount {
                    found = term(t, is: part.tokens[0], [], prefix: prefix)
                    t += 1
                }
            }
            if !found { return false }
        }
        return true
    }
}
