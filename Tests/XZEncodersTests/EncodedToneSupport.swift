import Foundation
import XCTest
import XZAudio
import XZEncoders
import XZTestSupport

/// A sine tone through an encoder, the bytes back through ffmpeg: what every encoder's tests check.
enum EncodedTone {
    static let frequency = 1_000.0
    /// ffmpeg decodes everything to this rate, so that durations and frequencies compare.
    static let decodeRate = 48_000

    /// `seconds` of the tone in `format`, starting at sample frame `start` (amplitude one half).
    static func pcm(_ format: AudioFormat, frames: Int, start: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(frames * format.bytesPerFrame)
        for frame in start..<(start + frames) {
            let value = 0.5 * sin(2 * Double.pi * frequency * Double(frame) / Double(format.sampleRate))
            for _ in 0..<format.channels {
                switch format.sample {
                case .s16: withUnsafeBytes(of: Int16(value * 32_767).littleEndian) { bytes += $0 }
                case .s32: withUnsafeBytes(of: Int32(value * 2_147_483_647).littleEndian) { bytes += $0 }
                case .float32: withUnsafeBytes(of: Float(value).bitPattern.littleEndian) { bytes += $0 }
                }
            }
        }
        return bytes
    }

    /// The tone encoded in chunks of `chunkFrames`, with `flush()` and `takeOutput()` after each chunk as the
    /// stream output does; `chunks[i]` are the bytes taken after chunk `i`, `headers[i]` the stream header then.
    struct Run {
        var chunks: [[UInt8]] = []
        var headers: [[UInt8]] = []
        var all: [UInt8] { chunks.flatMap { $0 } }
    }

    static func encode(_ encoder: AudioEncoder, format: AudioFormat, seconds: Double, chunkFrames: Int = 4_410,
                       tags: [Int: StreamTag] = [:]) throws -> Run {
        let layout = try encoder.open(format: format)
        let total = Int(seconds * Double(layout.sampleRate))
        var run = Run()
        var start = 0, chunk = 0
        while start < total {
            if let tag = tags[chunk] { try encoder.sendTag(tag) }
            let frames = min(chunkFrames, total - start)
            try pcm(layout, frames: frames, start: start).withUnsafeBytes { try encoder.encode($0) }
            try encoder.flush()
            run.chunks.append(encoder.takeOutput())
            run.headers.append(encoder.streamHeader)
            start += frames
            chunk += 1
        }
        encoder.close()
        run.chunks[run.chunks.count - 1] += encoder.takeOutput()
        return run
    }

    /// The bytes decoded by ffmpeg (the real client) as mono 16-bit samples at `decodeRate`.
    static func decode(_ bytes: [UInt8], in folder: TemporaryFolder, name: String = "stream") throws -> [Int16] {
        let path = folder.path(name)
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let result = try TestProcess.runChecked("ffmpeg", ["-v", "error", "-i", path, "-f", "s16le", "-ac", "1",
                                                           "-ar", "\(decodeRate)", "-"])
        return result.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }.map { Int16(littleEndian: $0) }
    }

    /// The tone's frequency from the zero crossings of the middle of `samples` (its ends may fade in and out).
    static func frequency(of samples: [Int16]) -> Double {
        let margin = decodeRate / 10
        guard samples.count > 2 * margin + decodeRate / 10 else { return 0 }
        let middle = samples[margin..<(samples.count - margin)]
        var crossings = 0
        var previous = middle.first!
        for sample in middle.dropFirst() {
            if (previous < 0) != (sample < 0) { crossings += 1 }
            previous = sample
        }
        return Double(crossings) / 2 / (Double(middle.count) / Double(decodeRate))
    }

    /// Root mean square of `samples`, full scale 1.
    static func level(of samples: [Int16]) -> Double {
        guard !samples.isEmpty else { return 0 }
        let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
        return (sum / Double(samples.count)).squareRoot() / 32_768
    }

    static func seconds(of samples: [Int16]) -> Double { Double(samples.count) / Double(decodeRate) }

    /// The decoded tone lasts `seconds` within `tolerance` and sounds at its frequency, at its level.
    static func assertTone(_ samples: [Int16], seconds: Double, tolerance: Double,
                           file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(self.seconds(of: samples), seconds, accuracy: tolerance, "decoded duration", file: file, line: line)
        XCTAssertEqual(frequency(of: samples), frequency, accuracy: frequency * 0.01, "tone frequency", file: file, line: line)
        // A sine of amplitude ½ has an RMS of ½·√½ ≈ 0.354.
        XCTAssertEqual(level(of: samples), 0.354, accuracy: 0.05, "tone level", file: file, line: line)
    }

    /// The stream tags ffprobe reads at the start of `bytes`, names in lower case.
    static func tags(of bytes: [UInt8], in folder: TemporaryFolder) throws -> [String: String] {
        let path = folder.path("probed")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let probe = try TestProcess.runChecked("ffprobe", ["-v", "error", "-show_entries", "stream_tags", "-of", "default=nw=1", path])
        var tags: [String: String] = [:]
        for line in probe.stdout.split(separator: "\n") where line.hasPrefix("TAG:") {
            guard let equals = line.firstIndex(of: "=") else { continue }
            tags[line[line.index(line.startIndex, offsetBy: 4)..<equals].lowercased()] = String(line[line.index(after: equals)...])
        }
        return tags
    }

    /// Where `text` occurs in `bytes`.
    static func offsets(of text: String, in bytes: [UInt8]) -> [Int] {
        let needle = Array(text.utf8)
        guard bytes.count >= needle.count else { return [] }
        return (0...(bytes.count - needle.count)).filter { bytes[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// Each setting's one-line message, and no trap on any input.
    static func assertRefused(_ make: ([String: String]) throws(EncoderError) -> AudioEncoder,
                              _ cases: [([String: String], String)], file: StaticString = #filePath, line: UInt = #line) {
        for (settings, message) in cases {
            do {
                _ = try make(settings)
                XCTFail("accepted \(settings)", file: file, line: line)
            } catch {
                XCTAssertEqual(error, .badSetting, "\(settings)", file: file, line: line)
                XCTAssertEqual(error.message, message, "\(settings)", file: file, line: line)
                XCTAssertFalse(error.description.contains("\n"), file: file, line: line)
            }
        }
    }
}
