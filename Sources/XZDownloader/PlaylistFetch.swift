import Foundation

extension DownloadManager {
    /// A remote playlist's body and Content-Type: one GET through the downloader's client (redirects
    /// followed up to its cap, never in a loop), at most `maxBytes`, within `seconds` in all, and the
    /// client's idle and slow-server rules meanwhile. Each failure is one line naming the URL.
    package nonisolated func fetchPlaylist(_ text: String, maxBytes: Int, seconds: Double) async throws
        -> (data: Data, contentType: String?) {
        let url = try DownloadURL.checked(text)
        let fetcher = self.fetcher
        let live = LiveProgress(interval: 1)
        let fetched: (ResponseHead, Data)?
        do {
            fetched = try await withThrowingTaskGroup(of: (ResponseHead, Data)?.self) { group in
                group.addTask {
                    try await fetcher.withIdleTimeout(live, url: url) { try await fetcher.fetchSmall(url, limit: maxBytes, live: live) }
                }
                group.addTask {
                    try await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
                    return nil
                }
                defer { group.cancelAll() }
                return try await group.next() ?? nil
            }
        } catch let failure as RetryableFailure {
            throw failure.error("\(text): \(failure.error.description)")
        } catch let error as DownloadError {
            throw error("\(text): \(error.description)")
        }
        guard let (head, data) = fetched else {
            throw DownloadError.timeout("\(text): no whole answer within \(Fetcher.seconds(seconds))")
        }
        guard (200..<300).contains(head.status) else {
            throw DownloadError.http(head.status, "\(text): \(url.host ?? text) answered HTTP \(head.status)")
        }
        return (data, head.headers["content-type"])
    }
}
