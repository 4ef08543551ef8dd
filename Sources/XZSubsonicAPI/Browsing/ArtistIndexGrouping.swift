import Foundation
import XZCatalogue

/// How artist lists are grouped and ordered (`getIndexes`, `getArtists`): by the initial of the name's
/// spelling in Latin letters — pinyin for Han (王菲 under W), Hepburn romaji for kana, Revised
/// Romanization for Hangul — after a leading article Navidrome ignores ("The Beatles" under B); '#' for
/// the rest. Within a group, by that spelling.
package enum ArtistIndexGrouping {
    /// Navidrome's default, as `ignoredArticles` tells clients.
    package static let ignoredArticles = "The El La Los Las Le Les Os As O A"
    private static let articles = ignoredArticles.split(separator: " ").map { $0.lowercased() + " " }

    /// The name without a leading ignored article (compared without case), unless that is all there is.
    package static func withoutArticle(_ name: String) -> String {
        let lowered = name.lowercased()
        for article in articles where lowered.hasPrefix(article) && lowered.count > article.count {
            return String(name.dropFirst(article.count)).trimmingCharacters(in: .whitespaces)
        }
        return name
    }

    /// The group a name is filed under: "A"…"Z" or "#".
    package static func letter(of name: String) -> String {
        letter(ofSpelling: spelling(of: name))
    }

    /// The name spelt in lower-case Latin letters as far as the catalogue's folding and the tables here go:
    /// the sort key within a group.
    package static func spelling(of name: String) -> String {
        let stripped = withoutArticle(name).precomposedStringWithCompatibilityMapping
        guard let first = stripped.unicodeScalars.first(where: { $0.properties.isAlphabetic || $0.properties.numericType != nil }) else {
            return ""
        }
        let folded = SearchText.analyze(stripped).pinyin
        if let initial = romanInitial(of: first) {
            return String(initial).lowercased() + folded
        }
        return folded
    }

    /// The OpenSubsonic `sortName` of an artist, album or song: its spelling, the key lists sort it by; nil
    /// for a name with no letter or digit.
    package static func sortName(of name: String) -> String? {
        let spelling = spelling(of: name)
        return spelling.isEmpty ? nil : spelling
    }

    /// Orders names as `spelling` does, then as written.
    package static func areInIncreasingOrder(_ left: (spelling: String, name: String), _ right: (spelling: String, name: String)) -> Bool {
        left.spelling != right.spelling ? left.spelling < right.spelling : left.name < right.name
    }

    /// Groups `items` by the letter of their name, groups A-Z then '#', each in spelling order. `spelling`:
    /// the name's, when the item already holds it (an artist's `sortName`).
    package static func grouped<Item>(_ items: [Item], spelling known: ((Item) -> String)? = nil,
                                      name: (Item) -> String) -> [(letter: String, items: [Item])] {
        var groups: [String: [(spelling: String, name: String, item: Item)]] = [:]
        for item in items {
            let itemName = name(item)
            let spelling = known?(item) ?? spelling(of: itemName)
            groups[letter(ofSpelling: spelling), default: []].append((spelling, itemName, item))
        }
        return groups.keys.sorted { ($0 == "#" ? "~" : $0) < ($1 == "#" ? "~" : $1) }.map { letter in
            (letter, groups[letter]!.sorted { areInIncreasingOrder(($0.spelling, $0.name), ($1.spelling, $1.name)) }.map(\.item))
        }
    }

    private static func letter(ofSpelling spelling: String) -> String {
        spelling.first.map { ("a"..."z").contains($0) ? $0.uppercased() : "#" } ?? "#"
    }

    // MARK: Kana and Hangul

    /// Hepburn initials of hiragana U+3041...U+3096 (ぁ あ ぃ い … ゖ): し shi, ち chi, ふ fu, じ ji, を o.
    private static let kanaInitials: [Character] = Array("AAIIUUEEOOKGKGKGKGKGSZSJSZSZSZTDCJTTZTDTDNNNNNHBPHBPFBPHBPHBPMMMMMYYYYYYRRRRRWWIEONVKK")
    /// Revised Romanization initials of Hangul's 19 leading consonants (ㅇ: the vowel's, below).
    private static let hangulLeads: [Character] = Array("GKNDTRMBPSS_JJCKTPH")
    /// … and of its 21 vowels: ㅏ a, ㅐ ae, ㅑ ya, ㅒ yae, ㅓ eo, ㅔ e, ㅕ yeo, ㅖ ye, ㅗ o, ㅘ wa, ㅙ wae, ㅚ oe,
    /// ㅛ yo, ㅜ u, ㅝ wo, ㅞ we, ㅟ wi, ㅠ yu, ㅡ eu, ㅢ ui, ㅣ i.
    private static let hangulVowels: [Character] = Array("AAYYEEYYOWWOYUWWWYEUI")

    /// The Latin initial of a kana or Hangul syllable; nil for any other character.
    static func romanInitial(of scalar: Unicode.Scalar) -> Character? {
        var v = scalar.value
        if (0x30A1...0x30F6).contains(v) { v -= 0x60 }  // katakana as hiragana
        if (0x30F7...0x30FA).contains(v) { return "V" }
        if (0x3041...0x3096).contains(v) { return kanaInitials[Int(v - 0x3041)] }
        if (0xAC00...0xD7A3).contains(v) {
            let index = Int(v - 0xAC00)
            let lead = hangulLeads[index / 588]
            return lead == "_" ? hangulVowels[(index % 588) / 28] : lead
        }
        return nil
    }
}
