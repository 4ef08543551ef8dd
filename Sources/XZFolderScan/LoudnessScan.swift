import Foundation
import XZAudio
import XZCatalogue
import XZSystem

/// The songs a loudness scan looks at, album by album: an album's gain needs all its songs measured together.
package struct LoudnessPlan: Sendable {
    package let songs: [Song]
    /// Indexes into `songs`: an album's songs, or one song of no album.
    package let groups: [[Int]]
    package let groupIsAlbum: [Bool]
    /// Measured before from the file as it is now (always false with `force`).
    package let current: [Bool]

    /// `targets` and their albums' songs, or every local song when nil.
    package init(targets: [Song]?, database: LibraryDatabase, force: Bool) throws {
        let local = try database.localSongs()
        var albums: [String: [Song]] = [:]
        for song in local {
            if let key = Self.albumKey(song) { albums[key, default: []].append(song) }
        }
        var songs: [Song] = [], groups: [[Int]] = [], isAlbum: [Bool] = []
        var seenAlbums = Set<String>(), seenSongs = Set<String>()
        for song in targets ?? local where !seenSongs.contains(song.songKey) {
            let albumKey = Self.albumKey(song)
            if let albumKey, !seenAlbums.insert(albumKey).inserted { continue }
            let members = albumKey.flatMap { albums[$0] } ?? [song]
            groups.append(Array(songs.count ..< songs.count + members.count))
            isAlbum.append(albumKey != nil)
            songs += members
            members.forEach { seenSongs.insert($0.songKey) }
        }
        let needing = Set(try database.songsNeedingLoudness(among: songs).map(\.songKey))
        self.songs = songs
        self.groups = groups
        groupIsAlbum = isAlbum
        current = songs.map { !force && !needing.contains($0.songKey) }
    }

    /// Songs share an album when album title and album artist (else singer) are the same.
    private static func albumKey(_ song: Song) -> String? {
        guard let album = song.album, !album.isEmpty else { return nil }
        return (song.albumArtist ?? song.singer) + "\u{1F}" + album
    }
}

/// What a loudness scan tells as it goes; indexes are into the plan's `songs`.
package enum LoudnessEvent: Sendable {
    /// A song measured, as it is kept in the library, and the loudness its gains come from.
    package struct Measurement: Sendable {
        package let index: Int
        package let record: LoudnessRecord
        /// Integrated loudness in LUFS; −infinity for silence.
        package let trackLUFS: Double
        /// The album's, when the song's album was measured together.
        package let albumLUFS: Double?
    }

    case started(Int)
    /// How far the decoding of a song is, 0 to 1; at most ten times a second.
    case progress(Int, Double)
    /// Its tags carry ReplayGain: nothing to measure (an earlier measurement of it is dropped).
    case tagged(Int)
    /// Measured before from the same file, in an album with nothing new.
    case current(Int)
    /// One line naming the file.
    case failed(Int, String)
    /// An album's songs (or one song), with the album's values, kept in the library.
    case measured([Measurement])
}

/// How a scan's songs ended.
package struct LoudnessCounts: Sendable, Equatable {
    package var measured = 0
    package var tagged = 0
    package var current = 0
    package var failed = 0

    package init() {}

    package var handled: Int { measured + tagged + current + failed }

    package mutating func count(_ event: LoudnessEvent) {
        switch event {
        case .started, .progress: break
        case .tagged: tagged += 1
        case .current: current += 1
        case .failed: failed += 1
        case .measured(let results): measured += results.count
        }
    }
}

