import Foundation
import XZAudio
import XZPlaybackEngine
import XZPlaybackValues

/// Decoding and playback costs of xzmusic next to the mpg123 CLI on the same file in the same run.
struct PlaybackBenchmark {
    let folder: URL
    let xzmusic: String
    /// Where the 1,000,000-song library is kept between runs.
    let library: URL

    func run() throws {
        let file = try makeTestFile()
        // A library of the benchmark's own, so its plays never reach the user's statistics.
        let library = ["--library", folder.appendingPathComponent("library").path]
        print("file: \(file) (5 min, 44.1 kHz stereo, VBR)\n")

        // 1. Decode and render as fast as possible: xzmusic to raw:/dev/null vs mpg123 -s > /dev/null.
        let ours = try best(of: 3) { try MeasuredRun.run([xzmusic, "play", file, "--output", "raw:/dev/null"] + library) }
        let theirs = try best(of: 3) { try MeasuredRun.run(["mpg123", "-q", "-s", file]) }
        print(String(format: "render, CPU s:          xzmusic %.3f   mpg123 %.3f   ratio %.2fx (target <= 1.05x)",
                     ours.cpuSeconds, theirs.cpuSeconds, ours.cpuSeconds / theirs.cpuSeconds))
        // The same on a one-second file is mostly process start-up (Swift runtime, argument parsing,
        // opening the library); what is left after it is the cost of decoding and writing.
        let short = try makeTestFile(seconds: 1)
        let ourStart = try best(of: 5) { try MeasuredRun.run([xzmusic, "play", short, "--output", "raw:/dev/null"] + library) }
        let theirStart = try best(of: 5) { try MeasuredRun.run(["mpg123", "-q", "-s", short]) }
        print(String(format: "  start-up (1 s file):  xzmusic %.3f   mpg123 %.3f   render less start-up: ratio %.2fx",
                     ourStart.cpuSeconds, theirStart.cpuSeconds,
                     (ours.cpuSeconds - ourStart.cpuSeconds) / (theirs.cpuSeconds - theirStart.cpuSeconds)))

        // 2. Real-time playback for 30 s: xzmusic to the null output (paced by the player) vs
        // mpg123 -s into a pipe drained at the file's byte rate (paced by the pipe, as by a sound card).
        let live = try MeasuredRun.run([xzmusic, "play", file, "--output", "null"] + library, stopAfter: 30)
        let paced = try MeasuredRun.runPaced(["mpg123", "-q", "-s", file], bytesPerSecond: 44_100 * 4, seconds: 30)
        print(String(format: "real time 30 s, CPU s:  xzmusic %.3f (%.2f%% of one core)   mpg123 %.3f   ratio %.2fx (target <= 1.1x)",
                     live.cpuSeconds, live.cpuSeconds / live.wallSeconds * 100, paced.cpuSeconds,
                     live.cpuSeconds / paced.cpuSeconds))
        print(String(format: "peak RSS while playing: xzmusic %.1f MB (one-shot play, empty library)", Double(live.peakRSSKiB) / 1024))
        try promptMemory(file)
        try inProcessRows(file)
    }

    /// The rows measured on a player in this process: its start, lyric events and commands.
    func inProcessRows(_ file: String) throws {
        // 3. From play() to the first sample handed to the output, in this process.
        var latencies: [Double] = []
        for _ in 0..<20 { latencies.append(try firstSampleLatency(file)) }
        latencies.sort()
        print(String(format: "play to first sample:   median %.2f ms, worst %.2f ms over 20 starts (target < 30 ms)",
                     latencies[10] * 1000, latencies[19] * 1000))

        // 4. Lyric events against the audio position, on a demo song, in real time.
        let demo = URL(fileURLWithPath: FileManager.default.currentDirectoryPath)
            .appendingPathComponent("Resources/demo/songs/01-qingtian-xiaodiao.mp3")
        try LyricSyncBenchmark(audio: demo.path, lyrics: folder.appendingPathComponent("sync.lrc").path).run()

        // 5. Pause, seek and next on a playing player, next to MPD.
        try CommandLatencyBenchmark(file: file).run()
    }

