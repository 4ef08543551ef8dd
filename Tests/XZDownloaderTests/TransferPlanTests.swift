import Foundation
import XCTest
@testable import XZDownloader

/// The resume, retry and redirect decisions, without any I/O.
final class TransferPlanTests: XCTestCase {
    let url = "http://example.test/a.mp3"

    func testFreshDownloadSendsNoRange() {
        XCTAssertTrue(ResumePlan.requestHeaders(for: PartialDownload()).isEmpty)
    }

    func testResumeSendsRangeAndIfRange() {
        let headers = ResumePlan.requestHeaders(for: PartialDownload(bytesOnDisk: 1000, validator: "\"abc\"", expectedTotal: 5000))
        XCTAssertEqual(headers.map(\.0), ["Range", "If-Range"])
        XCTAssertEqual(headers.map(\.1), ["bytes=1000-", "\"abc\""])
    }

    func testUncheckablePartStartsOver() {
        XCTAssertEqual(ResumePlan.resumable(PartialDownload(bytesOnDisk: 10)), PartialDownload())
        XCTAssertEqual(ResumePlan.resumable(PartialDownload(bytesOnDisk: 10, expectedTotal: 5)), PartialDownload())
        let sizeOnly = PartialDownload(bytesOnDisk: 10, expectedTotal: 50)
        XCTAssertEqual(ResumePlan.resumable(sizeOnly), sizeOnly)
    }

    func testValidatorPrefersStrongETag() {
        XCTAssertEqual(ResponseHead(status: 200, headers: ["ETag": "\"x\"", "Last-Modified": "d"]).validator, "\"x\"")
        XCTAssertEqual(ResponseHead(status: 200, headers: ["ETag": "W/\"x\"", "Last-Modified": "d"]).validator, "d")
        XCTAssertEqual(ResponseHead(status: 200).validator, "")
    }

    func testMatching206Appends() {
        let partial = PartialDownload(bytesOnDisk: 100, validator: "\"v\"", expectedTotal: 1000)
        let head = ResponseHead(status: 206, headers: ["Content-Range": "bytes 100-999/1000", "Content-Length": "900", "ETag": "\"v\""])
        XCTAssertEqual(ResumePlan.decide(head, partial: partial, url: url), .append(offset: 100, total: 1000))
    }

    func testMismatched206Restarts() {
        let partial = PartialDownload(bytesOnDisk: 100, validator: "\"v\"", expectedTotal: 1000)
        let cases: [[String: String]] = [
            ["Content-Range": "bytes 0-999/1000"],                  // wrong start
            ["Content-Range": "bytes 100-1099/1100"],               // size changed
            ["Content-Range": "bytes 100-999/1000", "ETag": "\"w\""], // another version, If-Range ignored
            ["Content-Range": "bytes 100-999/1000", "Content-Length": "10"],
            [:],                                                    // no Content-Range
            ["Content-Range": "bytes 100-999/*"],
        ]
        for headers in cases {
            guard case .restartWithoutRange = ResumePlan.decide(ResponseHead(status: 206, headers: headers), partial: partial, url: url) else {
                return XCTFail("\(headers) should restart")
            }
        }
    }

    func testIgnoredRangeRestartsFromZero() {
        let partial = PartialDownload(bytesOnDisk: 100, validator: "\"v\"", expectedTotal: 1000)
        XCTAssertEqual(ResumePlan.decide(ResponseHead(status: 200, headers: ["Content-Length": "1000"]), partial: partial, url: url),
                       .writeFromStart(total: 1000))
    }

    func test416WithWholeFileIsComplete() {
        let partial = PartialDownload(bytesOnDisk: 1000, validator: "\"v\"", expectedTotal: 1000)
        XCTAssertEqual(ResumePlan.decide(ResponseHead(status: 416, headers: ["Content-Range": "bytes */1000"]), partial: partial, url: url),
                       .complete(total: 1000))
        guard case .restartWithoutRange = ResumePlan.decide(ResponseHead(status: 416, headers: ["Content-Range": "bytes */2000"]),
                                                            partial: partial, url: url) else { return XCTFail() }
    }

