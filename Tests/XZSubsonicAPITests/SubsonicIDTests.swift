import XCTest
@testable import XZSubsonicAPI
final class SubsonicIDTests: XCTestCase {
    func testIdsRoundTripAndHostileTextIsNoId() {
        for id in [SubsonicID.song(5), .album(0), .folder("a/b ü"), .folder(""), .playlist("x&y"), .artist(Int64.max), .unknownAlbum(Int64.max)] {
            XCTAssertEqual(SubsonicID(id.text), id)
        }
        for text in ["so-", "pl-", "ar", "so--1", "so-99999999999999999999", "ua--1", "ua-9223372036854775808", "xx-1", "fo-..%2F", "so-1\u{0}", String(repeating: "a", count: 5000)] {
            XCTAssertNil(SubsonicID(text), text)
        }
    }
}
