import Foundation
import XZCatalogue
import XZSystem

/// Counts of one lyrics-fetch run: what it found, and the songs it did not ask for.
package struct LyricsFetchCounts: Sendable, Equatable {
    package var synced = 0, plain = 0, instrumental = 0, notFound = 0, failed = 0, skipped = 0

    package init() {}

    package mutating func count(_ result: LyricsLookupResult) {
        switch result {
        case .found(let lyrics, _):
            switch lyrics.kind {
            case .synced: synced += 1
            case .plain: plain += 1
            case .instrumental: instrumental += 1
            case .notFound: notFound += 1
            }
        case .failed: failed += 1
        }
    }
}

/// One lyrics fetch for library songs: which songs to ask the lyrics server for, the lookups, and each answer
/// kept in the library (and with `lyrics_sidecar` as `.lrc` beside the song). A run that was stopped goes on
/// where it stopped: answers kept before are not asked for again.
package struct LyricsFetchRun: Sendable {
    /// What the run tells as it goes, each answer after it is kept.
    package enum Event: Sendable {
        /// The lyrics were kept in the library but could not be written beside the song.
        case sidecarNotWritten(Song, any Error)
        case answered(Song, LyricsLookupResult)
        /// The answer could not be kept in the library (a run in the background goes on with the next).
        case notKept(Song, any Error)
    }

    /// Songs not asked for, in the order given, and why.
    package let skipped: [(song: Song, reason: String)]
    /// Songs to ask for, each once.
    package let pending: [Song]
    private let database: LibraryDatabase
    private let settings: DownloadSettings

    /// `songs`, or every local song when nil. `ownLyrics` tells the lyrics a song has of its own (a `.lrc`
    /// file, its tags): synced ones are never asked for, plain ones not with `missingOnly`.
    package init(songs: [Song]?, database: LibraryDatabase, settings: DownloadSettings, missingOnly: Bool,
                ownLyrics: (Song) -> FetchedLyricsKind?, now: Date = Date()) throws {
        let targets = try songs ?? database.localSongs()
        let kept = try database.fetchedLyrics(songKeys: targets.map(\.songKey))
        var skipped: [(song: Song, reason: String)] = []
        var pending: [Song] = []
        var seen = Set<String>()
        for song in targets {
            if let reason = Self.skipReason(own: ownLyrics(song), kept: kept[song.songKey], settings: settings,
                                            missingOnly: missingOnly, now: now) {
                skipped.append((song, reason))
            } else if seen.insert(song.songKey).inserted {
                pending.append(song)
            }
        }
        self.skipped = skipped
        self.pending = pending
        self.database = database
        self.settings = settings
    }

    /// Why a song is not asked for, nil when it is. Synced lyrics of its own always win; a kept answer
    /// stands, a miss until it is older than `lyrics_miss_days`.
    package static func skipReason(own: FetchedLyricsKind?, kept: FetchedLyrics?, settings: DownloadSettings,
                                  missingOnly: Bool, now: Date = Date()) -> String? {
        switch own {
        case .synced: return "has synced lyrics"
        case .plain where missingOnly: return "has lyrics"
        default: break
        }
        guard let kept else { return nil }
        if kept.kind != .notFound { return "already fetched (\(kept.kind.rawValue))" }
        return now.timeIntervalSince(kept.fetchedAt) < settings.lyricsMissDays * 86_400 ? "not found recently" : nil
    }

    /// Looks the pending songs up and keeps each answer on the caller's actor (the library's writes block:
    /// call it from the main actor, never the cooperative pool), telling `report` after each. A failure to
    /// keep an answer, or an error `report` throws, stops the run and is thrown. Returns the run's counts.
    package func run(isolation: isolated (any Actor)? = #isolation,
                    report: (Event) throws -> Void) async throws -> LyricsFetchCounts {
        var counts = LyricsFetchCounts()
        counts.skipped = skipped.count
        let bySongKey = self.bySongKey
        let fetch = LyricsFetch(settings: settings)
        do {
            for await (lookup, result) in fetch.results(for: pending.map(LyricsLookup.init)) {
                guard let song = bySongKey[lookup.songKey] else { continue }
                try keep(song, result, report: report)
                counts.count(result)
                try report(.answered(song, result))
            }
        } catch {
            await fetch.shutdown()
            throw error
        }
        await fetch.shutdown()
        return counts
    }

    /// Looks the pending songs up on the cooperative pool and keeps their answers on a thread of its own
    /// (SQLite and sidecar files block), which calls `report` for each and `finished` at the end; returns at once.
    package func runInBackground(report: @escaping @Sendable (Event) -> Void, finished: @escaping @Sendable () -> Void) {
        let results = ThreadHandOff<(LyricsLookup, LyricsLookupResult)>()
        let bySongKey = self.bySongKey
        let keeper = Thread { [self] in
            while let (lookup, result) = results.take() {
                guard let song = bySongKey[lookup.songKey] else { continue }
                do {
                    try keep(song, result, report: report)
                } catch {
                    report(.notKept(song, error))
                    continue
                }
                report(.answered(song, result))
            }
            finished()
        }
        keeper.start()
        let pending = pending
        let settings = settings
        Task.detached {
            let fetch = LyricsFetch(settings: settings)
            for await answer in fetch.results(for: pending.map(LyricsLookup.init)) { results.put(answer) }
            await fetch.shutdown()
            results.finish()
        }
    }

    private var bySongKey: [String: Song] {
        Dictionary(pending.map { ($0.songKey, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Keeps an answer in the library, and beside the song with `lyrics_sidecar = yes`.
    private func keep(_ song: Song, _ result: LyricsLookupResult, report: (Event) throws -> Void) throws {
        guard case .found(let lyrics, _) = result else { return }
        try database.saveFetchedLyrics(lyrics, songKey: song.songKey)
        guard settings.lyricsSidecar else { return }
        do {
            _ = try LyricsFetch.writeSidecar(lyrics, song: song)
        } catch {
            try report(.sidecarNotWritten(song, error))
        }
    }
}
