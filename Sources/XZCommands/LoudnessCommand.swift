import ArgumentParser
import Foundation
import XZAudio
import XZCatalogue
import XZSystem
import XZText

struct LoudnessCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "loudness",
        abstract: "Measure loudness (EBU R128) of songs without ReplayGain tags: 'loudness scan --all'.",
        subcommands: [LoudnessScan.self])
}

struct LoudnessScan: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "scan",
        abstract: "Measure songs whose tags carry no ReplayGain, so that the player matches their loudness too.",
        discussion: "Gains follow ReplayGain 2.0 (a -18 LUFS reference) and are kept in the library, never written "
            + "into the files. An album's gain covers its songs (same album and album artist), so naming one song "
            + "measures its album's songs too. Songs measured before whose file has the same size and mtime are "
            + "skipped, so an interrupted scan resumes where it stopped; --force measures them again.")

    @OptionGroup var global: GlobalOptions
    @Argument(help: ArgumentHelp("Songs: #ID, a number, a search, or a file in the library.", valueName: "song"))
    var songs: [String] = []
    @Flag(help: "Every song with a local file.") var all = false
    @Flag(help: "Measure songs again even when their file has not changed.") var force = false
    @Flag(help: "Print one JSON object per song, then one with the counts.") var json = false

    func validate() throws {
        if all && !songs.isEmpty { throw ValidationError("give songs or --all, not both") }
        if !all && songs.isEmpty { throw ValidationError("name songs to measure, or give --all") }
    }

    /// One-shot, Ctrl-C, SIGTERM or SIGHUP stop the scan; what was measured before stays saved.
    func run() throws {
        let interrupted = InterruptFlag()
        let signals = SignalWatch([SIGINT, SIGTERM, SIGHUP]) { interrupted.set($0) }
        defer { signals.cancel() }
        let counts = try scan(in: CommandContext.open(global)) { interrupted.signal != nil }
        if let number = interrupted.signal { throw ExitCode(128 + number) }
        if counts.failed > 0 { throw ExitCode.failure }
    }

    func run(in context: CommandContext) throws {
        if try scan(in: context, isInterrupted: { false }).failed > 0 { throw ExitCode.failure }
    }

    private func scan(in context: CommandContext, isInterrupted: @escaping @Sendable () -> Bool) throws -> LoudnessCounts {
        let database = try context.database
        let targets = try all ? nil : songs.map { try Self.localSong($0, in: context) }
        let plan = try LoudnessPlan(targets: targets, database: database, force: force)
        let report = LoudnessReport(plan: plan, console: context.console, json: json)
        let events = LoudnessEvents()
        let worker = LoudnessWorker(plan: plan, events: events) { isInterrupted() || events.isCancelled }
        // Decoding blocks for seconds per song: a thread of its own, never Swift's cooperative pool.
        let thread = Thread { worker.run() }
        thread.name = "xzmusic-loudness"
        thread.start()
        defer {
            events.cancel()
            events.waitUntilFinished()
            context.console.clearStatus()
        }
        while let event = events.take() {
            switch event {
            case .started(let index): report.started(index)
            case .progress(let index, let fraction): report.progress(index, fraction)
            case .tagged(let index):
                // Tags of its own now win: a measurement of an earlier version of the file goes.
                let key = plan.songs[index].songKey
                if try database.loudness(songKey: key) != nil { try database.deleteLoudness(songKeys: [key]) }
                report.skipped(index, tagged: true)
            case .current(let index): report.skipped(index, tagged: false)
            case .failed(let index, let message): report.failed(index, message)
            case .measured(let results):
                try database.saveLoudness(results.map { result in
                    LoudnessRecord(songKey: plan.songs[result.index].songKey, trackGain: result.track.gainDB,
                                   trackPeak: result.track.samplePeak, albumGain: result.album?.gainDB,
                                   albumPeak: result.album?.samplePeak, file: result.file)
                })
                report.measured(results)
            }
        }
        report.finish(interrupted: isInterrupted())
        return report.counts
    }

    /// A SONG argument as a catalogue song with a local file.
    private static func localSong(_ argument: String, in context: CommandContext) throws -> Song {
        let reference = SongReference(argument, listing: context.lastListing)
        let song: Song
        if case .file(let path) = reference {
            let absolute = URL(fileURLWithPath: path).standardizedFileURL.path
            guard let found = try context.database.song(localPath: absolute) else {
                throw CommandError.noSuchSong("\(path.safe) is not in the library: import its folder first")
            }
            song = found
        } else {
            song = try reference.resolve(in: context)
        }
        guard song.isLocal else {
            throw CommandError.notOffline("\(song.title.safe) — \(song.singer.safe) has no local file to measure: download it first")
        }
        return song
    }
}

