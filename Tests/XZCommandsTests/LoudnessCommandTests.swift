import Foundation
import XCTest
import XZTestSupport

/// `loudness scan` as a real process on a temporary library of generated files: songs with ReplayGain
/// tags are left alone, the others measured once, a damaged file reported while the rest is kept.
final class LoudnessCommandTests: LibraryProcessTestCase {
    private var music: URL { temp.url.appendingPathComponent("music") }

    /// No demo: `--all` sees only the generated songs.
    override var environment: [String: String] {
        var env = super.environment
        env["XZMUSIC_DEMO"] = ""
        return env
    }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("loudness-cli")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
    }

    override func tearDown() {
        temp = nil
    }

    /// A 4 s 1 kHz stereo sine at `level` dBFS, encoded by `encode` from a WAV that is then removed.
    private func make(_ name: String, level: Double, encode: (String, String) throws -> Void) throws -> String {
        let wav = temp.path(name + ".wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-b", "16", "-c", "2", wav,
                                           "synth", "4", "sine", "1000", "vol", "\(level)dB"])
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let path = music.appendingPathComponent(name).path
        try encode(wav, path)
        return path
    }

    private func flac(_ name: String, level: Double, tags: [String]) throws -> String {
        try make(name, level: level) { wav, path in
            try TestProcess.runChecked("flac", ["--silent", "-f", "-o", path, wav])
            try TestProcess.runChecked("metaflac", tags.map { "--set-tag=" + $0 } + [path])
        }
    }

    /// Every JSON line of a run's standard output.
    private func events(_ result: ProcessResult) throws -> [[String: Any]] {
        try result.stdout.split(separator: "\n").map {
            try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any], String($0))
        }
    }

    private func events(_ all: [[String: Any]], _ kind: String) -> [String: [String: Any]] {
        Dictionary(all.filter { $0["event"] as? String == kind }.map { ($0["title"] as? String ?? "", $0) }) { a, _ in a }
    }

    func testScanMeasuresUntaggedSongsOnceAndReportsBrokenFiles() throws {
        let tagged = try flac("tagged.flac", level: -20, tags: [
            "TITLE=Tagged", "ARTIST=Band", "ALBUM=First", "REPLAYGAIN_TRACK_GAIN=-2.00 dB", "REPLAYGAIN_TRACK_PEAK=0.100000",
        ])
        // 8 dB apart, within the album measurement's relative gate (10 LU), so both count in it.
        let loud = try flac("loud.flac", level: -14, tags: ["TITLE=Loud", "ARTIST=Band", "ALBUM=Second"])
        let quiet = try make("quiet.mp3", level: -22) { wav, path in
            try TestProcess.runChecked("lame", ["--quiet", "-b", "192", "--tt", "Quiet", "--ta", "Band", "--tl", "Second", wav, path])
        }
        let later = try flac("later.flac", level: -20, tags: ["TITLE=Later", "ARTIST=Solo"])
        let imported = try xzmusic(["import", music.path])
        XCTAssertEqual(imported.status, 0, imported.stderr)
        let untouched = try [tagged, loud, quiet].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }

        let first = try xzmusic(["loudness", "scan", "--all", "--json"])
        XCTAssertEqual(first.status, 0, first.stderr)
        let lines = try events(first)
        let measured = events(lines, "measured")
        XCTAssertEqual(Set(measured.keys), ["Loud", "Quiet", "Later"])
        XCTAssertEqual(events(lines, "skipped")["Tagged"]?["reason"] as? String, "tags")
        // ReplayGain 2.0: -18 LUFS less the loudness; a stereo 1 kHz sine measures its level in LUFS (lame's
        // encoding of it comes out about 0.25 dB quieter).
        let loudGain = try XCTUnwrap(measured["Loud"]?["track_gain"] as? Double)
        let quietGain = try XCTUnwrap(measured["Quiet"]?["track_gain"] as? Double)
        XCTAssertEqual(loudGain, -4, accuracy: 0.05)
        XCTAssertEqual(quietGain, 4, accuracy: 0.35)
        XCTAssertEqual(try XCTUnwrap(measured["Loud"]?["track_peak"] as? Double), 0.1995, accuracy: 0.002)
        // One album: the same album gain for both, between their track gains.
        let albumGain = try XCTUnwrap(measured["Loud"]?["album_gain"] as? Double)
        XCTAssertEqual(measured["Quiet"]?["album_gain"] as? Double, albumGain)
        XCTAssertTrue(albumGain > loudGain && albumGain < quietGain, "\(albumGain)")
        XCTAssertTrue(measured["Later"]?["album_gain"] is NSNull, "a song of no album has no album gain")
        let done = try XCTUnwrap(lines.last)
        XCTAssertEqual(done["event"] as? String, "done")
        XCTAssertEqual(done["measured"] as? Int, 3)
        XCTAssertEqual(done["tagged"] as? Int, 1)
        XCTAssertEqual(try [tagged, loud, quiet].map { try Data(contentsOf: URL(fileURLWithPath: $0)) }, untouched,
                       "the measurements stay in the library, out of the files")
        XCTAssertTrue(try xzmusic(["info", "Loud"]).stdout.contains(String(format: "loudness    track %+.2f dB", loudGain)))
        // The player applies the measured gain: a -14 dBFS sine (peak 0.1995) comes out 4 dB lower.
        let raw = temp.path("loud.raw")
        XCTAssertEqual(try xzmusic(["play", "Loud", "--replay-gain", "track", "--output", "raw:" + raw]).status, 0)
        let samples = try Data(contentsOf: URL(fileURLWithPath: raw)).withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        let peak = Double(samples.map { abs(Int($0)) }.max() ?? 0) / 32768
        XCTAssertEqual(peak, 0.1995 * pow(10, loudGain / 20), accuracy: 0.002)

        // Nothing changed: nothing to measure, one event per song all the same.
        let second = try events(try xzmusic(["loudness", "scan", "--all", "--json"]))
        XCTAssertEqual(second.count, 5)
        XCTAssertTrue(events(second, "measured").isEmpty)
        XCTAssertEqual(Set(events(second, "skipped").values.compactMap { $0["reason"] as? String }), ["tags", "measured"])
        XCTAssertEqual(second.last?["already_measured"] as? Int, 3)

        // A song names its album: both of its songs are measured again with --force, the others left.
        let forced = try events(try xzmusic(["loudness", "scan", "Loud", "--force", "--json"]))
        XCTAssertEqual(Set(events(forced, "measured").keys), ["Loud", "Quiet"])
        XCTAssertEqual(events(forced, "measured")["Loud"]?["album_gain"] as? Double, albumGain)

        // A file damaged since: one line naming it, exit 1, and every other measurement kept.
        try Data("fLaC".utf8 + Array(repeating: 0x55, count: 4000)).write(to: URL(fileURLWithPath: later))
        let third = try xzmusic(["loudness", "scan", "--all"])
        XCTAssertEqual(third.status, 1)
        let errors = third.stderr.split(separator: "\n")
        XCTAssertEqual(errors.count, 1, third.stderr)
        XCTAssertTrue(errors.first?.contains(later) == true, third.stderr)
        XCTAssertEqual(third.stdout, "loudness: 0 measured, 1 with ReplayGain tags, 2 measured before, 1 failed\n")
        let kept = try events(try xzmusic(["loudness", "scan", "Loud", "--json"]))
        XCTAssertEqual(events(kept, "skipped")["Loud"]?["reason"] as? String, "measured")
        XCTAssertEqual(try xzmusic(["loudness", "scan"]).status, 64, "songs or --all")
    }
}
