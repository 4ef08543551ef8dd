import XCTest
@testable import XZAudio

/// The small text rules behind TrackTags, on their own.
final class TagTextTests: XCTestCase {
    func testTrackNumber() {
        XCTAssertEqual(TagText.trackNumber("3/12"), 3)
        XCTAssertEqual(TagText.trackNumber(" 07 "), 7)
        XCTAssertNil(TagText.trackNumber("0"))
        XCTAssertNil(TagText.trackNumber("/12"))
        XCTAssertNil(TagText.trackNumber("A1"))
    }

    func testYearIsFirstFourDigits() {
        XCTAssertEqual(TagText.yearNumber("2008-05-01"), 2008)
        XCTAssertEqual(TagText.yearNumber("(c) 1999 Label"), 1999)
        XCTAssertNil(TagText.yearNumber("0"))
        XCTAssertNil(TagText.yearNumber("0000"))
        XCTAssertNil(TagText.yearNumber("12345"))
        XCTAssertNil(TagText.yearNumber(""))
    }

    func testLittleEndianUTF16WithoutBOMIsSwappedBack() {
        // What libmpg123 makes of "Tony" written little-endian without a BOM (read as big-endian).
        let misread = String(String.UnicodeScalarView("Tony".unicodeScalars.map { Unicode.Scalar($0.value << 8)! }))
        XCTAssertEqual(TagText.repairByteSwappedUTF16(misread), "Tony")
        // Real CJK text is left alone: 一 is U+4E00, but a title is not all such characters plus printable swaps.
        XCTAssertEqual(TagText.repairByteSwappedUTF16("一"), "一")
        XCTAssertEqual(TagText.repairByteSwappedUTF16("周杰伦"), "周杰伦")
    }

    /// Genuine Latin-1 names must survive the GBK and UTF-8 repairs.
    func testLatin1NamesAreNotMistakenForGBK() {
        for name in ["Björk", "Café Tacvba", "Sigur Rós", "Mötley Crüe", "Françoise Hardy", "Beyoncé",
                     "Hüsker Dü", "Motörhead", "Àlex Ubago", "Mägo de Oz", "Ólafur Arnalds"] {
            XCTAssertEqual(TagText.repairEncoding(name), name)
        }
    }

    func testMojibakeIsRepaired() {
        // UTF-8 bytes of "周杰伦" read as Latin-1.
        let utf8AsLatin1 = String(String.UnicodeScalarView(Array("周杰伦".utf8).map { Unicode.Scalar($0) }))
        XCTAssertEqual(TagText.repairEncoding(utf8AsLatin1), "周杰伦")
        // GBK bytes of "角落之歌" read as Latin-1: tinytag's value for chinese_id3.mp3.
        XCTAssertEqual(TagText.repairEncoding("½ÇÂäÖ®¸è"), "角落之歌")
    }
}