    func testStatusClasses() {
        let none = PartialDownload()
        let now = Date(timeIntervalSince1970: 1_000_000)
        let tooMany = ResumePlan.decide(ResponseHead(status: 429, headers: ["Retry-After": "7"]), partial: none, url: url, now: now)
        XCTAssertEqual(tooMany, .retry(.http(429), retryAfter: 7))
        guard case .retry(let limited, _) = tooMany else { return XCTFail() }
        XCTAssertEqual(limited.description, "HTTP 429 Too Many Requests from \(url)")
        guard case .retry(_, nil) = ResumePlan.decide(ResponseHead(status: 500), partial: none, url: url) else { return XCTFail() }
        guard case .retry(_, 3) = ResumePlan.decide(ResponseHead(status: 503, headers: ["retry-after": "3"]), partial: none, url: url)
        else { return XCTFail() }
        guard case .fail(let error) = ResumePlan.decide(ResponseHead(status: 404), partial: none, url: url) else { return XCTFail() }
        XCTAssertEqual(error, .http(404))
        XCTAssertEqual(error.httpStatus, 404)
        XCTAssertTrue(error.description.contains("404"))
        guard case .fail = ResumePlan.decide(ResponseHead(status: 403), partial: none, url: url) else { return XCTFail() }
        guard case .retry(let timedOut, nil) = ResumePlan.decide(ResponseHead(status: 408), partial: none, url: url)
        else { return XCTFail("a request timeout is transient") }
        XCTAssertEqual(timedOut.description, "HTTP 408 Request Timeout from \(url)")
        XCTAssertEqual(ResumePlan.decide(ResponseHead(status: 301, headers: ["Location": "/b"]), partial: none, url: url),
                       .redirect(location: "/b"))
    }

    func testContentRangeParsing() {
        XCTAssertEqual(ContentRange("bytes 0-9/10"), ContentRange("bytes 0-9/10"))
        XCTAssertEqual(ContentRange("bytes 5-9/10")?.first, 5)
        XCTAssertEqual(ContentRange("bytes */10")?.total, 10)
        XCTAssertNil(ContentRange("bytes 5-10/10"))
        XCTAssertNil(ContentRange("bytes 9-5/10"))
        XCTAssertNil(ContentRange("items 0-1/2"))
        XCTAssertNil(ContentRange("bytes x-1/2"))
    }

    func testBackoffGrowsWithJitterAndGivesUp() {
        let policy = RetryPolicy(retries: 4, initialBackoff: 1, maxBackoff: 5)
        XCTAssertEqual(policy.delay(failures: 1, retryAfter: nil, jitter: 0), 0.5)
        XCTAssertEqual(policy.delay(failures: 1, retryAfter: nil, jitter: 0.999)!, 1, accuracy: 0.01)
        XCTAssertEqual(policy.delay(failures: 2, retryAfter: nil, jitter: 0), 1)
        XCTAssertEqual(policy.delay(failures: 3, retryAfter: nil, jitter: 0), 2)
        XCTAssertEqual(policy.delay(failures: 4, retryAfter: nil, jitter: 1), 5) // capped
        XCTAssertNil(policy.delay(failures: 5, retryAfter: nil, jitter: 0))
        XCTAssertNil(RetryPolicy(retries: 0).delay(failures: 1, retryAfter: nil, jitter: 0))
    }

    func testRetryAfterWinsButIsCapped() {
        let policy = RetryPolicy(retries: 2, initialBackoff: 1, maxBackoff: 5, maxRetryAfter: 60)
        XCTAssertEqual(policy.delay(failures: 1, retryAfter: 12, jitter: 0.5), 12)
        XCTAssertEqual(policy.delay(failures: 1, retryAfter: 3600, jitter: 0.5), 60)
    }

    func testRetryAfterFormats() {
        let now = Date(timeIntervalSince1970: 1_445_412_470) // Wed, 21 Oct 2015 07:27:50 GMT
        XCTAssertEqual(RetryPolicy.parseRetryAfter("120"), 120)
        XCTAssertEqual(RetryPolicy.parseRetryAfter("Wed, 21 Oct 2015 07:28:00 GMT", now: now), 10)
        XCTAssertNil(RetryPolicy.parseRetryAfter("soon"))
    }

    func testOnlyHTTPAndHTTPS() throws {
        XCTAssertNoThrow(try DownloadURL.checked("https://a.test/x"))
        for bad in ["ftp://a.test/x", "file:///etc/passwd", "javascript:alert(1)", "/relative", "http:///nohost"] {
            XCTAssertThrowsError(try DownloadURL.checked(bad), bad) { error in
                XCTAssertEqual(error as? DownloadError, .unsupportedURL, bad)
            }
        }
    }
}
