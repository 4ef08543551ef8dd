import Foundation
import XCTest
import XZCatalogue
import XZCatalogueTestSupport
import XZFolderScan
import XZTestSupport

/// A loudness scan of a real library of generated FLAC files: what it measures is kept in the library as it
/// goes, album by album; songs with ReplayGain tags and songs measured before are told, not measured.
final class LoudnessScanTests: XCTestCase {
    private var temp: TemporaryFolder!

    override func tearDown() {
        temp = nil
    }

    /// A 2 s 1 kHz stereo sine at `level` dBFS as FLAC with `tags`.
    private func flac(_ name: String, level: Double, tags: [String]) throws -> String {
        let wav = temp.path(name + ".wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-b", "16", "-c", "2", wav,
                                           "synth", "2", "sine", "1000", "vol", "\(level)dB"])
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let path = temp.path("music/" + name)
        try TestProcess.runChecked("flac", ["--silent", "-f", "-o", path, wav])
        try TestProcess.runChecked("metaflac", tags.map { "--set-tag=" + $0 } + [path])
        return path
    }

    private func scan(_ database: LibraryDatabase, targets: [Song]? = nil, force: Bool = false,
                      isInterrupted: @escaping @Sendable () -> Bool = { false }) throws -> (LoudnessCounts, [LoudnessEvent]) {
        let plan = try LoudnessPlan(targets: targets, database: database, force: force)
        var events: [LoudnessEvent] = []
        let counts = try database.measureLoudness(plan, isInterrupted: isInterrupted) { events.append($0) }
        return (counts, events)
    }

    func testScanKeepsAlbumAndTrackGainsAndSkipsWhatNeedsNothing() throws {
        temp = try TemporaryFolder("loudness-scan")
        try FileManager.default.createDirectory(atPath: temp.path("music"), withIntermediateDirectories: true)
        let library = try TestLibrary()
        let database = library.database
        _ = try flac("loud.flac", level: -14, tags: ["TITLE=Loud", "ARTIST=Band", "ALBUM=Second"])
        _ = try flac("quiet.flac", level: -20, tags: ["TITLE=Quiet", "ARTIST=Band", "ALBUM=Second"])
        _ = try flac("alone.flac", level: -20, tags: ["TITLE=Alone", "ARTIST=Solo"])
        let tagged = try flac("tagged.flac", level: -20, tags: [
            "TITLE=Tagged", "ARTIST=Band", "REPLAYGAIN_TRACK_GAIN=-2.00 dB", "REPLAYGAIN_TRACK_PEAK=0.100000",
        ])
        XCTAssertEqual(try database.importFolder(at: temp.url.appendingPathComponent("music")).added, 4)
        let songs = Dictionary(try database.localSongs().map { ($0.title, $0) }) { a, _ in a }
        // A measurement of an earlier version of the file, before it was tagged: the tags win, and it goes.
        let taggedKey = try XCTUnwrap(songs["Tagged"]?.songKey)
        let earlier = try XCTUnwrap(FileVersion(path: tagged)).size + 1
        try database.saveLoudness([LoudnessRecord(songKey: taggedKey, trackGain: 1, trackPeak: 0.5,
                                                  file: FileVersion(size: earlier, mtime: 0))])

        let (counts, events) = try scan(database)
        XCTAssertEqual(counts.measured, 3)
        XCTAssertEqual(counts.tagged, 1)
        XCTAssertEqual(counts.failed, 0)
        XCTAssertNil(try database.loudness(songKey: taggedKey))
        let measured = events.flatMap { event -> [LoudnessEvent.Measurement] in
            if case .measured(let results) = event { return results }
            return []
        }
        // Every event comes after its record is kept: what the report hears is in the library.
        for result in measured {
            XCTAssertEqual(try database.loudness(songKey: result.record.songKey)?.trackGain, result.record.trackGain)
        }
        let loud = try XCTUnwrap(try database.loudness(songKey: try XCTUnwrap(songs["Loud"]).songKey))
        let quiet = try XCTUnwrap(try database.loudness(songKey: try XCTUnwrap(songs["Quiet"]).songKey))
        let alone = try XCTUnwrap(try database.loudness(songKey: try XCTUnwrap(songs["Alone"]).songKey))
        // ReplayGain 2.0: -18 LUFS less the loudness of a stereo 1 kHz sine, which is its level.
        XCTAssertEqual(loud.trackGain, -4, accuracy: 0.05)
        XCTAssertEqual(quiet.trackGain, 2, accuracy: 0.05)
        XCTAssertEqual(loud.trackPeak, 0.1995, accuracy: 0.002)
        let albumGain = try XCTUnwrap(loud.albumGain)
        XCTAssertEqual(quiet.albumGain, albumGain)
        XCTAssertTrue(albumGain > loud.trackGain && albumGain < quiet.trackGain, "\(albumGain)")
        XCTAssertNil(alone.albumGain, "a song of no album has no album gain")
        XCTAssertTrue(loud.measures(path: try XCTUnwrap(songs["Loud"]).localPath))

        // Nothing changed: nothing decoded, every song told once.
        let (again, events2) = try scan(database)
        XCTAssertEqual(again.current, 3)
        XCTAssertEqual(again.tagged, 1)
        XCTAssertEqual(again.measured, 0)
        XCTAssertFalse(events2.contains { if case .started = $0 { return true } else { return false } })

        // One song names its album: with force both of its songs are measured again, nothing else.
        let (forced, _) = try scan(database, targets: [try XCTUnwrap(songs["Quiet"])], force: true)
        XCTAssertEqual(forced.measured, 2)
        XCTAssertEqual(forced.handled, 2)
    }

    func testInterruptedScanMeasuresNothingMoreAndTellsNoMeasurement() throws {
        temp = try TemporaryFolder("loudness-scan-stop")
        try FileManager.default.createDirectory(atPath: temp.path("music"), withIntermediateDirectories: true)
        let library = try TestLibrary()
        _ = try flac("one.flac", level: -20, tags: ["TITLE=One", "ARTIST=Solo"])
        _ = try flac("two.flac", level: -20, tags: ["TITLE=Two", "ARTIST=Solo"])
        XCTAssertEqual(try library.database.importFolder(at: temp.url.appendingPathComponent("music")).added, 2)
        let (counts, events) = try scan(library.database, isInterrupted: { true })
        XCTAssertEqual(counts, LoudnessCounts())
        XCTAssertTrue(events.isEmpty)
        XCTAssertEqual(try library.database.songsNeedingLoudness().count, 2, "nothing kept: the next scan measures both")
    }

    func testDamagedFileFailsWithItsPathAndTheOthersAreKept() throws {
        temp = try TemporaryFolder("loudness-scan-damaged")
        try FileManager.default.createDirectory(atPath: temp.path("music"), withIntermediateDirectories: true)
        let library = try TestLibrary()
        _ = try flac("good.flac", level: -20, tags: ["TITLE=Good", "ARTIST=Solo"])
        let bad = try flac("bad.flac", level: -20, tags: ["TITLE=Bad", "ARTIST=Other"])
        XCTAssertEqual(try library.database.importFolder(at: temp.url.appendingPathComponent("music")).added, 2)
        try Data("fLaC".utf8 + Array(repeating: 0x55, count: 4000)).write(to: URL(fileURLWithPath: bad))
        let (counts, events) = try scan(library.database)
        XCTAssertEqual(counts.measured, 1)
        XCTAssertEqual(counts.failed, 1)
        let messages = events.compactMap { event -> String? in
            if case .failed(_, let message) = event { return message }
            return nil
        }
        XCTAssertEqual(messages.count, 1)
        XCTAssertTrue(messages.first?.contains(bad) == true, "\(messages)")
        XCTAssertEqual(try library.database.songsNeedingLoudness().map(\.title), ["Bad"])
    }
}