extension LibraryDatabase {
    /// Measures the plan's songs that carry no ReplayGain (EBU R128, ReplayGain 2.0 gains) and keeps what it
    /// measures here, album by album, so an interrupted scan loses at most the album it was in. Decoding runs
    /// on a thread of its own; the library is written and `report` called on the caller's thread, each event
    /// after what it tells is kept. Stops soon after `isInterrupted` says so (the album being decoded is dropped,
    /// and measured next time); a `report` or library error stops it too, and is thrown.
    package func measureLoudness(_ plan: LoudnessPlan, isInterrupted: @escaping @Sendable () -> Bool,
                                report: (LoudnessEvent) throws -> Void) throws -> LoudnessCounts {
        let events = ThreadHandOff<LoudnessEvent>()
        let worker = LoudnessWorker(plan: plan, events: events) { isInterrupted() || events.isCancelled }
        // Decoding blocks for seconds per song: a thread of its own, never Swift's cooperative pool.
        let thread = Thread { worker.run() }
        thread.name = "xzmusic-loudness"
        thread.start()
        defer {
            events.cancel()
            events.waitUntilFinished()
        }
        var counts = LoudnessCounts()
        while let event = events.take() {
            switch event {
            case .tagged(let index):
                // Tags of its own now win: a measurement of an earlier version of the file goes.
                let key = plan.songs[index].songKey
                if try loudness(songKey: key) != nil { try deleteLoudness(songKeys: [key]) }
            case .measured(let results):
                try saveLoudness(results.map(\.record))
            case .started, .progress, .current, .failed:
                break
            }
            counts.count(event)
            try report(event)
        }
        return counts
    }
}

/// Reads tags and decodes, album by album, on the scan's own thread; never touches the database.
private final class LoudnessWorker: Sendable {
    private let plan: LoudnessPlan
    private let events: ThreadHandOff<LoudnessEvent>
    private let isCancelled: @Sendable () -> Bool

    init(plan: LoudnessPlan, events: ThreadHandOff<LoudnessEvent>, isCancelled: @escaping @Sendable () -> Bool) {
        self.plan = plan
        self.events = events
        self.isCancelled = isCancelled
    }

    func run() {
        for (number, group) in plan.groups.enumerated() {
            if isCancelled() || !measure(group, isAlbum: plan.groupIsAlbum[number]) { break }
        }
        events.finish()
    }

    /// Measures the group's songs that carry no ReplayGain, unless every one was measured before; false
    /// when cancelled (the group's measurements are dropped, and measured again next time).
    private func measure(_ group: [Int], isAlbum: Bool) -> Bool {
        var untagged: [Int] = []
        var anyNew = false
        for index in group {
            if !plan.current[index] {
                // Tags that cannot be read carry no ReplayGain; decoding then tells whether the file measures.
                let tags = try? AudioTags.read(path: plan.songs[index].localPath)
                if let tags, !tags.replayGain.isEmpty {
                    events.put(.tagged(index))
                    continue
                }
                anyNew = true
            }
            untagged.append(index)
        }
        guard anyNew else {
            untagged.forEach { events.put(.current($0)) }
            return true
        }
        var meters: [(index: Int, meter: LoudnessMeter, file: FileVersion?)] = []
        for index in untagged {
            let path = plan.songs[index].localPath
            events.put(.started(index))
            // Taken before decoding: a file that changes meanwhile is measured again next time.
            let file = FileVersion(path: path)
            var lastReport = Date()
            do {
                let meter = try LoudnessMeter.measure(path: path, progress: { [events] fraction in
                    guard Date().timeIntervalSince(lastReport) >= 0.1 else { return }
                    lastReport = Date()
                    events.put(.progress(index, fraction))
                }, isCancelled: isCancelled)
                meters.append((index, meter, file))
            } catch is CancellationError {
                return false
            } catch {
                events.put(.failed(index, Self.failure(error, path: path)))
            }
        }
        // Without an album loudness the songs still get their track gains, which the player falls back to.
        let album = isAlbum && !meters.isEmpty ? try? LoudnessMeter.album(meters.map(\.meter)) : nil
        var results: [LoudnessEvent.Measurement] = []
        for (index, meter, file) in meters {
            do {
                let track = try meter.result()
                let record = LoudnessRecord(songKey: plan.songs[index].songKey, trackGain: track.gainDB,
                                            trackPeak: track.samplePeak, albumGain: album?.gainDB,
                                            albumPeak: album?.samplePeak, file: file)
                results.append(.init(index: index, record: record, trackLUFS: track.integratedLUFS,
                                     albumLUFS: album?.integratedLUFS))
            } catch {
                events.put(.failed(index, Self.failure(error, path: meter.path)))
            }
        }
        if !results.isEmpty { events.put(.measured(results)) }
        return true
    }

    /// One line naming the file.
    private static func failure(_ error: Error, path: String) -> String {
        if let error = error as? AudioError, error.file == path { return error.description }
        return "\(path): \(error)"
    }
}
