import Foundation
import XZCatalogue
import XZCommands
import XZLyrics

/// `--json` output against the text form of the same command, in the same run: a 200,000-line LRC
/// through `lyrics`, and a 10,000-song `search` over a 1,000,000-song library. First the same two
/// outputs encoded in this process, by the hand-written StreamingJSONEncoder and by JSONEncoder:
/// the hand-written one stays only while it is at least 2x faster.
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
        try compareEncoders(lrc: lrc, library: songs)
        setenv("XZMUSIC_DEMO", "", 1)
        print("\ncommand                                  text s   json s   json/text (target <= 2x)")
        compare("lyrics 200,000-line LRC", [xzmusic, "lyrics", lrc])
        compare("search love --limit 10000 (1M songs)",
                [xzmusic, "--library", songs.path, "search", "love", "--limit", "10000"])
    }

    /// The values `lyrics --json` and `search --json` print, encoded by each writer. JSONEncoder runs
    /// with sorted keys, as it would have to print them (on Linux it writes an object's keys in an
    /// order that changes from run to run), and without, for what the sorting costs.
    private func compareEncoders(lrc: String, library: URL) throws {
        let document = LRCParser.parse(bytes: [UInt8](try Data(contentsOf: URL(fileURLWithPath: lrc))))
        let database = try LibraryDatabase(path: library.appendingPathComponent("library.sqlite").path)
        let result = try database.search("love", limit: 10_000)
        let search = SearchOutput(songs: result.songs.map(SongOutput.init), singers: result.singers)
        print("\nencoding in this process, median of 5    writer s  sorted s  unsorted s  sorted/writer  unsorted/writer")
        try compareEncoders("lyrics: \(document.lines.count)-line LRC", document)
        try compareEncoders("search: \(search.songs.count) songs, \(search.singers.count) singers", search)
        print("(the hand-written writer stays only at >= 2x JSONEncoder with sorted keys)")
    }

    private func compareEncoders<T: Encodable>(_ label: String, _ value: T) throws {
        var written = 0
        let writer = try median {
            written = 0
            let encoder = StreamingJSONEncoder { written += $0.utf8.count }
            try encoder.encode(value)
            encoder.finish()
        }
        func encoder(_ formatting: JSONEncoder.OutputFormatting) throws -> Double {
            let encoder = JSONEncoder()
            encoder.outputFormatting = formatting
            var encoded = 0
            let seconds = try median { encoded = try encoder.encode(value).count }
            // The same values in another key order are the same number of bytes.
            guard encoded == written else { throw benchFailure("\(label): JSONEncoder wrote \(encoded) bytes, the writer \(written)") }
            return seconds
        }
        let unsorted = try encoder([.withoutEscapingSlashes])
        let sorted = try encoder([.withoutEscapingSlashes, .sortedKeys])
        print(String(format: "%@ %8.3f  %8.3f  %10.3f  %12.2fx  %14.2fx", label.padding(toLength: 40, withPad: " ", startingAt: 0),
                     writer, sorted, unsorted, sorted / writer, unsorted / writer))
    }

    private func median(_ body: () throws -> Void) throws -> Double {
        var times: [Double] = []
        for _ in 0..<5 {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return percentile(times.sorted(), 0.5)
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

/// `search --json`'s shape: unknown album and duration are null, as the command prints them.
private struct SearchOutput: Encodable {
    let songs: [SongOutput]
    let singers: [SingerHit]
}

private struct SongOutput: Encodable {
    let id: Int64
    let title: String
    let singer: String
    let album: String?
    let durationMs: Int?
    let local: Bool

    init(_ song: Song) {
        id = song.id; title = song.title; singer = song.singer; album = song.album; durationMs = song.durationMs
        local = song.isLocal
    }

    private enum CodingKeys: String, CodingKey { case id, title, singer, album, durationMs = "duration_ms", local }

    // `encode`, not `encodeIfPresent`: JSONEncoder then writes null for nil, as the writer does.
    func encode(to encoder: Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(title, forKey: .title)
        try container.encode(singer, forKey: .singer)
        try container.encode(album, forKey: .album)
        try container.encode(durationMs, forKey: .durationMs)
        try container.encode(local, forKey: .local)
    }
}
