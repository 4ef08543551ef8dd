import Foundation

// The decisions of a transfer as plain values, so they are tested without a network.

/// What the `.part` file holds, and what the server said about those bytes when they came.
package struct PartialDownload: Sendable, Equatable {
    package var bytesOnDisk: Int64
    /// Strong ETag, else Last-Modified, of the response the bytes came from; "" when there was none.
    package var validator: String
    /// Full size announced by that response, when known.
    package var expectedTotal: Int64?

    package init(bytesOnDisk: Int64 = 0, validator: String = "", expectedTotal: Int64? = nil) {
        self.bytesOnDisk = bytesOnDisk
        self.validator = validator
        self.expectedTotal = expectedTotal
    }
}

/// Status and headers of a response, header names lower-cased (first value wins).
package struct ResponseHead: Sendable, Equatable {
    package var status: Int
    package var headers: [String: String]

    package init(status: Int, headers: [String: String] = [:]) {
        self.status = status
        var lowered: [String: String] = [:]
        for (name, value) in headers where lowered[name.lowercased()] == nil { lowered[name.lowercased()] = value }
        self.headers = lowered
    }

    package subscript(name: String) -> String? { headers[name.lowercased()] }

    package var contentLength: Int64? { self["content-length"].flatMap { Int64($0.trimmingCharacters(in: .whitespaces)) } }

    /// What a later `If-Range` can send: a strong ETag (weak ones are not allowed there), else Last-Modified.
    package var validator: String {
        if let etag = self["etag"]?.trimmingCharacters(in: .whitespaces), !etag.isEmpty, !etag.hasPrefix("W/") {
            return etag
        }
        return self["last-modified"]?.trimmingCharacters(in: .whitespaces) ?? ""
    }
}

/// `Content-Range: bytes first-last/total` (total may be `*`), or `bytes */total` on a 416.
package struct ContentRange: Sendable, Equatable {
    package var first: Int64?
    package var last: Int64?
    package var total: Int64?

    package init?(_ text: String) {
        let value = text.trimmingCharacters(in: .whitespaces)
        guard value.lowercased().hasPrefix("bytes ") else { return nil }
        let spec = value.dropFirst(6).trimmingCharacters(in: .whitespaces)
        let halves = spec.split(separator: "/", maxSplits: 1).map(String.init)
        guard halves.count == 2 else { return nil }
        if halves[1] == "*" { total = nil } else {
            guard let t = Int64(halves[1]), t >= 0 else { return nil }
            total = t
        }
        if halves[0] == "*" { first = nil; last = nil; return }
        let ends = halves[0].split(separator: "-", maxSplits: 1).map(String.init)
        guard ends.count == 2, let f = Int64(ends[0]), let l = Int64(ends[1]), f >= 0, l >= f else { return nil }
        if let total, l >= total { return nil }
        first = f
        last = l
    }
}