/// The songs a scan looks at, album by album: an album's gain needs all its songs measured together.
struct LoudnessPlan {
    let songs: [Song]
    /// Indexes into `songs`: an album's songs, or one song of no album.
    let groups: [[Int]]
    let groupIsAlbum: [Bool]
    /// Measured before from the file as it is now (always false with --force).
    let current: [Bool]

    /// `targets` and their albums' songs, or every local song when nil.
    init(targets: [Song]?, database: LibraryDatabase, force: Bool) throws {
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

/// What the decoding thread tells the command's thread.
enum LoudnessEvent {
    struct Measurement {
        let index: Int
        let track: LoudnessResult
        let album: LoudnessResult?
        let file: FileVersion?
    }

    case started(Int)
    case progress(Int, Double)
    /// Its tags carry ReplayGain: nothing to measure.
    case tagged(Int)
    /// Measured before from the same file, in an album with nothing new.
    case current(Int)
    case failed(Int, String)
    /// An album's songs (or one song), with the album's values.
    case measured([Measurement])
}

/// Events from the decoding thread, in order.
typealias LoudnessEvents = ThreadHandOff<LoudnessEvent>

/// Reads tags and decodes, album by album, on the scan's own thread; never touches the database.
final class LoudnessWorker: Sendable {
    private let plan: LoudnessPlan
    private let events: LoudnessEvents
    private let isCancelled: @Sendable () -> Bool

    init(plan: LoudnessPlan, events: LoudnessEvents, isCancelled: @escaping @Sendable () -> Bool) {
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
                events.put(.failed(index, LoudnessText.failure(error, path: path)))
            }
        }
        // Without an album loudness the songs still get their track gains, which the player falls back to.
        let album = isAlbum && !meters.isEmpty ? try? LoudnessMeter.album(meters.map(\.meter)) : nil
        var results: [LoudnessEvent.Measurement] = []
        for (index, meter, file) in meters {
            do {
                results.append(.init(index: index, track: try meter.result(), album: album, file: file))
            } catch {
                events.put(.failed(index, LoudnessText.failure(error, path: meter.path)))
            }
        }
        if !results.isEmpty { events.put(.measured(results)) }
        return true
    }
}

struct LoudnessCounts {
    var measured = 0
    var tagged = 0
    var current = 0
    var failed = 0
}

/// The scan's output: a line per measured song and per failure, a progress bar with an ETA on a terminal;
/// with --json one object per song.
final class LoudnessReport {
    private let plan: LoudnessPlan
    private let console: Console
    private let json: Bool
    private(set) var counts = LoudnessCounts()
    /// Seconds of audio, for the ETA: every song of a group with something to measure, less those that turn
    /// out to need nothing.
    private var totalSeconds = 0.0
    private var doneSeconds = 0.0
    private var counted: [Bool]
    /// Songs in a group with something new to measure, whose seconds `totalSeconds` holds.
    private var inTotal: [Bool]
    private var decoding: (index: Int, fraction: Double)?
    private var startTime: Date?
    private var lastDraw = Date.distantPast

