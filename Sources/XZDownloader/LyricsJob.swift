import Foundation
import GRDB
import XZCatalogue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One record as LRCLIB's `/api/get` and `/api/search` return it.
package struct LRCLIBRecord: Decodable, Sendable, Equatable {
    package var id: Int?
    package var trackName: String?
    package var artistName: String?
    package var albumName: String?
    package var duration: Double?
    package var instrumental: Bool?
    package var plainLyrics: String?
    package var syncedLyrics: String?

    package init(id: Int? = nil, trackName: String? = nil, artistName: String? = nil, albumName: String? = nil,
                duration: Double? = nil, instrumental: Bool? = nil, plainLyrics: String? = nil, syncedLyrics: String? = nil) {
        self.id = id; self.trackName = trackName; self.artistName = artistName; self.albumName = albumName
        self.duration = duration; self.instrumental = instrumental
        self.plainLyrics = plainLyrics; self.syncedLyrics = syncedLyrics
    }

    var synced: String? { syncedLyrics.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } }
    var plain: String? { plainLyrics.flatMap { $0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty ? nil : $0 } }
}

package enum LyricsOutcome: Sendable, Equatable {
    case lyrics(String, synced: Bool)
    case instrumental
    case notFound
}

/// The choice among lookup answers, as plain values.
package enum LyricsChoice {
    /// Seconds a candidate's duration may differ from the song's.
    package static let durationWindow = 2.0

    /// An exact `/api/get` answer for a song of unknown length: its lyrics, synced first. Synced lyrics
    /// whose last stamp is past the song's end (`songSeconds`) belong to another version of it: its plain
    /// lyrics are taken instead.
    package static func from(_ record: LRCLIBRecord, songSeconds: Double? = nil) -> LyricsOutcome {
        pick([record], durationSeconds: nil, songSeconds: songSeconds)
    }

    /// Candidates (an `/api/get` answer, `/api/search` results) of the song's length (`fitsDuration`): the
    /// first synced lyrics that end within the song, else the first plain, else instrumental if one says so.
    package static func pick(_ records: [LRCLIBRecord], durationSeconds: Double?, songSeconds: Double? = nil) -> LyricsOutcome {
        let near = records.filter { fitsDuration($0, durationSeconds: durationSeconds) }
        let end = songSeconds ?? durationSeconds
        for record in near where record.instrumental != true {
            if let text = fittingSynced(record, songSeconds: end) { return .lyrics(text, synced: true) }
        }
        if let text = near.first(where: { $0.instrumental != true && $0.plain != nil })?.plain { return .lyrics(text, synced: false) }
        if near.contains(where: { $0.instrumental == true }) { return .instrumental }
        return .notFound
    }

    /// The one rule for every candidate: a recording within `durationWindow` of the song's
    /// `durationSeconds`. When the song's length is unknown any fits; a record of no length never does.
    static func fitsDuration(_ record: LRCLIBRecord, durationSeconds: Double?) -> Bool {
        guard let wanted = durationSeconds else { return true }
        guard let duration = record.duration else { return false }
        return abs(duration - wanted) <= durationWindow
    }

    static func fittingSynced(_ record: LRCLIBRecord, songSeconds: Double?) -> String? {
        guard let text = record.synced else { return nil }
        if let songSeconds, let last = LyricStamps.lastSeconds(in: text), last > songSeconds { return nil }
        return text
    }

    /// LRCLIB's order: the exact `/api/get` when album and duration are known, then `/api/search`.
    /// `fetchJSON` returns a 200's body, nil for a 404, and throws for the rest.
    static func lookUp(_ song: LyricsLookup, server: String,
                       fetchJSON: (URL) async throws -> Data?) async throws -> (outcome: LyricsOutcome, via: String) {
        let songSeconds = song.durationMs.map { Double($0) / 1000 }
        let seconds = songSeconds?.rounded()
        if let album = song.album, let seconds {
            let url = try url(server: server, path: "/api/get", query: [
                ("artist_name", song.singer), ("track_name", song.title), ("album_name", album),
                ("duration", "\(Int(seconds))"),
            ])
            // The server may answer with another recording of the title (a 55 s one for a 40 s song).
            if let data = try await fetchJSON(url) {
                let outcome = pick([try decode(LRCLIBRecord.self, data, url: url)], durationSeconds: seconds, songSeconds: songSeconds)
                if outcome != .notFound { return (outcome, "get") }
            }
        }
        let url = try url(server: server, path: "/api/search", query: [("track_name", song.title), ("artist_name", song.singer)])
        let records = try await fetchJSON(url).map { try decode([LRCLIBRecord].self, $0, url: url) } ?? []
        return (pick(records, durationSeconds: seconds, songSeconds: songSeconds), "search")
    }

    static func decode<T: Decodable>(_ type: T.Type, _ data: Data, url: URL) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch {
            throw DownloadError.lyrics("unexpected answer from the lyrics server \(url.host ?? ""): \(error)")
        }
    }

    /// Query strings as LRCLIB expects: `+`, `&` and `=` in names must not read as separators.
    package static func url(server: String, path: String, query: [(String, String)]) throws -> URL {
        let base = server.hasSuffix("/") ? String(server.dropLast()) : server
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        let encoded = query.map { name, value in
            "\(name)=\(value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")"
        }.joined(separator: "&")
        return try DownloadURL.checked("\(base)\(path)?\(encoded)")
    }
}

