import Foundation
import XZAudio
import XZEncoders
#if canImport(Glibc)
import Glibc
#endif

/// The stream output's encoders (in this process, PCM already in memory) against the reference encoders'
/// command lines on the same 44.1 kHz stereo source, at the same settings: CPU per minute of audio.
extension FormatsBenchmark {
    struct EncoderCase: Sendable {
        let name: String
        let make: @Sendable () throws -> AudioEncoder
        /// The reference command, its output to stdout (sent to /dev/null).
        let reference: @Sendable (_ wav: String) -> [String]
    }

    static let encoderCases: [EncoderCase] = [
        EncoderCase(name: "Opus", make: { try OpusEncoder(settings: ["bitrate": "128000"]) },
                    reference: { ["opusenc", "--quiet", "--bitrate", "128", $0, "-"] }),
        EncoderCase(name: "Vorbis", make: { try VorbisEncoder(settings: ["quality": "3"]) },
                    reference: { ["oggenc", "-Q", "-q", "3", "-o", "-", $0] }),
        EncoderCase(name: "MP3", make: { try LameEncoder(settings: ["bitrate": "128"]) },
                    reference: { ["lame", "--quiet", "-b", "128", $0, "-"] }),
        EncoderCase(name: "FLAC", make: { try FlacEncoder(settings: ["compression": "5"]) },
                    reference: { ["flac", "--silent", "-5", "-c", $0] }),
    ]

    func encodeCPU(source wav: String) throws {
        print("4. encode CPU ms per minute of audio, the stream's encoders in-process vs the reference CLI "
              + "(Opus 128 kbit/s, Vorbis q3, MP3 CBR 128, FLAC -5; best of 3; the CLI also reads the WAV)")
        let raw = folder.appendingPathComponent("encode-source.raw").path
        defer { try? FileManager.default.removeItem(atPath: raw) }
        _ = try MeasuredRun.run(["sox", wav, "-t", "raw", "-e", "signed", "-b", "16", "-L", raw])
        let s16 = try [UInt8](Data(contentsOf: URL(fileURLWithPath: raw)))
        let minutes = Double(s16.count / 4) / 44_100 / 60
        let float32: [UInt8] = s16.withUnsafeBytes { source in
            var out = [UInt8](repeating: 0, count: s16.count * 2)
            out.withUnsafeMutableBytes { target in
                let samples = source.bindMemory(to: Int16.self), floats = target.bindMemory(to: Float.self)
                for i in 0..<samples.count { floats[i] = Float(Int16(littleEndian: samples[i])) / 32_768 }
            }
            return out
        }
        let source = AudioFormat(sampleRate: 44_100, channels: 2, sample: .s16)
        for encoderCase in Self.encoderCases {
            var ours: [Double] = [], bytes = 0
            for _ in 0..<3 {
                let encoder = try encoderCase.make()
                let layout = try encoder.open(format: source)
                let pcm = layout.sample == .float32 ? float32 : s16
                let chunk = 4_410 * layout.bytesPerFrame
                bytes = 0
                let started = threadCPUSeconds()
                try pcm.withUnsafeBytes { all in
                    var offset = 0
                    while offset < all.count {
                        let end = min(offset + chunk, all.count)
                        try encoder.encode(UnsafeRawBufferPointer(rebasing: all[offset..<end]))
                        try encoder.flush()
                        bytes += encoder.takeOutput().count
                        offset = end
                    }
                }
                encoder.close()
                bytes += encoder.takeOutput().count
                ours.append(threadCPUSeconds() - started)
            }
            var theirs: [Double] = []
            for _ in 0..<3 {
                let run = try MeasuredRun.run(encoderCase.reference(wav))
                guard run.status == 0 else { throw benchFailure("\(encoderCase.reference(wav).joined(separator: " ")) exited \(run.status)") }
                theirs.append(run.cpuSeconds)
            }
            let mine = ours.min()! * 1_000 / minutes, reference = theirs.min()! * 1_000 / minutes
            print(encoderCase.name.padding(toLength: 8, withPad: " ", startingAt: 0)
                  + String(format: "xzmusic %.0f  %@ %.0f  %.2fx   (%.0f kbit/s out)", mine,
                           encoderCase.reference(wav)[0].padding(toLength: 7, withPad: " ", startingAt: 0), reference,
                           mine / reference, Double(bytes) * 8 / (minutes * 60) / 1_000))
        }
        print()
    }

    private func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
