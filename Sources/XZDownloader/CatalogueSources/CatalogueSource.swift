import AsyncHTTPClient
import Foundation
import XZCatalogue
import XZSystem

/// An open catalogue reachable without an account: turns a search into catalogue songs. One file per source.
package protocol CatalogueSource: Sendable {
    /// The name commands take ("archive").
    var name: String { get }
    func search(_ query: String, limit: Int, http: SourceHTTP) async throws -> [CatalogueSong]
}

package enum CatalogueSources {
    package static let names = ["archive", "jamendo", "ccmixter"]

    /// The source called `name`, its address from the settings; an unknown name is an error listing the known ones.
    package static func named(_ name: String, settings: DownloadSettings) throws -> any CatalogueSource {
        switch name.lowercased() {
        case "archive": return InternetArchiveSource(base: settings.archiveURL)
        case "jamendo": return JamendoSource(base: settings.jamendoURL, clientID: settings.jamendoClientID)
        case "ccmixter": return CCMixterSource(base: settings.ccmixterURL)
        default:
            throw DownloadError.catalogueSource("no catalogue source \"\(name)\"; the sources are \(names.joined(separator: ", "))")
        }
    }
}

/// Searches open catalogues over an HTTP client of its own; call `shutdown()` when done.
package final class CatalogueSearcher: Sendable {
    private let client: HTTPClient
    private let http: SourceHTTP
    private let settings: DownloadSettings

    package init(settings: DownloadSettings) {
        let connect = Int64(min(10_000, max(1, settings.idleTimeout * 1000)))
        let timeout = HTTPClient.Configuration.Timeout(connect: .milliseconds(connect),
                                                       read: .milliseconds(Int64(settings.idleTimeout * 1000)))
        var configuration = HTTPClient.Configuration(redirectConfiguration: Fetcher.redirects, timeout: timeout)
        configuration.connectionPool.retryConnectionEstablishment = false
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
        http = SourceHTTP(fetcher: Fetcher(client: client, settings: settings))
        self.settings = settings
    }

    /// At most `limit` songs from `source`; a source that is down or answers junk is one error, nothing else.
    package func search(source name: String, query: String, limit: Int) async throws -> [CatalogueSong] {
        let source = try CatalogueSources.named(name, settings: settings)
        return Array(try await source.search(query, limit: limit, http: http).prefix(limit))
    }

    package func shutdown() async {
        try? await client.shutdown()
    }
}

/// One GET of a JSON answer, no retries: a search is asked again by its user, and a source that is down
/// should say so at once.
package struct SourceHTTP: Sendable {
    let fetcher: Fetcher

    /// The answer as JSON values (numbers with leading zeros read as numbers), or an error naming the source.
    func json(_ url: URL, source: String) async throws -> Any {
        let live = LiveProgress(interval: 1)
        let fetcher = fetcher
        let head: ResponseHead
        let data: Data
        do {
            (head, data) = try await fetcher.withIdleTimeout(live, url: url) { try await fetcher.fetchSmall(url, live: live) }
        } catch let failure as RetryableFailure {
            throw failure.error("\(source): \(failure.error.description)")
        } catch let error as DownloadError {
            throw error("\(source): \(error.description)")
        }
        let host = url.host ?? url.absoluteString
        guard head.status == 200 else {
            throw DownloadError.http(head.status, "\(source): \(host) answered HTTP \(head.status)")
        }
        guard let value = try? JSONSerialization.jsonObject(with: LenientJSON.normalized(data), options: [.fragmentsAllowed]),
              value is [String: Any] || value is [Any] else {
            let type = head.headers["content-type"].map { " (\($0))" } ?? ""
            throw DownloadError.catalogueSource("\(source): \(host) answered something other than JSON\(type)")
        }
        return value
    }

    /// `base` + `path` with the query's values percent-encoded.
    static func url(_ base: String, _ path: String, _ query: [(String, String)], source: String) throws -> URL {
        var trimmed = base
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard var components = URLComponents(string: trimmed + path) else {
            throw DownloadError.unsupportedURL("\(source): bad address \(base)")
        }
        components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) }
        // "+" means a space to these servers' query parsers.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw DownloadError.unsupportedURL("\(source): bad address \(base)") }
        return url
    }
}

/// Reading loosely typed JSON values the way these services write them.
enum JSONValue {
    static func text(_ value: Any?) -> String? {
        switch value {
        case let text as String: return text.trimmingCharacters(in: .whitespacesAndNewlines)
        case let number as NSNumber: return number.stringValue
        case let list as [Any]: return list.compactMap { text($0) }.first
        default: return nil
        }
    }

    static func int(_ value: Any?) -> Int64? {
        switch value {
        case let number as NSNumber: return number.int64Value
        case let text as String: return Int64(text.trimmingCharacters(in: .whitespaces))
        default: return nil
        }
    }

    /// Seconds as "215", "215.4", "3:35" or "1:03:35", in milliseconds.
    static func durationMs(_ value: Any?) -> Int? {
        // A feed's number: 1e300 or NaN is no length.
        if let number = value as? NSNumber {
            let seconds = number.doubleValue
            return seconds.isFinite && seconds >= 0 && seconds <= 360_000 ? Int(clamping: seconds * 1000) : nil
        }
        guard let text = text(value), !text.isEmpty else { return nil }
        var seconds = 0.0
        for part in text.split(separator: ":") {
            guard let value = Double(part), value >= 0 else { return nil }
            seconds = seconds * 60 + value
        }
        return seconds <= 360_000 ? Int((seconds * 1000).rounded()) : nil
    }

    /// The year at the start of a date ("2009-04-01", "2009").
    static func year(_ value: Any?) -> Int? {
        guard let text = text(value), text.count >= 4, let year = Int(text.prefix(4)), (1...9999).contains(year) else { return nil }
        return year
    }
}

/// JSON as some services write it, with numbers such as `007`, made acceptable to a strict parser by
/// dropping the leading zeros of numbers outside strings.
enum LenientJSON {
    static func normalized(_ data: Data) -> Data {
        var output = [UInt8]()
        output.reserveCapacity(data.count)
        var inString = false
        var escaped = false
        let bytes = [UInt8](data)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if inString {
                output.append(byte)
                if escaped { escaped = false } else if byte == 0x5C { escaped = true } else if byte == 0x22 { inString = false }
                index += 1
                continue
            }
            if byte == 0x22 { inString = true }
            // A number starts here when the byte before it is no part of a token.
            let startsNumber = (byte >= 0x30 && byte <= 0x39)
                && (output.last.map { !Self.isTokenByte($0) } ?? true)
            if startsNumber {
                var end = index
                while end + 1 < bytes.count, bytes[end] == 0x30, bytes[end + 1] >= 0x30, bytes[end + 1] <= 0x39 { end += 1 }
                index = end
            }
            output.append(bytes[index])
            index += 1
        }
        return Data(output)
    }

    private static func isTokenByte(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || byte == 0x2E || byte == 0x65 || byte == 0x45 || byte == 0x2B
            || (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A)
    }
}
