import Foundation
import XCTest
import XZSystem

final class ByteEncodingsTests: XCTestCase {
    func testHexIsTwoLowerCaseDigitsAByte() {
        XCTAssertEqual(ByteEncodings.hex([0x00, 0xFF, 0x1A, 0x09]), "00ff1a09")
        XCTAssertEqual(ByteEncodings.hex([]), "")
    }

    func testHexDigitsOfEitherCaseReadBackAndMalformedOnesAreNone() {
        XCTAssertEqual(ByteEncodings.bytes(hex: "00fF1a09".utf8), [0x00, 0xFF, 0x1A, 0x09])
        XCTAssertEqual(ByteEncodings.bytes(hex: "".utf8), [])
        for text in ["0", "0g", "zz", "12 4", "é1"] {
            XCTAssertNil(ByteEncodings.bytes(hex: text.utf8), text)
        }
        XCTAssertEqual(ByteEncodings.hexDigit(UInt8(ascii: "B")), 11)
        XCTAssertNil(ByteEncodings.hexDigit(UInt8(ascii: "G")))
    }

    func testBase64URLRoundTripsWithoutPaddingOrURLSpecialCharacters() {
        XCTAssertEqual(ByteEncodings.base64URL([0xFB, 0xFF]), "-_8")
        for bytes in [[], [0x00], [0xFB, 0xFF, 0xBF], Array("周杰伦/叶惠美 & co".utf8)] as [[UInt8]] {
            let text = ByteEncodings.base64URL(bytes)
            XCTAssertFalse(text.contains { "+/=".contains($0) }, text)
            XCTAssertEqual(ByteEncodings.bytes(base64URL: text), Data(bytes))
        }
    }

    func testTextOutsideTheAlphabetOrOfNoWholeLengthIsNoBase64URL() {
        for text in ["a+b", "ab/c", "-_8=", "a", "ab c", "é"] {
            XCTAssertNil(ByteEncodings.bytes(base64URL: text), text)
        }
    }
}
