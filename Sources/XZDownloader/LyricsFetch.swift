import AsyncHTTPClient
import Foundation
import XZCatalogue
import XZSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A song to look lyrics up for, as the lookup needs it.
package struct LyricsLookup: Sendable, Equatable {
    package var songKey: String
    package var title: String
    package var singer: String
    package var album: String?
    package var durationMs: Int?

    package init(songKey: String, title: String, singer: String, album: String?, durationMs: Int?) {
        self.songKey = songKey
        self.title = title
        self.singer = singer
        self.album = album
        self.durationMs = durationMs
    }

    package init(_ song: Song) {
        self.init(songKey: song.songKey, title: song.title, singer: song.singer, album: song.album, durationMs: song.durationMs)
    }
}

/// What one lookup came to.
package enum LyricsLookupResult: Sendable, Equatable {
    /// The server answered; `via` is `get` or `search`.
    case found(FetchedLyrics, via: String)
    /// No answer. `stopsRun` says the server cannot be reached at all (its name does not resolve,
    /// nothing listens), so the songs after it are not asked either.
    case failed(DownloadError, stopsRun: Bool)
}

/// Bulk lookups on an LRCLIB-compatible server: `/api/get` with title, artist, album and duration, then
/// `/api/search`, at most `lyricsConcurrency` at once. Network only: the caller keeps the results.
package final class LyricsFetch: Sendable {
    private let fetcher: Fetcher

    package init(settings: DownloadSettings) {
        fetcher = Fetcher(client: Fetcher.makeClient(settings), settings: settings)
    }

    /// Closes the client's connections; call once the results are read.
    package func shutdown() async {
        try? await fetcher.client.shutdown()
    }

    /// Looks every song up, in order, yielding each result as it comes (not necessarily in order). After a
    /// failure that stops the run, the songs not yet asked fail with the same error without being asked.
    /// Ending the stream's iteration cancels the lookups still running.
    package func results(for songs: [LyricsLookup]) -> AsyncStream<(LyricsLookup, LyricsLookupResult)> {
        let (stream, continuation) = AsyncStream.makeStream(of: (LyricsLookup, LyricsLookupResult).self)
        let width = max(1, fetcher.settings.lyricsConcurrency)
        let task = Task {
            let stop = RunStop()
            await withTaskGroup(of: Void.self) { group in
                var next = 0
                func add() {
                    let song = songs[next]
                    next += 1
                    group.addTask {
                        if let error = stop.error.withLock({ $0 }) {
                            continuation.yield((song, .failed(error, stopsRun: false)))
                            return
                        }
                        let result = await self.lookUp(song)
                        if case .failed(let error, true) = result { stop.error.withLock { $0 = $0 ?? error } }
                        if Task.isCancelled { return }
                        continuation.yield((song, result))
                    }
                }
                while next < songs.count, next < width { add() }
                while await group.next() != nil {
                    if Task.isCancelled { break }
                    if next < songs.count { add() }
                }
                group.cancelAll()
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// One song: `/api/get` when album and duration are known, then `/api/search`.
    func lookUp(_ song: LyricsLookup) async -> LyricsLookupResult {
        do {
            let found = try await LyricsChoice.lookUp(song, server: fetcher.settings.lyricsServer) { try await fetchJSON($0) }
            return .found(Self.kept(found.outcome), via: found.via)
        } catch let failure as LookupFailure {
            return .failed(failure.error, stopsRun: failure.unreachable)
        } catch let error as DownloadError {
            return .failed(error, stopsRun: false)
        } catch {
            return .failed(DownloadError.lyrics("\(error)"), stopsRun: false)
        }
    }

    /// The failure that stops a run, shared by its lookups.
    private final class RunStop: Sendable {
        let error = Mutex<DownloadError?>(nil)
    }

    static func kept(_ outcome: LyricsOutcome, at date: Date = Date()) -> FetchedLyrics {
        switch outcome {
        case .lyrics(let text, let synced): FetchedLyrics(kind: synced ? .synced : .plain, text: text, fetchedAt: date)
        case .instrumental: FetchedLyrics(kind: .instrumental, fetchedAt: date)
        case .notFound: FetchedLyrics(kind: .notFound, fetchedAt: date)
        }
    }

    /// A failure and whether it came at once from a connection no retry can mend.
    private struct LookupFailure: Error {
        let error: DownloadError
        let unreachable: Bool
    }

    /// The JSON body of a 200, nil for a 404. 429 and 5xx are retried after Retry-After or a backoff;
    /// other statuses fail the song.
    private func fetchJSON(_ url: URL) async throws -> Data? {
        let fetcher = fetcher
        let live = LiveProgress(interval: fetcher.settings.progressInterval)
        var retried = false
        do {
            return try await fetcher.withRetries(live, url: url, onFailure: { _ in retried = true }) {
                let (head, data) = try await fetcher.fetchSmall(url, live: live)
                if head.status == 404 { return nil }
                try LyricsJob.check(head, url: url)
                return data
            }
        } catch let error as DownloadError {
            // Thrown before any retry and not an HTTP status: the connection itself cannot be made.
            throw LookupFailure(error: error, unreachable: !retried && error.httpStatus == nil && error == .network)
        }
    }
}

extension LyricsFetch {
    /// Writes synced lyrics as `<song>.lrc` beside the song's file (`lyrics_sidecar = yes`) through a
    /// temporary file and a rename. An existing file is kept: the user's own lyrics win. Returns the path
    /// written, nil when nothing was.
    package static func writeSidecar(_ lyrics: FetchedLyrics, song: Song) throws -> String? {
        guard lyrics.kind == .synced, song.isLocal else { return nil }
        let target = URL(fileURLWithPath: song.localPath).deletingPathExtension().appendingPathExtension("lrc").path
        guard !FileManager.default.fileExists(atPath: target) else { return nil }
        let temporary = target + ".part"
        let file = try PartFile(path: temporary, offset: 0)
        do {
            try Array(lyrics.text.utf8).withUnsafeBytes { try file.write($0) }
            guard rename(temporary, target) == 0 else {
                throw DownloadError.io("cannot write \(target): \(String(cString: strerror(errno)))")
            }
        } catch {
            unlink(temporary)
            throw error
        }
        return target
    }
}

extension Fetcher {
    /// The client a downloader owns: the caller's idle timeout watches stalls, the client's read
    /// timeout is only a backstop behind it.
    static func makeClient(_ settings: DownloadSettings) -> HTTPClient {
        let idle = Int64(max(1, settings.idleTimeout * 1000))
        // Connecting is no transfer: a host that takes more than 10 s to answer at all is as good as down.
        let timeout = HTTPClient.Configuration.Timeout(connect: .milliseconds(min(idle, 10_000)),
                                                       read: .milliseconds(idle * 2 + 1000))
        var configuration = HTTPClient.Configuration(redirectConfiguration: Fetcher.redirects, timeout: timeout)
        // A failed connection reaches `Fetcher.classify` at once: a name that does not resolve fails
        // there, other failures are retried by the download's own policy rather than the pool's.
        configuration.connectionPool.retryConnectionEstablishment = false
        // Internet radio: SHOUTcast v1 stations answer `ICY 200 OK`.
        configuration.http1_1ConnectionDebugInitializer = { ICYStatusLine.install(on: $0) }
        return HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }
}