    /// The prompt searching and then playing for 30 s over a 1,000,000-song library, against the
    /// same on an empty library: what the catalogue adds to the resident memory.
    private func promptMemory(_ file: String) throws {
        let songs = try BenchLibrary.prepared(in: library, songCount: 1_000_000)
        setenv("XZMUSIC_OUTPUT", "null", 1)
        setenv("XZMUSIC_DEMO", "", 1)
        let input = "search love\nsearch 晴天\nsearch zjl\nplay \(file)\n"
        let empty = folder.appendingPathComponent("empty-library").path
        try? FileManager.default.removeItem(atPath: empty)
        let big = try MeasuredRun.runInteractive([xzmusic, "--library", songs.path], input: input, seconds: 30)
        let small = try MeasuredRun.runInteractive([xzmusic, "--library", empty], input: input, seconds: 30)
        print(String(format: "peak RSS, prompt playing 30 s: 1,000,000-song library %.1f MB   empty library %.1f MB   (target < 38 MB)",
                     Double(big.peakRSSKiB) / 1024, Double(small.peakRSSKiB) / 1024))
    }

    private func best(of count: Int, _ body: () throws -> MeasuredRun) throws -> MeasuredRun {
        var runs: [MeasuredRun] = []
        for _ in 0..<count { runs.append(try body()) }
        return runs.min { $0.cpuSeconds < $1.cpuSeconds } ?? runs[0]
    }

    /// A VBR MP3 of `seconds` (44.1 kHz stereo), made once with sox and lame.
    func makeTestFile(seconds: Int = 300) throws -> String {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let mp3 = folder.appendingPathComponent(seconds == 300 ? "bench-5min.mp3" : "bench-\(seconds)s.mp3").path
        if FileManager.default.fileExists(atPath: mp3) { return mp3 }
        let wav = folder.appendingPathComponent("bench.wav").path
        defer { try? FileManager.default.removeItem(atPath: wav) }
        for arguments in [["sox", "-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "\(seconds)",
                           "pluck", "C4", "pluck", "E4", "tremolo", "3", "40", "vol", "0.5"],
                          ["lame", "--quiet", "-V", "2", wav, mp3]] {
            let run = try MeasuredRun.run(arguments)
            guard run.status == 0 else { throw NSError(domain: "bench", code: 1,
                userInfo: [NSLocalizedDescriptionKey: "\(arguments[0]) failed; is it installed?"]) }
        }
        return mp3
    }

    private func firstSampleLatency(_ file: String) throws -> Double {
        let output = FirstWriteOutput()
        let bench = try BenchHost(output: output)
        defer { bench.shutdown() }
        let player = bench.host
        let start = DispatchTime.now().uptimeNanoseconds
        player.play([QueueItem(path: file)])
        guard let first = output.waitForFirstWrite(timeout: 5) else {
            throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "no audio within 5 s"])
        }
        return Double(first - start) / 1e9
    }
}

/// Remembers when the first samples arrived, and hands everything on to `output` (discards it without one).
final class FirstWriteOutput: AudioOutput, @unchecked Sendable {
    private let output: AudioOutput?
    private let condition = NSCondition()
    private var firstWrite: UInt64?

    init(forwardingTo output: AudioOutput? = nil) {
        self.output = output
    }

    func open(format: AudioFormat) throws { try output?.open(format: format) }
    func close() { output?.close() }
    var needsPacing: Bool { output?.needsPacing ?? true }
    var bufferedFrames: Int { output?.bufferedFrames ?? 0 }
    var isLive: Bool { output?.isLive ?? false }
    func takeNotices() -> [String] { output?.takeNotices() ?? [] }
    func prepare() { output?.prepare() }

    func write(_ pcm: UnsafeRawBufferPointer) throws {
        try output?.write(pcm)
        condition.lock()
        if firstWrite == nil {
            firstWrite = DispatchTime.now().uptimeNanoseconds
            condition.broadcast()
        }
        condition.unlock()
    }

    func waitForFirstWrite(timeout: TimeInterval) -> UInt64? {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: timeout)
        while firstWrite == nil && condition.wait(until: deadline) {}
        return firstWrite
    }
}