/// Finds a song's lyrics and writes them as `.lrc` beside the downloaded song.
enum LyricsJob {
    static func run(_ task: TaskRecord, env: JobEnvironment, live: LiveProgress) async throws -> JobOutcome {
        guard let song = try env.store.song(key: task.songKey) else {
            throw DownloadError.database("the song \(task.songKey) is no longer in the library")
        }
        if !song.lyricsPath.isEmpty { return JobOutcome(path: song.lyricsPath, note: "already has lyrics") }
        guard song.isLocal else {
            throw DownloadError.lyrics("\(song.title) is not downloaded, so its lyrics have nowhere to go")
        }
        let text: String
        if !song.lyricsURL.isEmpty {
            text = try await fetchText(try DownloadURL.checked(song.lyricsURL), task: task, env: env, live: live)
        } else {
            switch try await lookUp(song, task: task, env: env, live: live) {
            case .lyrics(let found, _): text = found
            case .instrumental: return JobOutcome(note: "instrumental: no lyrics")
            case .notFound: return JobOutcome(note: "no lyrics found")
            }
        }
        let path = try save(text, song: song, task: task, env: env)
        return JobOutcome(path: path, bytes: Int64(text.utf8.count))
    }

    static func lookupKey(_ song: Song) -> String {
        [song.singer, song.title, song.album ?? "", song.durationMs.map { "\(Int((Double($0) / 1000).rounded()))" } ?? ""]
            .joined(separator: "\u{1F}")
    }

    /// LRCLIB: the exact `/api/get` first, then `/api/search`. A miss is remembered for 7 days and
    /// an instrumental for good, so neither is asked again.
    static func lookUp(_ song: Song, task: TaskRecord, env: JobEnvironment, live: LiveProgress) async throws -> LyricsOutcome {
        let key = lookupKey(song)
        if let reason = try env.store.lyricsMiss(key) {
            return reason == "instrumental" ? .instrumental : .notFound
        }
        let found = try await LyricsChoice.lookUp(LyricsLookup(song), server: env.fetcher.settings.lyricsServer) {
            try await fetchJSON($0, task: task, env: env, live: live)
        }
        return try remember(found.outcome, key: key, env: env)
    }

    private static func remember(_ outcome: LyricsOutcome, key: String, env: JobEnvironment) throws -> LyricsOutcome {
        switch outcome {
        case .notFound: try env.store.recordLyricsMiss(key, reason: "not_found")
        case .instrumental: try env.store.recordLyricsMiss(key, reason: "instrumental")
        case .lyrics: break
        }
        return outcome
    }