    init(plan: LoudnessPlan, console: Console, json: Bool) {
        self.plan = plan
        self.console = console
        self.json = json
        counted = Array(repeating: false, count: plan.songs.count)
        inTotal = counted
        for group in plan.groups where group.contains(where: { !plan.current[$0] }) {
            group.forEach { inTotal[$0] = true }
            totalSeconds += group.map(seconds).reduce(0, +)
        }
    }

    private func seconds(_ index: Int) -> Double {
        Double(plan.songs[index].durationMs ?? 180_000) / 1000
    }

    private var handled: Int { counts.measured + counts.tagged + counts.current + counts.failed }

    func started(_ index: Int) {
        if let previous = decoding { markDecoded(previous.index) }
        decoding = (index, 0)
        startTime = startTime ?? Date()
        draw(force: true)
    }

    func progress(_ index: Int, _ fraction: Double) {
        guard decoding?.index == index else { return }
        decoding = (index, fraction)
        draw()
    }

    func skipped(_ index: Int, tagged: Bool) {
        if tagged { counts.tagged += 1 } else { counts.current += 1 }
        if inTotal[index] { totalSeconds -= seconds(index) }
        if json { emit([("event", .string("skipped")), ("reason", .string(tagged ? "tags" : "measured"))], index) }
        draw()
    }

    func failed(_ index: Int, _ message: String) {
        counts.failed += 1
        markDecoded(index)
        console.clearStatus()
        if json {
            emit([("event", .string("failed")), ("error", .string(message))], index)
        } else {
            console.error("✗ " + message.safe)
        }
        draw(force: true)
    }

    func measured(_ results: [LoudnessEvent.Measurement]) {
        counts.measured += results.count
        results.forEach { markDecoded($0.index) }
        console.clearStatus()
        for result in results {
            if json {
                emit([("event", .string("measured")), ("loudness_lufs", .number(result.track.integratedLUFS, 2)),
                      ("track_gain", .number(result.track.gainDB, 2)), ("track_peak", .number(result.track.samplePeak, 6)),
                      ("album_gain", result.album.map { .number($0.gainDB, 2) } ?? .null),
                      ("album_peak", result.album.map { .number($0.samplePeak, 6) } ?? .null)], result.index)
            } else {
                let song = plan.songs[result.index]
                console.line("\(song.title.safe) — \(song.singer.safe): " + LoudnessText.values(result.track))
            }
        }
        if !json, let first = results.first, let album = first.album, results.count > 1,
           let name = plan.songs[first.index].album {
            console.line("album \(name.safe) (\(results.count) songs): " + LoudnessText.values(album))
        }
        draw(force: true)
    }

    func finish(interrupted: Bool) {
        console.clearStatus()
        if json {
            console.line(LoudnessJSON.line([
                ("event", .string("done")), ("measured", .int(counts.measured)), ("tagged", .int(counts.tagged)),
                ("already_measured", .int(counts.current)), ("failed", .int(counts.failed)), ("interrupted", .bool(interrupted)),
            ]))
            return
        }
        var parts = ["\(counts.measured) measured"]
        if counts.tagged > 0 { parts.append("\(counts.tagged) with ReplayGain tags") }
        if counts.current > 0 { parts.append("\(counts.current) measured before") }
        if counts.failed > 0 { parts.append("\(counts.failed) failed") }
        console.line("loudness: " + parts.joined(separator: ", ") + (plan.songs.isEmpty ? " (no local songs)" : ""))
        if interrupted { console.error("interrupted: run the same scan again to go on") }
    }

    private func markDecoded(_ index: Int) {
        guard !counted[index] else { return }
        counted[index] = true
        doneSeconds += seconds(index)
        if decoding?.index == index { decoding = nil }
    }

