import Foundation
import XCTest
import XZSystem

/// The catalogue's stored times: the same text ISO8601DateFormatter wrote before, read back exactly, and
/// anything not in that one form refused.
final class UTCStampTests: XCTestCase {
    func testWritesWhatISO8601DateFormatterWrote() {
        let formatter = ISO8601DateFormatter()
        for seconds in [0, 1_795_284_180, 1_709_251_199, 951_782_400, 4_102_444_799, -86_400, 1_700_000_000] {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds) + 0.75)
            XCTAssertEqual(UTCStamp.string(date), formatter.string(from: date), "\(seconds)")
        }
        XCTAssertEqual(UTCStamp.string(Date(timeIntervalSince1970: 1_795_284_180)), "2026-11-21T18:03:00Z")
    }

    func testReadsItsOwnStampsBack() {
        XCTAssertEqual(UTCStamp.date("2026-11-21T18:03:00Z"), Date(timeIntervalSince1970: 1_795_284_180))
        XCTAssertEqual(UTCStamp.date("2024-02-29T23:59:59Z"), Date(timeIntervalSince1970: 1_709_251_199))
        for seconds in stride(from: -2_000_000_000, through: 4_000_000_000, by: 86_399 * 37) {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            XCTAssertEqual(UTCStamp.date(UTCStamp.string(date)), date)
        }
    }

    func testRefusesAnythingElse() {
        for text in ["", "2026-11-21", "2026-11-21 18:03:00Z", "2026-11-21T18:03:00", "2026-11-21T18:03:00+00:00",
                     "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z", "2026-11-21T24:00:00Z", "2026-11-21T18:60:00Z",
                     "２０２６-11-21T18:03:00Z", "-026-11-21T18:03:00Z", "2026-11-21T18:03:00Z "] {
            XCTAssertNil(UTCStamp.date(text), text)
        }
    }

    func testDatesPastFourDigitYearsStayInThem() {
        XCTAssertEqual(UTCStamp.string(.distantFuture), "4001-01-01T00:00:00Z")
        XCTAssertEqual(UTCStamp.string(Date(timeIntervalSince1970: .infinity)), "9999-12-31T23:59:59Z")
        XCTAssertEqual(UTCStamp.string(Date(timeIntervalSince1970: -.infinity)), "0000-01-01T00:00:00Z")
        XCTAssertEqual(UTCStamp.string(Date(timeIntervalSince1970: .nan)), "1970-01-01T00:00:00Z")
    }
}
