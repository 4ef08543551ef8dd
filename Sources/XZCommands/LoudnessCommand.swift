import ArgumentParser
import Foundation
import XZCatalogue
import XZFolderScan
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
        defer { context.console.clearStatus() }
        let counts = try database.measureLoudness(plan, isInterrupted: isInterrupted, report: report.tell)
        report.finish(interrupted: isInterrupted())
        return counts
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

/// The scan's output: a line per measured song and per failure, a progress bar with an ETA on a terminal;
/// with --json one object per song.
final class LoudnessReport {
    private let plan: LoudnessPlan
    private let console: Console
    private let json: Bool
    private var counts = LoudnessCounts()
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

    /// Renders one event of the scan.
    func tell(_ event: LoudnessEvent) {
        counts.count(event)
        switch event {
        case .started(let index): started(index)
        case .progress(let index, let fraction): progress(index, fraction)
        case .tagged(let index): skipped(index, tagged: true)
        case .current(let index): skipped(index, tagged: false)
        case .failed(let index, let message): failed(index, message)
        case .measured(let results): measured(results)
        }
    }

    private func started(_ index: Int) {
        if let previous = decoding { markDecoded(previous.index) }
        decoding = (index, 0)
        startTime = startTime ?? Date()
        draw(force: true)
    }

    private func progress(_ index: Int, _ fraction: Double) {
        guard decoding?.index == index else { return }
        decoding = (index, fraction)
        draw()
    }

    private func skipped(_ index: Int, tagged: Bool) {
        if inTotal[index] { totalSeconds -= seconds(index) }
        if json { emit([("event", .string("skipped")), ("reason", .string(tagged ? "tags" : "measured"))], index) }
        draw()
    }

    private func failed(_ index: Int, _ message: String) {
        markDecoded(index)
        console.clearStatus()
        if json {
            emit([("event", .string("failed")), ("error", .string(message))], index)
        } else {
            console.error("✗ " + message.safe)
        }
        draw(force: true)
    }

    private func measured(_ results: [LoudnessEvent.Measurement]) {
        results.forEach { markDecoded($0.index) }
        console.clearStatus()
        for result in results {
            if json {
                let record = result.record
                emit([("event", .string("measured")), ("loudness_lufs", .number(result.trackLUFS, 2)),
                      ("track_gain", .number(record.trackGain, 2)), ("track_peak", .number(record.trackPeak, 6)),
                      ("album_gain", record.albumGain.map { .number($0, 2) } ?? .null),
                      ("album_peak", record.albumPeak.map { .number($0, 6) } ?? .null)], result.index)
            } else {
                let song = plan.songs[result.index]
                console.line("\(song.title.safe) — \(song.singer.safe): "
                    + LoudnessText.values(lufs: result.trackLUFS, gainDB: result.record.trackGain, peak: result.record.trackPeak))
            }
        }
        if !json, let first = results.first, let lufs = first.albumLUFS, let gain = first.record.albumGain,
           let peak = first.record.albumPeak, results.count > 1, let name = plan.songs[first.index].album {
            console.line("album \(name.safe) (\(results.count) songs): " + LoudnessText.values(lufs: lufs, gainDB: gain, peak: peak))
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
        var text = "loudness \(counts.handled)/\(plan.songs.count) [" + String(repeating: "█", count: filled)
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
    static func values(lufs: Double, gainDB: Double, peak: Double) -> String {
        let loudness = lufs.isFinite ? String(format: "%.2f LUFS", lufs) : "silent"
        return loudness + String(format: ", gain %+.2f dB, peak %.6f", gainDB, peak)
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
