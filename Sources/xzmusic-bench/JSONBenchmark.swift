import Foundation

/// `--json` output against the text form of the same command, in the same run: a 200,000-line LRC
/// through `lyrics`, and a 10,000-song `search` over a 1,000,000-song library.
struct JSONBenchmark {
    let folder: URL
    let library: URL
    let xzmusic: String

    func run() throws {
        guard FileManager.default.isExecutableFile(atPath: xzmusic) else {
            throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "no \(xzmusic): build the xzmusic product first"])
        }
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let lrc = try makeLyrics(lines: 200_000)
        let songs = try BenchLibrary.prepared(in: library, songCount: 1_000_000)
        setenv("XZMUSIC_DEMO", "", 1)
        print("\ncommand                                  text s   json s   json/text (target <= 2x)")
        compare("lyrics 200,000-line LRC", [xzmusic, "lyrics", lrc])
        compare("search love --limit 10000 (1M songs)",
                [xzmusic, "--library", songs.path, "search", "love", "--limit", "10000"])
    }

    /// Best wall time of three runs each, output to a file as a user's redirect would be.
    private func compare(_ label: String, _ arguments: [String]) {
        let output = folder.appendingPathComponent("out").path
        func best(_ arguments: [String]) -> Double {
            (0..<3).compactMap { _ in try? MeasuredRun.run(arguments, stdoutPath: output).wallSeconds }.min() ?? .nan
        }
        let text = best(arguments)
        let json = best(arguments + ["--json"])
        print(String(format: "%@ %8.3f %8.3f   %.2fx", label.padding(toLength: 40, withPad: " ", startingAt: 0),
                     text, json, json / text))
    }

    /// Lines 10 ms apart in several scripts, every tenth with word timing, some with quotes and
    /// backslashes to escape.
    private func makeLyrics(lines count: Int) throws -> String {
        let path = folder.appendingPathComponent("lines-\(count).lrc").path
        if FileManager.default.fileExists(atPath: path) { return path }
        func stamp(_ ms: Int) -> String { String(format: "%02d:%02d.%02d", ms / 60_000, ms / 1000 % 60, ms % 1000 / 10) }
        let texts = ["晴天的风吹过小镇", "夜風が窓をそっとたたいて", "파도 소리 따라 걸어요", "Un café, la ville s'éveille",
                     "She said \"carry it home\"", "a back\\slash and a tab\there"]
        var text = "[ti:Benchmark]\n[ar:xzmusic-bench]\n"
        for index in 0..<count {
            let ms = index * 10
            let words = texts[index % texts.count]
            if index % 10 == 0 {
                text += "[\(stamp(ms))]<\(stamp(ms))>\(words.prefix(4))<\(stamp(ms + 5))>\(words.dropFirst(4))\n"
            } else {
                text += "[\(stamp(ms))]\(words) \(index)\n"
            }
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }
}
