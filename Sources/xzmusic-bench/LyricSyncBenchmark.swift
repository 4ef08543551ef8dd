import Foundation
import XZSystem
import XZAudio
import XZPlaybackEngine
import XZPlaybackValues

/// How late lyric events reach a consumer of the player's event stream, measured from the moment
/// the audio position crossed the line's stamp: when the paced output's clock played the last sample
/// before it. Paced to real time, as a listener hears it.
struct LyricSyncBenchmark {
    let audio: String
    /// Where the generated lyrics go: a line every 370 ms, stamps off the 10 ms grid.
    let lyrics: String

    func run() throws {
        let lines = (0..<60).map { i -> String in
            let ms = 300 + i * 370 + i % 7
            return String(format: "[%02d:%02d.%03d]line %d", ms / 60_000, ms / 1000 % 60, ms % 1000, i)
        }
        try lines.joined(separator: "\n").write(toFile: lyrics, atomically: true, encoding: .utf8)
        let output = TimestampingOutput()
        let arrivals = ArrivalLog()
        // As the host's observers hear them: off the audio thread, in order.
        let bench = try BenchHost(output: output, events: { event in
            if case .lyric(_, let timeMs, _, _) = event {
                arrivals.add(timeMs: timeMs, at: DispatchTime.now().uptimeNanoseconds)
            }
        })
        bench.host.play([QueueItem(path: audio, lyricsPath: lyrics)])
        _ = bench.host.waitUntilFinished(timeout: 120)
        // Every event handled once the host has shut down.
        bench.shutdown()

        var lags: [Double] = []
        for (timeMs, arrival) in arrivals.entries {
            let stampFrame = (timeMs * output.sampleRate + 999) / 1000
            guard let heard = output.time(ofFrame: max(0, stampFrame - 1)) else { continue }
            lags.append(Double(Int64(arrival) - Int64(heard)) / 1e6)
        }
        lags.sort()
        guard !lags.isEmpty else {
            print("lyric sync: no lyric events")
            return
        }
        print(String(format: "lyric event lag after its sample was heard: median %.3f ms, worst %.3f ms "
                     + "over %d lines (target <= 5 ms)", lags[lags.count / 2], lags[lags.count - 1], lags.count))
    }
}

final class ArrivalLog: Sendable {
    private let list = Mutex<[(Int, UInt64)]>([])
    var entries: [(Int, UInt64)] { list.withLock { $0 } }
    func add(timeMs: Int, at time: UInt64) { list.withLock { $0.append((timeMs, time)) } }
}

/// A paced null output that remembers when each frame range plays. It plays as a sound card does: each
/// write from the end of the one before, or from when it came if that was more than a moment later.
final class TimestampingOutput: AudioOutput, Sendable {
    /// A write later than this after the audio ran out starts the clock again (as the player's pacer does).
    static let slackNs: UInt64 = 200_000_000
    private struct State {
        var writes: [(firstFrame: Int, frames: Int, time: UInt64)] = []
        var clockEnd: UInt64 = 0
        var framesWritten = 0
        var bytesPerFrame = 4
        var sampleRate = 44_100
    }

    private let state = Mutex(State())
    var sampleRate: Int { state.withLock { $0.sampleRate } }

    func open(format: AudioFormat) throws {
        state.withLock {
            $0.bytesPerFrame = format.bytesPerFrame
            $0.sampleRate = format.sampleRate
        }
    }
    func close() {}
    var needsPacing: Bool { true }
    var bufferedFrames: Int { 0 }

    func write(_ pcm: UnsafeRawBufferPointer) throws {
        let now = DispatchTime.now().uptimeNanoseconds
        state.withLock {
            let frames = pcm.count / $0.bytesPerFrame
            let start = now <= $0.clockEnd + Self.slackNs ? $0.clockEnd : now
            $0.writes.append(($0.framesWritten, frames, start))
            $0.framesWritten += frames
            $0.clockEnd = start + UInt64(frames) * 1_000_000_000 / UInt64(max($0.sampleRate, 1))
        }
    }

    /// When the clock plays `frame`.
    func time(ofFrame frame: Int) -> UInt64? {
        state.withLock { state in
            guard let write = state.writes.first(where: { frame >= $0.firstFrame && frame < $0.firstFrame + $0.frames })
            else { return nil }
            return write.time + UInt64(frame - write.firstFrame) * 1_000_000_000 / UInt64(max(state.sampleRate, 1))
        }
    }
}
