import XCTest
@testable import XZSubsonicAPI

/// `Range: bytes=…` against a file's size: every form, several ranges, and hostile numbers.
final class RangeParsingTests: XCTestCase {
    func parse(_ header: String?, _ size: Int64 = 1000) throws -> ClosedRange<Int64>? {
        try ByteRange.parse(header, size: size)
    }

    func assertUnsatisfiable(_ header: String, _ size: Int64 = 1000, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try parse(header, size), file: file, line: line) { error in
            XCTAssertTrue(MediaError.rangeNotSatisfiable ~= error, "\(error)", file: file, line: line)
            XCTAssertEqual((error as? MediaError)?.fileSize, size, file: file, line: line)
        }
    }

    func testTheThreeForms() throws {
        XCTAssertEqual(try parse("bytes=0-99"), 0...99)
        XCTAssertEqual(try parse("bytes=500-"), 500...999)
        XCTAssertEqual(try parse("bytes=-100"), 900...999)
        XCTAssertEqual(try parse("bytes=-5000"), 0...999, "a suffix longer than the file is the whole file")
        XCTAssertEqual(try parse("bytes=990-5000"), 990...999, "the end is held to the file's last byte")
        XCTAssertEqual(try parse("bytes=999-999"), 999...999)
        XCTAssertEqual(try parse("Bytes= 10 - 20 "), 10...20)
    }

    func testSeveralRangesServeTheFirst() throws {
        XCTAssertEqual(try parse("bytes=0-9,20-29"), 0...9)
        XCTAssertEqual(try parse("bytes=-10, 0-1"), 990...999)
    }

    func testWhatIsIgnored() throws {
        XCTAssertNil(try parse(nil))
        XCTAssertNil(try parse(""))
        XCTAssertNil(try parse("items=0-9"), "another unit")
        XCTAssertNil(try parse("bytes=abc"))
        XCTAssertNil(try parse("bytes=20-10"), "an end before the start is no range")
        XCTAssertNil(try parse("bytes=1-2-3"))
        XCTAssertNil(try parse("bytes=+1-2"))
        XCTAssertNil(try parse("bytes=-"))
        XCTAssertNil(try parse("bytes=0-9\u{0}"))
        XCTAssertNil(try parse("bytes=" + String(repeating: "1", count: 5000) + "-"), "a header past its limit")
    }

    func testUnsatisfiable() {
        assertUnsatisfiable("bytes=1000-")
        assertUnsatisfiable("bytes=1000-2000")
        assertUnsatisfiable("bytes=-0")
        assertUnsatisfiable("bytes=0-", 0)
        assertUnsatisfiable("bytes=-10", 0)
        assertUnsatisfiable("bytes=9223372036854775807-")
        assertUnsatisfiable("bytes=9223372036854775808-")
        assertUnsatisfiable("bytes=99999999999999999999999999-")
        assertUnsatisfiable("bytes=0-99999999999999999999999999")
        assertUnsatisfiable("bytes=-99999999999999999999999999")
    }

    func testEveryShortHeaderParsesWithoutTrapping() {
        let alphabet = Array("bytes=-, 0123456789".utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            let length = Int.random(in: 0...30, using: &generator)
            let header = String(decoding: (0..<length).map { _ in alphabet.randomElement(using: &generator)! }, as: UTF8.self)
            let size = Int64.random(in: 0...2000, using: &generator)
            if let range = try? ByteRange.parse(header, size: size) {
                XCTAssertTrue(range.lowerBound >= 0 && range.upperBound < size, "\(header) on \(size): \(range)")
            }
        }
    }
}
