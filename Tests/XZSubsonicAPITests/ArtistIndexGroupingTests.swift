import XCTest
@testable import XZSubsonicAPI

final class ArtistIndexGroupingTests: XCTestCase {
    func testNamesAreFiledUnderTheirRomanisedInitial() {
        let letters: [(String, String)] = [
            ("王菲", "W"), ("周杰伦", "Z"), ("張學友", "Z"), ("陳奕迅", "C"),
            // Kana, Hepburn: し shi, ち chi, ふ fu, じ ji; katakana and halfwidth katakana as hiragana.
            ("あいみょん", "A"), ("椎名林檎", "Z"), ("しょこたん", "S"), ("ちゃんみな", "C"), ("ふくやま", "F"), ("じん", "J"),
            ("ヨルシカ", "Y"), ("ｶﾈｺ", "K"), ("ガガ", "G"),
            // Hangul, Revised Romanization: ㅇ takes its vowel's initial.
            ("방탄소년단", "B"), ("아이유", "A"), ("이하이", "I"), ("윤하", "Y"), ("원더걸스", "W"), ("에픽하이", "E"), ("트와이스", "T"),
            ("The Beatles", "B"), ("the the", "T"), ("Los Lobos", "L"), ("A-ha", "A"), ("A Tribe Called Quest", "T"),
            ("El Guincho", "G"), ("Björk", "B"), ("Ólafur Arnalds", "O"), ("2Pac", "#"), ("!!!", "#"), ("", "#"),
        ]
        for (name, letter) in letters {
            XCTAssertEqual(ArtistIndexGrouping.letter(of: name), letter, name)
        }
    }

    func testGroupsComeInOrderAndNamesBySpellingWithinThem() {
        let groups = ArtistIndexGrouping.grouped(["Zebra", "周杰伦", "The Beatles", "방탄소년단", "ABBA", "2Pac", "张学友", "Blur"]) { $0 }
        XCTAssertEqual(groups.map(\.letter), ["A", "B", "Z", "#"])
        XCTAssertEqual(groups[1].items, ["The Beatles", "Blur", "방탄소년단"])
        XCTAssertEqual(groups[2].items, ["Zebra", "张学友", "周杰伦"])
        XCTAssertEqual(ArtistIndexGrouping.withoutArticle("The"), "The")
        XCTAssertEqual(ArtistIndexGrouping.withoutArticle("Theory"), "Theory")
        XCTAssertEqual(ArtistIndexGrouping.withoutArticle("LA Priest"), "Priest")
    }
}
