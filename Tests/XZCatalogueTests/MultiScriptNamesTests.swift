import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport
import XZTestSupport
import XZCorpusTestSupport

/// Names in many scripts and spellings: the project's own list, and (when the public corpora are there)
/// real artist, recording and release names from MusicBrainz.
final class MultiScriptNamesTests: XCTestCase {
    static let corpusFiles = [("metabrainz-musicbrainz-server", "webservice_names.csv"),
                              ("metabrainz-picard", "ws_data_names.csv")]

    /// (title, singer) rows of both MusicBrainz corpora; skips the test when either is missing.
    static func corpusNames() throws -> [(title: String, singer: String)] {
        var rows: [(title: String, singer: String)] = []
        for (corpus, file) in corpusFiles {
            let url = try Corpora.require(corpus, files: [file]).appendingPathComponent(file)
            rows += CSV.rows(try String(contentsOf: url, encoding: .utf8)).dropFirst().compactMap { row in
                row.count >= 5 && !row[2].isEmpty ? (row[2], row[4].isEmpty ? "Various" : row[4]) : nil
            }
        }
        return rows
    }

    private func importNames(_ rows: [(title: String, singer: String)]) throws -> TestLibrary {
        let library = try TestLibrary()
        let lines = rows.enumerated().map { i, row in
            TestLibrary.line(["source_id": "mb\(i)", "title": row.title, "singer": row.singer])
        }
        let summary = try library.importFeed(lines)
        XCTAssertEqual(summary.failed, 0, summary.problems.joined(separator: "\n"))
        return library
    }

    private func assertEveryNameFindsItself(_ rows: [(title: String, singer: String)]) throws {
        let library = try importNames(rows)
        var misses: [String] = []
        for title in Set(rows.map(\.title)) where SearchText.matchExpression(title) != nil {
            let found = try library.database.search(title, limit: 500).songs.map(\.title)
            if !found.contains(title) { misses.append(title) }
        }
        XCTAssertEqual(misses, [])
    }

    func testEveryListedNameFindsItself() throws {
        try assertEveryNameFindsItself(MultiScriptNameList.songs)
    }

    func testEveryMusicBrainzNameFindsItself() throws {
        let rows = try Self.corpusNames()
        XCTAssertGreaterThan(rows.count, 700)
        try assertEveryNameFindsItself(rows)
    }

    func testAliasesAndVariantsInOtherScriptsAndForms() throws {
        let library = try importNames(MultiScriptNameList.songs)
        let cases: [(query: String, expected: String)] = [
            ("後藤", "後藤真希"),            // a Han fragment
            ("hou teng", "後藤真希"),        // its pinyin reading, traditional folded to simplified
            ("7人祭", "7人祭"),
            ("ボア", "ボア"),                // katakana alias
            ("ぼあ", "ボア"),                // hiragana finds katakana
            ("보아", "보아"),
            ("milky way 君の歌", "Milky Way 〜君の歌〜"),  // wave dash and brackets are separators
            ("サマーれげぇ", "サマーれげぇ!レインボー"),
            ("summer reggae rain", "Summer Reggae! Rainbow"),
            ("周杰倫", "周杰伦"),            // traditional finds simplified
            ("qingtian", "晴天"),
            ("chen yi xun", "陳奕迅"),
            ("die arzte", "Die Ärzte"),      // diacritics fold
            ("tchaikovsky", "Tchaïkovsky"),
            ("queen", "ＱＵＥＥＮ"),          // full-width folds
        ]
        for (query, expected) in cases {
            let result = try library.database.search(query, limit: 100)
            let found = result.songs.map(\.title) + result.singers.map(\.name)
            XCTAssertTrue(found.contains(expected), "\(query) → \(found.prefix(5))")
        }
    }
}

/// Minimal RFC 4180 reader for the corpus files.
enum CSV {
    static func rows(_ text: String) -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = ""
        var quoted = false
        var iterator = Array(text).makeIterator()
        var pending: Character? = nil
        while let ch = pending ?? iterator.next() {
            pending = nil
            if quoted {
                if ch == "\"" {
                    if let next = iterator.next() {
                        if next == "\"" { field.append("\"") } else { quoted = false; pending = next }
                    } else { quoted = false }
                } else { field.append(ch) }
            } else if ch == "\"" {
                quoted = true
            } else if ch == "," {
                row.append(field); field = ""
            } else if ch == "\n" || ch == "\r\n" {
                row.append(field); rows.append(row); row = []; field = ""
            } else if ch != "\r" {
                field.append(ch)
            }
        }
        if !field.isEmpty || !row.isEmpty { row.append(field); rows.append(row) }
        return rows
    }
}
