import Foundation
import XCTest
import XZSystem

/// Wrong credentials from an address hold back that address's next attempts, longer each time and up
/// to a cap; other addresses are not held, and the table of addresses stays bounded.
final class CredentialThrottleTests: XCTestCase {
    func testASecondWrongAttemptFromTheSameAddressIsHeldButNotAnotherAddresss() {
        let throttle = CredentialThrottle()
        XCTAssertEqual(throttle.delay(for: "192.0.2.1"), .zero, "a first attempt is not held")
        XCTAssertEqual(throttle.recordFailure(from: "192.0.2.1"), .milliseconds(250))
        XCTAssertEqual(throttle.delay(for: "192.0.2.1"), .milliseconds(250), "the next attempt waits")
        XCTAssertEqual(throttle.delay(for: "192.0.2.2"), .zero, "another address does not")
        XCTAssertEqual(throttle.recordFailure(from: "192.0.2.1"), .milliseconds(500))
        XCTAssertEqual(throttle.recordFailure(from: "192.0.2.1"), .seconds(1))
        for _ in 0..<100 { throttle.recordFailure(from: "192.0.2.1") }
        XCTAssertEqual(throttle.delay(for: "192.0.2.1"), .seconds(16), "the wait stops growing")
        throttle.recordSuccess(from: "192.0.2.1")
        XCTAssertEqual(throttle.delay(for: "192.0.2.1"), .zero, "right credentials end the wait")
    }

    func testMPDsScheduleIsTheSame() {
        XCTAssertEqual((0...4).map(CredentialThrottle.delay(afterFailures:)),
                       [.zero, .milliseconds(250), .milliseconds(500), .seconds(1), .seconds(2)])
        XCTAssertEqual(CredentialThrottle.delay(afterFailures: Int.max), .seconds(16))
        XCTAssertEqual(CredentialThrottle.delay(afterFailures: Int.min), .zero)
    }

    func testOldFailuresAreForgottenAndTheTableIsCapped() {
        let clock = SettableClock()
        let throttle = CredentialThrottle(capacity: 3, forgetAfter: .seconds(60), now: { clock.now })
        throttle.recordFailure(from: "a")
        clock.advance(.seconds(1))
        for address in ["b", "c", "d"] { throttle.recordFailure(from: address) }
        XCTAssertEqual(throttle.rememberedAddresses, 3)
        XCTAssertEqual(throttle.delay(for: "a"), .zero, "the oldest address made room")
        XCTAssertEqual(throttle.delay(for: "d"), .milliseconds(250))
        clock.advance(.seconds(61))
        XCTAssertEqual(throttle.delay(for: "d"), .zero, "a minute without failures starts over")
        XCTAssertEqual(throttle.recordFailure(from: "d"), .milliseconds(250))
        for index in 0..<10_000 { throttle.recordFailure(from: "198.51.100.\(index)") }
        XCTAssertEqual(throttle.rememberedAddresses, 3)
    }
}

private final class SettableClock: Sendable {
    private let instant = Mutex(ContinuousClock.now)
    var now: ContinuousClock.Instant { instant.withLock { $0 } }
    func advance(_ duration: Duration) { instant.withLock { $0 += duration } }
}
