import XCTest
import XZAudio
import XZHostCore
@testable import XZPlaybackEngine
import XZProtocol
import XZSystem
@testable import XZServer
import XZTestSupport

/// Floats from outside — MixRamp and ReplayGain tags, the state file, crossfade settings — are held
/// finite before they become counts: 1e300, -1e300, NaN and infinity leave the host playing and serving.
final class FloatSourceTests: MusicFolderHostTestCase {
    static let hostile = ["1e300", "-1e300", "nan", "inf", "-inf"]

    /// Two songs whose MixRamp tags say 1e300 seconds, with crossfade and a MixRamp delay: the overlap
    /// is decided as the first song plays, and the host plays on.
    func testMixRampTagsOfHugeSecondsPlayOn() throws {
        let folder = music.appendingPathComponent("ramp")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for index in 1...2 {
            let path = folder.appendingPathComponent("\(index).flac").path
            // Longer than MPD's shortest song to fade (20 s), so the overlap is computed.
            try TestProcess.runChecked("sox", ["-n", "-r", "8000", "-c", "1", "-b", "16", path, "synth", "22", "sine", "440"])
            try TestProcess.runChecked("metaflac", ["--set-tag=MIXRAMP_START=100 1e300", "--set-tag=MIXRAMP_END=100 1e300", path])
        }
        let client = try client()
        _ = try client.run("update", "ramp")
        host.updates.wait()
        for line in ["add ramp/1.flac", "add ramp/2.flac", "crossfade 1", "mixrampdb 0", "mixrampdelay 1", "play 0"] {
            let words = line.split(separator: " ").map(String.init)
            _ = try client.run(MPDRequest(name: words[0], arguments: Array(words.dropFirst())))
        }
        // MixRamp looks 20 s ahead of the end: from 2 s on, the overlap is decided (held to that look-ahead).
        _ = try client.run("seek", "0", "5")
        func place() -> String {
            let status = (try? client.run("status")) ?? []
            return ["state", "song", "elapsed"].map { key in status.first { $0.key == key }?.value ?? "-" }.joined(separator: " ")
        }
        let first = place()
        XCTAssertTrue(first.hasPrefix("play"), first)
        XCTAssertTrue(eventually { place() != first && place().hasPrefix("play") }, "\(first) \(place())")
        _ = try client.run("ping")
    }

    func testOverlapOfHostileTagsIsBounded() {
        let settings = CrossfadeSettings(seconds: 1, mixRampDB: 0, mixRampDelay: 1)
        let cap = CrossfadeSettings.mixRampLookaheadSeconds * 44_100
        for value in Self.hostile {
            let ramp = "100 \(value)"
            let overlap = settings.overlap(rate: 44_100, mixRampStart: ramp, mixRampPreviousEnd: ramp, gainDB: 0, previousGainDB: 0)
            XCTAssertTrue((0...cap).contains(overlap.frames), value)
        }
        for value in Self.hostile {
            let delay = Double(value)!
            var hostile = settings
            hostile.mixRampDelay = delay
            hostile.mixRampDB = delay
            let overlap = hostile.overlap(rate: 44_100, mixRampStart: "-20 0.5;100 2", mixRampPreviousEnd: "-20 0.5;100 2",
                                          gainDB: delay, previousGainDB: 0)
            XCTAssertTrue((0...cap).contains(overlap.frames), value)
        }
        var long = settings
        long.seconds = Int.max
        XCTAssertEqual(long.seconds, CrossfadeSettings.longestSeconds)
    }

    func testReplayGainOfHostileTagsIsFinite() {
        let settings = ReplayGainSettings(mode: .track)
        for gain in Self.hostile.map({ Double($0)! }) + [1e308, -1e308] {
            for peak in [nil, 0, -1, Double.nan, .infinity, 1e-300] as [Double?] {
                let scale = settings.scale(for: ReplayGainTags(trackGain: gain, trackPeak: peak), shuffle: false)
                XCTAssertTrue(scale.isFinite && scale > 0, "gain \(gain) peak \(String(describing: peak)): \(scale)")
            }
        }
        for preamp in Self.hostile.map({ Double($0)! }) {
            let scale = ReplayGainSettings(mode: .track, preampDB: preamp, missingPreampDB: preamp).scale(for: nil, shuffle: false)
            XCTAssertTrue(scale.isFinite && scale > 0, "preamp \(preamp)")
        }
    }

    /// A state file's numbers: a value no state can have drops its line (one line says so, the rest is
    /// kept), one past what the host can do is held to it; either way the host starts and serves.
    func testStateFileValuesCannotStopTheHost() throws {
        let lines = Self.hostile.map { "time: \($0)" } + Self.hostile.flatMap { ["mixrampdb: \($0)", "mixrampdelay: \($0)"] }
            + ["time: 1e18", "crossfade: 9223372036854775807", "crossfade: 99999999999999999999", "crossfade: -1",
               "sw_volume: 1e300", "sw_volume: 101", "current: 99999999999999999999", "current: 9223372036854775807",
               "Prio: 9223372036854775807"]
        let reports = Mutex<[String]>([])
        for (index, line) in lines.enumerated() {
            let state = folder.path("float-\(index).state")
            let queue = line.hasPrefix("Prio") ? "\(line)\n0:album/1.mp3" : "0:album/1.mp3\n1:album/2.mp3"
            let settings = line.hasPrefix("Prio") ? "" : line
            try "sw_volume: 100\nstate: play\ncurrent: 0\n\(settings)\nplaylist_begin\n\(queue)\nplaylist_end\n"
                .write(toFile: state, atomically: true, encoding: .utf8)
            let restored = PlayerHost(folder: library, database: host.database, output: .null, musicDirectory: music) { message in reports.withLock { $0.append(message) } }
            restored.restoreState(from: state, paused: false)
            let server = ProtocolServer(host: restored, password: nil)
            let port = try server.listen(host: "127.0.0.1", port: 0)
            let client = try MPDClient.connect(host: "127.0.0.1", port: port)
            let status = try client.run("status")
            XCTAssertNotNil(status.first { $0.key == "state" }, line)
            XCTAssertEqual(status.first { $0.key == "playlistlength" }?.value, line.hasPrefix("Prio") ? "1" : "2", line)
            _ = try client.run("ping")
            client.disconnect()
            server.shutdown()
            restored.shutdown()
            try FileManager.default.removeItem(atPath: state)
        }
        // Damage is told in one line each, never silently.
        let told = reports.withLock { $0 }
        XCTAssertTrue(told.allSatisfy { $0.hasPrefix("state file ") && !$0.contains("\n") }, "\(told)")
        XCTAssertTrue(told.contains { $0.contains("line 4: bad time (nan): dropped") }, "\(told)")
    }
}
