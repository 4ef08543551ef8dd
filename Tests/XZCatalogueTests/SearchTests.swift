import XCTest
@testable import XZCatalogue
import XZCatalogueTestSupport

final class SearchTests: XCTestCase {
    private var library: TestLibrary!

    override func setUpWithError() throws {
        library = try TestLibrary()
        let songs: [(String, String, String)] = [
            ("晴天", "周杰伦", "叶惠美"), ("七里香", "周杰伦", "七里香"), ("十年", "陳奕迅", "黑白灰"),
            ("Jóga", "Björk", "Homogenic"), ("Hyperballad", "Björk", "Post"), ("La Vie en rose", "Édith Piaf", ""),
            ("Café del Mar", "Energy 52", ""), ("Bicycle Race", "Queen", "Jazz"), ("Don't Stop Me Now", "Queen", "Jazz"),
            ("Bohemian Rhapsody", "Queen", "A Night at the Opera"), ("Jazz Odyssey", "Spinal Tap", ""),
            ("First Love", "宇多田ヒカル", "First Love"), ("좋은 날", "아이유", "Real"), ("Группа крови", "Кино", ""),
            ("Queen of Hearts", "Someone Else", ""), ("Queenie", "Q Band", ""),
        ]
        try library.importFeed(songs.enumerated().map { i, s in
            TestLibrary.line(["source_id": "\(i)", "title": s.0, "singer": s.1, "album": s.2])
        })
    }

    func testCaseDiacriticAndWidthInsensitive() throws {
        for query in ["bjork", "BJÖRK", "ＢＪＯＲＫ", "björk"] {
            XCTAssertEqual(Set(try library.titles(query)), ["Jóga", "Hyperballad"], query)
        }
        XCTAssertEqual(try library.titles("cafe"), ["Café del Mar"])
        XCTAssertEqual(try library.titles("edith"), ["La Vie en rose"])
        XCTAssertEqual(try library.titles("кино"), ["Группа крови"])
    }

    func testCJKFragmentsOfAnyLength() throws {
        XCTAssertEqual(Set(try library.titles("杰伦")), ["晴天", "七里香"])
        XCTAssertEqual(Set(try library.titles("周")), ["晴天", "七里香"])
        XCTAssertEqual(try library.titles("里"), ["七里香"])
        XCTAssertEqual(try library.titles("晴天"), ["晴天"])
        XCTAssertEqual(try library.titles("ヒカル"), ["First Love"])
        XCTAssertEqual(try library.titles("ひかる"), ["First Love"], "katakana and hiragana fold together")
        XCTAssertEqual(try library.titles("이유"), ["좋은 날"])
        XCTAssertEqual(try library.titles("杰周"), [], "characters must be adjacent and in order")
    }

    func testPinyinFullInitialsSpacedOrNot() throws {
        for query in ["zhou jie lun", "zhoujielun", "zjl", "ZJL", "zhoujie", "jielun", "qingtian", "qing tian", "qt"] {
            XCTAssertFalse(try library.titles(query).isEmpty, query)
        }
        XCTAssertEqual(Set(try library.titles("zhou jie lun")), ["晴天", "七里香"])
        XCTAssertEqual(try library.titles("qingtian"), ["晴天"])
        XCTAssertEqual(try library.titles("chen yi xun"), ["十年"])
        XCTAssertEqual(try library.titles("cyx"), ["十年"])
    }

    func testPolyphonicCharactersAreFoundByEveryCommonReading() throws {
        let other = try TestLibrary()
        let songs = [("音乐之声", "群星"), ("重庆森林", "王菲"), ("长城", "Beyond"), ("银行", "某人"), ("了解", "某人"),
                     ("小幸运", "曾轶可"), ("永不失联的爱", "单依纯"), ("绿光", "孙燕姿")]
        try other.importFeed(songs.enumerated().map { i, s in
            TestLibrary.line(["source_id": "p\(i)", "title": s.0, "singer": s.1])
        })
        let table: [(String, String)] = [
            ("yinyue", "音乐之声"), ("yinle", "音乐之声"), ("yinyuezhisheng", "音乐之声"), ("yyzs", "音乐之声"),
            ("chongqing", "重庆森林"), ("cqsl", "重庆森林"), ("zhongqing", "重庆森林"),
            ("changcheng", "长城"), ("zhangcheng", "长城"), ("yinhang", "银行"), ("yinxing", "银行"),
            ("liaojie", "了解"), ("lejie", "了解"), ("zengyike", "小幸运"), ("zyk", "小幸运"),
            ("shanyichun", "永不失联的爱"), ("lvguang", "绿光"), ("lu guang", "绿光"),
        ]
        for (query, title) in table {
            XCTAssertEqual(try other.titles(query), [title], query)
        }
        // The readings join characters only where they stand: no other song matches.
        XCTAssertEqual(try other.titles("yueyin"), [])
    }

