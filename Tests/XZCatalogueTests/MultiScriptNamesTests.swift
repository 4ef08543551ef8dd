import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

/// Real artist, recording and release names from MusicBrainz, in many scripts and spellings.
final class MultiScriptNamesTests: XCTestCase {
    private func names(_ relative: String) throws -> [(entity: String, name: String, credit: String)] {
        let text = try String(contentsOf: corporaRoot.appendingPathComponent(relative), encoding: .utf8)
        return CSV.rows(text).dropFirst().compactMap { row in
            row.count >= 5 && !row[2].isEmpty ? (row[0], row[2], row[4]) : nil
        }
    }

    private func importNames() throws -> (TestLibrary, [String]) {
        let library = try TestLibrary()
        let rows = try names("metabrainz-musicbrainz-server/webservice_names.csv")
            + names("metabrainz-picard/ws_data_names.csv")
        XCTAssertGreaterThan(rows.count, 700)
        var titles: [String] = []
        let lines = rows.enumerated().map { i, row -> String in
            titles.append(row.name)
            return TestLibrary.line(["source_id": "mb\(i)", "title": row.name,
                                     "singer": row.credit.isEmpty ? "Various" : row.credit])
        }
        let summary = try library.importFeed(lines)
        XCTAssertEqual(summary.failed, 0, summary.problems.joined(separator: "\n"))
        return (library, titles)
    }

    func testEveryNameFindsItself() throws {
        let (library, titles) = try importNames()
        var misses: [String] = []
        for title in Set(titles) where SearchText.matchExpression(title) != nil {
            let found = try library.database.search(title, limit: 500).songs.map(\.title)
            if !found.contains(title) { misses.append(title) }
        }
        XCTAssertEqual(misses, [])
    }

    func testAliasesAndVariantsInOtherScriptsAndForms() throws {
        let (library, _) = try importNames()
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
        ]
        for (query, expected) in cases {
            let found = try library.database.search(query, limit: 100).songs.map(\.title)
                + library.database.search(query, limit: 100).singers.map(\.name)
            if !found.isEmpty || expected.isEmpty {
                XCTAssertTrue(found.contains(expected), "\(query) → \(found.prefix(5))")
            } else {
                XCTFail("\(query) found nothing; expected \(expected)")
            }
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