package enum ResumePlan {
    /// Range headers for the next request: resume only bytes we have, and only if they are unchanged.
    package static func requestHeaders(for partial: PartialDownload) -> [(String, String)] {
        guard partial.bytesOnDisk > 0 else { return [] }
        var headers = [("Range", "bytes=\(partial.bytesOnDisk)-")]
        if !partial.validator.isEmpty { headers.append(("If-Range", partial.validator)) }
        return headers
    }

    /// What of a `.part` can be trusted for a resume. Bytes whose version cannot be checked — no
    /// validator and no known size — or more bytes than the file has are fetched again from zero.
    package static func resumable(_ partial: PartialDownload) -> PartialDownload {
        guard partial.bytesOnDisk > 0 else { return PartialDownload() }
        if partial.validator.isEmpty, partial.expectedTotal == nil { return PartialDownload() }
        if let total = partial.expectedTotal, partial.bytesOnDisk > total { return PartialDownload() }
        return partial
    }

    package enum Decision: Sendable, Equatable {
        /// Discard the `.part` and write this body from its first byte.
        case writeFromStart(total: Int64?)
        /// Append this body to the `.part` at `offset`.
        case append(offset: Int64, total: Int64)
        /// The `.part` already holds the whole file.
        case complete(total: Int64)
        /// The body cannot be used; discard the `.part` and ask again without Range.
        case restartWithoutRange(reason: String)
        case redirect(location: String)
        case retry(DownloadError, retryAfter: Double?)
        case fail(DownloadError)
    }

    /// What to do with a response to a request made with `requestHeaders(for: partial)`.
    package static func decide(_ head: ResponseHead, partial: PartialDownload, url: String, now: Date = Date()) -> Decision {
        let status = head.status
        switch status {
        case 206:
            guard let range = head["content-range"].flatMap(ContentRange.init), let first = range.first,
                  let last = range.last, let total = range.total else {
                return .restartWithoutRange(reason: "partial answer without a usable Content-Range")
            }
            // Only the exact continuation of what we hold, of a file the same size as before, can be spliced.
            guard first == partial.bytesOnDisk else {
                return .restartWithoutRange(reason: "asked for bytes from \(partial.bytesOnDisk), got \(first)-\(last)/\(total)")
            }
            // A server that ignores If-Range still names the version it sends.
            if !partial.validator.isEmpty, !head.validator.isEmpty, head.validator != partial.validator {
                return .restartWithoutRange(reason: "file changed on the server (\(partial.validator) → \(head.validator))")
            }
            if let expected = partial.expectedTotal, expected != total, partial.bytesOnDisk > 0 {
                return .restartWithoutRange(reason: "file size changed from \(expected) to \(total)")
            }
            if let length = head.contentLength, length != last - first + 1 {
                return .restartWithoutRange(reason: "Content-Length \(length) does not match Content-Range \(first)-\(last)")
            }
            return .append(offset: first, total: total)
        case 416:
            if partial.bytesOnDisk > 0, let range = head["content-range"].flatMap(ContentRange.init),
               range.total == partial.bytesOnDisk,
               partial.expectedTotal == nil || partial.expectedTotal == partial.bytesOnDisk {
                return .complete(total: partial.bytesOnDisk)
            }
            return .restartWithoutRange(reason: "server refused the range from \(partial.bytesOnDisk)")
        case 200 ..< 300:
            // A 200 to a Range request means Range was ignored or If-Range did not match: start over.
            return .writeFromStart(total: head.contentLength)
        case 301, 302, 303, 307, 308:
            guard let location = head["location"], !location.isEmpty else {
                return .fail(DownloadError.redirect("HTTP \(status) without a Location for \(url)"))
            }
            return .redirect(location: location)
        // A request timeout or a busy server may answer next time; every other 4xx would say the same.
        case 408, 429, 503:
            let after = head["retry-after"].flatMap { RetryPolicy.parseRetryAfter($0, now: now) }
            return .retry(DownloadError.http(status, "HTTP \(status) \(reason(status)) from \(url)"), retryAfter: after)
        case 500 ..< 600:
            return .retry(DownloadError.http(status, "HTTP \(status) \(reason(status)) from \(url)"), retryAfter: nil)
        default:
            return .fail(DownloadError.http(status, "HTTP \(status) \(reason(status)) from \(url)"))
        }
    }

    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 410: return "Gone"
        case 416: return "Range Not Satisfiable"
        case 408: return "Request Timeout"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return status >= 500 ? "Server Error" : "Error"
        }
    }
}

/// Exponential backoff with jitter; Retry-After wins when the server gives one.
package struct RetryPolicy: Sendable, Equatable {
    package var retries: Int
    package var initialBackoff: Double
    package var maxBackoff: Double
    package var maxRetryAfter: Double

    package init(retries: Int, initialBackoff: Double = 0.5, maxBackoff: Double = 30, maxRetryAfter: Double = 300) {
        self.retries = retries
        self.initialBackoff = initialBackoff
        self.maxBackoff = maxBackoff
        self.maxRetryAfter = maxRetryAfter
    }

    package init(_ settings: DownloadSettings) {
        self.init(retries: settings.retries, initialBackoff: settings.initialBackoff,
                  maxBackoff: settings.maxBackoff, maxRetryAfter: settings.maxRetryAfter)
    }

    /// Seconds to wait before the next attempt after `failures` failed attempts in a row, or nil
    /// to give up. `jitter` in 0..<1 spreads the wait over [half, full] of the step, so clients
    /// that failed together do not come back together.
    package func delay(failures: Int, retryAfter: Double?, jitter: Double) -> Double? {
        guard failures >= 1, failures <= retries else { return nil }
        if let retryAfter { return min(max(0, retryAfter), maxRetryAfter) }
        let step = min(maxBackoff, initialBackoff * pow(2, Double(failures - 1)))
        return step / 2 + step / 2 * min(max(jitter, 0), 1)
    }

    /// `Retry-After: 120` or `Retry-After: Wed, 21 Oct 2015 07:28:00 GMT`.
    package static func parseRetryAfter(_ value: String, now: Date = Date()) -> Double? {
        let text = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Double(text), seconds >= 0, seconds.isFinite { return seconds }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: text) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}

/// The URLs a download may start from.
package enum DownloadURL {
    /// Only http and https with a host.
    package static func checked(_ text: String) throws -> URL {
        guard let url = URL(string: text.trimmingCharacters(in: .whitespaces)),
              let scheme = url.scheme?.lowercased() else {
            throw DownloadError.unsupportedURL("not a URL: \(text)")
        }
        guard scheme == "http" || scheme == "https" else {
            throw DownloadError.unsupportedURL("only http and https can be downloaded, not \(scheme): \(text)")
        }
        guard let host = url.host, !host.isEmpty else { throw DownloadError.unsupportedURL("URL without a host: \(text)") }
        return url
    }
}