    func testHalfwidthAndDecomposedKanaFindTheirSongs() throws {
        let other = try TestLibrary()
        try other.importFeed([TestLibrary.line(["source_id": "k", "title": "ロビンソン", "singer": "スピッツ"])])
        for query in ["ﾛﾋﾞﾝｿﾝ", "ろびんそん", "ロヒ\u{3099}ンソン", "ｽﾋﾟｯﾂ"] {
            XCTAssertEqual(try other.titles(query), ["ロビンソン"], query)
        }
    }

    func testTraditionalAndSimplifiedFold() throws {
        XCTAssertEqual(try library.titles("陈奕迅"), ["十年"])
        XCTAssertEqual(try library.titles("陳奕迅"), ["十年"])
        XCTAssertEqual(try library.titles("葉惠美"), ["晴天"], "traditional query finds a simplified album")
    }

    func testAllWordsMustMatchAcrossFieldsLastAsPrefix() throws {
        XCTAssertEqual(Set(try library.titles("queen jazz")), ["Bicycle Race", "Don't Stop Me Now"])
        XCTAssertEqual(Set(try library.titles("queen ja")), ["Bicycle Race", "Don't Stop Me Now"])
        XCTAssertEqual(Set(try library.titles("jazz queen")), ["Bicycle Race", "Don't Stop Me Now"])
        XCTAssertEqual(try library.titles("bohemian rhap"), ["Bohemian Rhapsody"])
        XCTAssertEqual(try library.titles("bohem rhapsody"), [], "only the last word is a prefix")
        XCTAssertEqual(try library.titles("周杰伦 七里"), ["七里香"])
    }

    func testUserInputIsAlwaysLiteral() throws {
        let hostile = ["\"", "\"\"", "*", "^", "-", "queen AND", "OR", "NOT queen", "NEAR(queen jazz)",
                       "queen\"jazz", "'; DROP TABLE song; --", "title:queen", "{queen}", "(", ")", ":", "+",
                       "queen*", "\u{0}", "\\", "%", "_", "bjö\"rk", "晴\"天"]
        for query in hostile {
            XCTAssertNoThrow(try library.database.search(query), query)
        }
        XCTAssertEqual(try library.titles("'; DROP TABLE song; --"), [])
        XCTAssertEqual(try library.database.songCount(), 16)
        XCTAssertEqual(Set(try library.titles("NOT queen")), [], "NOT is a word to find, not an operator")
        XCTAssertEqual(Set(try library.titles("queen*")), Set(try library.titles("queen")))
        XCTAssertEqual(try library.titles("晴\"天"), ["晴天"], "punctuation separates like a space")
    }

    func testNothingSearchableGivesNoResults() throws {
        XCTAssertEqual(try library.database.search("***").songs, [])
        XCTAssertEqual(try library.database.search("").songs, [])
    }

    func testRankingExactThenPrefixThenFragment() throws {
        let ranked = try library.titles("queen")
        // Exact singer "Queen" first, then prefix matches ("Queen of Hearts", "Queenie").
        XCTAssertEqual(Set(ranked.prefix(3)), ["Bicycle Race", "Don't Stop Me Now", "Bohemian Rhapsody"])
        XCTAssertEqual(Set(ranked.dropFirst(3)), ["Queen of Hearts", "Queenie"])
        XCTAssertEqual(try library.titles("jazz").first, "Jazz Odyssey", "a title prefix beats an album match")
        XCTAssertEqual(try library.titles("zjl").count, 2)
    }

    func testMatchingSingersAreListed() throws {
        let result = try library.database.search("zjl")
        XCTAssertEqual(result.singers.map(\.name), ["周杰伦"])
        XCTAssertEqual(result.singers.first?.songs, 2)
        XCTAssertEqual(try library.database.search("陈奕迅").singers.map(\.name), ["陳奕迅"])
    }

    func testSingerViewListsSongsByAlbumAndTrack() throws {
        let singer = try XCTUnwrap(try library.database.singer(named: "queen"))
        XCTAssertEqual(singer.name, "Queen")
        let titles = try library.database.songs(bySingerId: singer.id).map(\.title)
        XCTAssertEqual(titles, ["Bohemian Rhapsody", "Bicycle Race", "Don't Stop Me Now"])
    }

    func testFoldingAnalysis() {
        let a = SearchText.analyze("周杰伦")
        XCTAssertEqual(a.key, "周杰伦")
        XCTAssertEqual(a.pinyin, "zhoujielun")
        XCTAssertEqual(a.initials, "zjl")
        XCTAssertEqual(SearchText.analyze("Ｑｕｅｅｎ").key, "queen")
        XCTAssertEqual(SearchText.analyze("Sigur Rós").key, "sigurros")
        XCTAssertEqual(SearchText.analyze("Straße Ærø Łódź").key, "strasseaerolodz")
        XCTAssertEqual(SearchText.firstLetter(SearchText.analyze("陳奕迅")), "C")
        XCTAssertEqual(SearchText.firstLetter(SearchText.analyze("아이유")), "#")
        XCTAssertEqual(SearchText.matchExpression("a\"b NEAR("), "\"a\" \"b\" \"near\"*")
        XCTAssertNil(SearchText.matchExpression("\"*^"))
    }
}
