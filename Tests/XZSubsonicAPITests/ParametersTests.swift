import Foundation
import XCTest
@testable import XZSubsonicAPI

/// Parameters read into their domains: missing is 10 naming it, out of range or unparsable is 0, a
/// malformed id is 70, and no long or NUL value gets through. Numbers past 64 bits never trap.
final class ParametersTests: XCTestCase {
    private func request(_ pairs: [(String, String)]) -> SubsonicRequest {
        SubsonicRequest(endpoint: "test", parameters: pairs.map { (name: $0.0, value: $0.1) }, clientAddress: "127.0.0.1")
    }

    private func code(_ body: () throws -> Any?) -> Int? {
        do {
            _ = try body()
            return nil
        } catch let error as SubsonicError {
            return error.code
        } catch {
            XCTFail("not an API error: \(error)")
            return -1
        }
    }

    func testRequiredTextNamesTheMissingParameter() throws {
        let r = request([("query", "王菲"), ("empty", "")])
        XCTAssertEqual(try r.required("query"), "王菲")
        XCTAssertEqual(try r.required("empty"), "")
        XCTAssertThrowsError(try r.required("username")) { error in
            XCTAssertEqual((error as? SubsonicError)?.code, 10)
            XCTAssertTrue("\(error)".contains("'username'"))
        }
        XCTAssertNil(try r.text("username"))
    }

    func testLongAndNULValuesAreRefused() {
        let long = String(repeating: "a", count: SubsonicParameterLimits.maxValueBytes + 1)
        let r = request([("a", long), ("b", "x\u{0}y"), ("c", String(repeating: "b", count: SubsonicParameterLimits.maxValueBytes))])
        XCTAssertEqual(code { try r.text("a") }, 0)
        XCTAssertEqual(code { try r.required("b") }, 0)
        XCTAssertEqual(code { try r.id("b") }, 0)
        XCTAssertEqual(code { try r.texts("a") }, 0)
        XCTAssertNil(code { try r.text("c") })
        XCTAssertEqual(code { try r.int("a", default: 0, in: 0...10) }, 0)
    }

    func testIntegersInTheirDomainAndNeverATrap() throws {
        let r = request([("size", "20"), ("big", "4294967296"), ("huge", "99999999999999999999999"), ("tiny", "-99999999999999999999999"),
                         ("min", "-9223372036854775808"), ("max", "9223372036854775807"), ("past", "9223372036854775808"),
                         ("word", "ten"), ("space", " 1"), ("plus", "+5"), ("sign", "-"), ("float", "1.5")])
        XCTAssertEqual(try r.int("size", default: 10, in: 0...500), 20)
        XCTAssertEqual(try r.int("absent", default: 10, in: 0...500), 10)
        for name in ["big", "huge", "tiny", "past"] {
            XCTAssertEqual(code { try r.int(name, default: 0, in: 0...500) }, 0, name)
        }
        XCTAssertEqual(code { try r.int("word", default: 0, in: 0...500) }, 0)
        XCTAssertEqual(code { try r.int("space", default: 0, in: 0...500) }, 0)
        XCTAssertEqual(code { try r.int("sign", default: 0, in: 0...500) }, 0)
        XCTAssertEqual(code { try r.int("float", default: 0, in: 0...500) }, 0)
        XCTAssertEqual(try r.int("plus", default: 0, in: 0...500), 5)
        XCTAssertEqual(try r.int64("big", default: 0, in: 0...Int64.max), 4_294_967_296)
        XCTAssertEqual(try r.int64("min", default: 0, in: Int64.min...Int64.max), Int64.min)
        XCTAssertEqual(try r.int64("max", default: 0, in: Int64.min...Int64.max), Int64.max)
        XCTAssertEqual(code { try r.int64("past", default: 0, in: Int64.min...Int64.max) }, 0)
        // Counts clamp into their domain, past 64 bits too; words are still refused.
        XCTAssertEqual(try r.clampedInt("big", default: 10, in: 0...500), 500)
        XCTAssertEqual(try r.clampedInt("huge", default: 10, in: 0...500), 500)
        XCTAssertEqual(try r.clampedInt("tiny", default: 10, in: 0...500), 0)
        XCTAssertEqual(try r.clampedInt("size", default: 10, in: 0...500), 20)
        XCTAssertEqual(code { try r.clampedInt("word", default: 0, in: 0...500) }, 0)
    }

    func testBooleansNumbersAndDates() throws {
        let r = request([("yes", "TRUE"), ("one", "1"), ("no", "false"), ("maybe", "yes"), ("gain", "0.5"), ("nan", "nan"),
                         ("inf", "1e400"), ("time", "1700000000123"), ("negative", "-1"), ("far", "253402300800000")])
        XCTAssertEqual(try r.bool("yes", default: false), true)
        XCTAssertEqual(try r.bool("one", default: false), true)
        XCTAssertEqual(try r.bool("no", default: true), false)
        XCTAssertEqual(try r.bool("absent", default: true), true)
        XCTAssertEqual(code { try r.bool("maybe", default: false) }, 0)
        XCTAssertEqual(try r.double("gain", default: 1, in: 0...1), 0.5)
        XCTAssertEqual(code { try r.double("nan", default: 1, in: 0...1) }, 0)
        XCTAssertEqual(code { try r.double("inf", default: 1, in: 0...1) }, 0)
        XCTAssertEqual(try r.date("time")?.timeIntervalSince1970 ?? 0, 1_700_000_000.123, accuracy: 0.0005)
        XCTAssertNil(try r.date("absent"))
        XCTAssertEqual(code { try r.date("negative") }, 0)
        XCTAssertEqual(code { try r.date("far") }, 0)
    }

    func testIdsAreTheirKindOrNotFound() throws {
        let r = request([("id", "so-12"), ("id", "al-3"), ("bad", "../../etc/passwd"), ("folder", SubsonicID.folder("a/b").text),
                         ("overflow", "so-99999999999999999999"), ("sign", "so--1"), ("nul", "so-1\u{0}")])
        XCTAssertEqual(try r.id("id"), .song(12))
        XCTAssertEqual(try r.ids("id"), [.song(12), .album(3)])
        XCTAssertEqual(try r.ids("absent"), [])
        XCTAssertEqual(try r.id("folder"), .folder("a/b"))
        XCTAssertNil(try r.optionalID("absent"))
        XCTAssertEqual(code { try r.id("absent") }, 10)
        for name in ["bad", "overflow", "sign"] {
            XCTAssertEqual(code { try r.id(name) }, 70, name)
        }
        XCTAssertEqual(code { try r.id("nul") }, 0)
        XCTAssertEqual(code { try request([("id", "so-1"), ("id", "nope")]).ids("id") }, 70)
    }

    func testACallReadsItsRequest() throws {
        let r = request([("count", "7")])
        XCTAssertEqual(try r.int("count", default: 0, in: 0...10), 7)
        XCTAssertEqual(r.values("count"), ["7"])
    }
}