    /// The JSON body of a 200, nil for a 404; other answers are retried or fail like any download.
    private static func fetchJSON(_ url: URL, task: TaskRecord, env: JobEnvironment, live: LiveProgress) async throws -> Data? {
        let fetcher = env.fetcher
        let store = env.store
        // The note is for `downloads` to show; the retries go on without it.
        return try await fetcher.withRetries(live, url: url, onFailure: { try? store.noteAttempt(id: task.id, error: $0.description) }) {
            let (head, data) = try await fetcher.fetchSmall(url, live: live)
            if head.status == 404 { return nil }
            try check(head, url: url)
            return data
        }
    }

    private static func fetchText(_ url: URL, task: TaskRecord, env: JobEnvironment, live: LiveProgress) async throws -> String {
        let fetcher = env.fetcher
        let store = env.store
        // The note is for `downloads` to show; the retries go on without it.
        let data = try await fetcher.withRetries(live, url: url, onFailure: { try? store.noteAttempt(id: task.id, error: $0.description) }) {
            let (head, data) = try await fetcher.fetchSmall(url, live: live)
            try check(head, url: url)
            return data
        }
        // Lyrics files in the wild are UTF-8 with or without a BOM; anything else is replaced, not refused.
        var text = String(decoding: data, as: UTF8.self)
        if text.hasPrefix("\u{FEFF}") { text.removeFirst() }
        return text
    }

    /// A lyrics answer's status: 200 is used, 429 and 5xx are retried (after Retry-After), the rest fail.
    static func check(_ head: ResponseHead, url: URL) throws {
        switch ResumePlan.decide(head, partial: PartialDownload(), url: url.absoluteString) {
        case .writeFromStart: return
        case .retry(let error, let after): throw RetryableFailure(error: error, retryAfter: after)
        case .fail(let error): throw error
        default: throw DownloadError.http(head.status, "unexpected HTTP \(head.status) from \(url.absoluteString)")
        }
    }

    /// Writes `<song>.lrc` beside the song (or under `songs/` when the song lives outside the
    /// library folder) through a temporary file and a rename, then records it on the song.
    static func save(_ text: String, song: Song, task: TaskRecord, env: JobEnvironment) throws -> String {
        let root = env.libraryRoot
        let songPath = FileNaming.realPath(URL(fileURLWithPath: song.localPath))
        let folder: URL
        let stem: String
        if FileNaming.isInside(songPath, root: root) {
            let relative = songPath.dropFirst(root.count + 1).split(separator: "/").map(String.init)
            folder = try FileNaming.makeFolder(Array(relative.dropLast()), in: env.library)
            stem = (relative[relative.count - 1] as NSString).deletingPathExtension
        } else {
            let parts = FileNaming.songStem(title: song.title, singer: song.singer, album: song.album, track: song.track)
            folder = try FileNaming.makeFolder(Array(parts.dropLast()), in: env.library)
            stem = parts[parts.count - 1]
        }
        let target = folder.appendingPathComponent(stem + ".lrc").path
        guard FileNaming.isInside(target, root: root) else {
            throw DownloadError.unsafePath("refusing to write to \(target): outside the library folder")
        }
        let temporary = try env.partPath(for: task)
        let file = try PartFile(path: temporary, offset: 0)
        try Array(text.utf8).withUnsafeBytes { try file.write($0) }
        // Where the file went inside the transaction, to remove it if the transaction fails.
        var placed: String?
        do {
            try env.store.wrap {
                try env.store.database.pool.write { db in
                    guard rename(temporary, target) == 0 else {
                        throw DownloadError.io("cannot write \(target): \(String(cString: strerror(errno)))")
                    }
                    placed = target
                    try db.execute(sql: "UPDATE song SET lyrics_path = ? WHERE song_key = ?", arguments: [target, song.songKey])
                    try env.store.finish(id: task.id, state: .done, path: target, bytes: Int64(text.utf8.count), in: db)
                }
            }
        } catch {
            if let placed { unlink(placed) }
            unlink(temporary)
            throw error
        }
        return target
    }
}
