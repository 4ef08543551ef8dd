import Foundation
import XCTest
import XZAudio
import XZEncoders
import XZPlaybackEngine
import XZStreamOutput
import XZTestSupport

/// MPD's `recorder` output with each encoder: a real player records two songs into a file that ffmpeg decodes
/// whole after the output closes (a stop, `disableoutput`).
final class RecorderOutputTests: XCTestCase {
    private var temp: TemporaryFolder!

    override func setUpWithError() throws {
        guard (try? TestProcess.which("ffmpeg")) != nil, (try? TestProcess.which("sox")) != nil else {
            throw XCTSkip("ffmpeg and sox are needed to hear the recording")
        }
        temp = try TemporaryFolder("recorder")
    }

    override func tearDownWithError() throws {
        temp = nil
    }

    func testEachEncoderRecordsBothSongsWholeAndTheOggFilesCarryTheSecondTitle() throws {
        for kind in [EncoderKind.vorbis, .opus, .lame, .flac] {
            let path = temp.path("recording.\(StreamKinds.container(kind))")
            let output = try RecorderOutput(name: "Recorder", path: path, encoder: kind, settings: StreamKinds.settings(kind))
            let events = Events()
            let player = Player(output: output, onEvent: { events.append($0) })
            defer { player.shutdown() }
            player.play([try Tones.item(frequency: 440, seconds: 1, title: "First"),
                         try Tones.item(frequency: 660, seconds: 1, title: "Second")])
            XCTAssertTrue(events.wait { $0.contains(.queueFinished) }, "\(kind)")
            output.close()

            let result = try TestProcess.run("ffmpeg", ["-nostdin", "-loglevel", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "44100", "-"])
            XCTAssertEqual(result.status, 0, "\(kind): \(result.stderr)")
            let samples = result.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            // Both seconds, give or take an encoder's frame of delay and padding.
            XCTAssertEqual(Double(samples.count) / 44_100, 2, accuracy: 0.1, "\(kind)")
            XCTAssertEqual(FFmpegListener.frequency(Array(samples[4_410..<39_690])), 440, accuracy: 440 * 0.02, "\(kind) first song")
            XCTAssertEqual(FFmpegListener.frequency(Array(samples[48_510..<83_790])), 660, accuracy: 660 * 0.02, "\(kind) second song")
            if kind == .vorbis || kind == .opus {
                let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
                XCTAssertNotNil(bytes.range(of: Data("title=Second".utf8)) ?? bytes.range(of: Data("TITLE=Second".utf8)), "\(kind): the chained stream's tag")
            }
            // A new open starts the file again, as MPD's recorder.
            let recorded = try size(path)
            try output.open(format: AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16))
            output.close()
            XCTAssertLessThan(try size(path), min(recorded / 4, 8_192), "\(kind): the file was truncated")
            try FileManager.default.removeItem(atPath: path)
        }
    }

    private func size(_ path: String) throws -> Int {
        try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
    }

    func testBadEncoderSettingsAreOneLineNamingTheSetting() {
        XCTAssertThrowsError(try RecorderOutput(name: "R", path: temp.path("r.ogg"), encoder: .vorbis, settings: ["quality": "11"])) { error in
            XCTAssertTrue("\(error)".hasPrefix("quality \"11\""), "\(error)")
            XCTAssertFalse("\(error)".contains("\n"))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: temp.path("r.ogg")), "nothing is made before the output opens")
    }
}