    /// Counts, a bar and the time left, on stderr, at most ten times a second.
    private func draw(force: Bool = false) {
        guard !json, console.stderrIsTTY, force || Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
        lastDraw = Date()
        let done = doneSeconds + (decoding.map { $0.fraction * seconds($0.index) } ?? 0)
        let fraction = totalSeconds > 0 ? min(max(done / totalSeconds, 0), 1) : 0
        let width = 20
        let filled = Int((fraction * Double(width)).rounded())
        var text = "loudness \(handled)/\(plan.songs.count) [" + String(repeating: "█", count: filled)
            + String(repeating: "·", count: width - filled) + "] \(Int(fraction * 100))%"
        if let startTime, fraction > 0.01, Date().timeIntervalSince(startTime) > 2 {
            let left = Date().timeIntervalSince(startTime) * (1 - fraction) / fraction
            text += " · " + DurationText.clock(ms: Int(left * 1000)) + " left"
        }
        if let decoding {
            let song = plan.songs[decoding.index]
            text += " · \(song.title.safe) — \(song.singer.safe)"
        }
        console.status(DisplayWidth.truncate(text, to: console.width - 1))
    }

    /// One JSON line: `fields`, then the song's identity.
    private func emit(_ fields: [(String, LoudnessJSON.Value)], _ index: Int) {
        let song = plan.songs[index]
        console.line(LoudnessJSON.line(fields + [
            ("id", .int(Int(song.id))), ("key", .string(song.songKey)), ("path", .string(song.localPath)),
            ("title", .string(song.title)), ("singer", .string(song.singer)), ("album", song.album.map { .string($0) } ?? .null),
        ]))
    }
}

/// The scan's JSON event lines, keys in the order given.
enum LoudnessJSON {
    /// A value of an event line; numbers rounded to `digits` decimals, as ReplayGain tags write them.
    enum Value: Encodable {
        case string(String), int(Int), bool(Bool), null
        /// A value and how many decimals to keep.
        case number(Double, Int)

        func encode(to encoder: Encoder) throws {
            var container = encoder.singleValueContainer()
            switch self {
            case .string(let value): try container.encode(value)
            case .int(let value): try container.encode(value)
            case .bool(let value): try container.encode(value)
            case .null: try container.encodeNil()
            case .number(let value, let digits):
                guard value.isFinite else { return try container.encodeNil() }
                let scale = pow(10, Double(digits))
                try container.encode((value * scale).rounded() / scale)
            }
        }
    }

    private struct Object: Encodable {
        struct Key: CodingKey {
            let stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        let fields: [(String, Value)]

        func encode(to encoder: Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            for (name, value) in fields { try container.encode(value, forKey: Key(stringValue: name)) }
        }
    }

    static func line(_ fields: [(String, Value)]) -> String {
        // Strings and numbers always encode; "{}" only keeps one line per song should that ever change.
        (try? Format.json(Object(fields: fields))) ?? "{}"
    }
}

enum LoudnessText {
    /// "-21.20 LUFS, gain +3.20 dB, peak 0.100000".
    static func values(_ result: LoudnessResult) -> String {
        let loudness = result.integratedLUFS.isFinite ? String(format: "%.2f LUFS", result.integratedLUFS) : "silent"
        return loudness + String(format: ", gain %+.2f dB, peak %.6f", result.gainDB, result.samplePeak)
    }

    /// One line naming the file.
    static func failure(_ error: Error, path: String) -> String {
        if let error = error as? AudioError, error.file == path { return error.description }
        return "\(path): \(error)"
    }

    /// `info SONG`'s line: the measured gains, and whether the file changed since.
    static func info(for song: Song, database: LibraryDatabase) -> String {
        // An extra of `info`: a record that cannot be read leaves the row out rather than fail the song's fields.
        guard let record = try? database.loudness(songKey: song.songKey) else { return "" }
        var text = String(format: "track %+.2f dB, peak %.6f", record.trackGain, record.trackPeak)
        if let gain = record.albumGain, let peak = record.albumPeak {
            text += String(format: "; album %+.2f dB, peak %.6f", gain, peak)
        }
        return text + (record.measures(path: song.localPath) ? "" : " (the file changed since: scan again)")
    }
}
