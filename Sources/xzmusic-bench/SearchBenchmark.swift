import Foundation
import GRDB
import XZCatalogue

/// Builds a synthetic multi-script catalogue, imports it, and compares FTS search latency with a
/// plain LIKE scan over the same data in the same run.
struct SearchBenchmark {
    let songCount: Int
    let singerCount: Int
    let folder: URL

    func run() throws {
        let feed = folder.appendingPathComponent("catalogue.jsonl")
        let libraryPath = folder.appendingPathComponent("library.sqlite").path
        // XZBENCH_REUSE=1 searches the library a previous run left, for quick search-only runs.
        let reuse = ProcessInfo.processInfo.environment["XZBENCH_REUSE"] == "1"
            && FileManager.default.fileExists(atPath: libraryPath)
        let database: LibraryDatabase
        if reuse {
            database = try LibraryDatabase(path: libraryPath)
            print("reusing \(try database.songCount()) songs in \(libraryPath)")
        } else {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            print("generating \(songCount) songs by \(singerCount) singers…")
            try SyntheticCatalogue(songCount: songCount, singerCount: singerCount).write(to: feed)

            database = try LibraryDatabase(path: libraryPath)
            let cpuBefore = processCPUSeconds()
            let started = Date()
            let summary = try database.importFeed(at: feed)
            let seconds = Date().timeIntervalSince(started)
            let cpu = processCPUSeconds() - cpuBefore
            // CPU time beside wall time: on a shared machine the wall figure moves with the load.
            print(String(format: "import: %d songs in %.2f s = %.0f songs/s (index included; %.2f s CPU on both threads)",
                         summary.added, seconds, Double(summary.added) / seconds, cpu))
        }

        if FileManager.default.fileExists(atPath: feed.path) { try compareFeedParsers(feed) }

        let queries = SyntheticCatalogue.queries
        var ftsTimes: [Double] = []
        var likeTimes: [Double] = []
        print("\nquery                      hits   fts ms   like ms    ratio")
        for query in queries {
            var hits = 0
            let fts = try measure(repeats: 21) { hits = try database.search(query, limit: 20).songs.count }
            let like = try measure(repeats: 3) { try likeScan(database, query) }
            ftsTimes.append(contentsOf: fts.all)
            likeTimes.append(like.median)
            print(String(format: "%@ %5d %8.3f %9.1f %8.0fx", pad(query, 26), hits, fts.median * 1000,
                         like.median * 1000, like.median / fts.median))
        }
        ftsTimes.sort()
        let p50 = percentile(ftsTimes, 0.5), p99 = percentile(ftsTimes, 0.99)
        let likeMedian = percentile(likeTimes.sorted(), 0.5)
        print(String(format: "\nsearch latency over %d runs: p50 %.3f ms, p99 %.3f ms", ftsTimes.count, p50 * 1000, p99 * 1000))
        print(String(format: "LIKE scan median %.1f ms; FTS p50 is %.0fx faster", likeMedian * 1000, likeMedian / p50))
        print("targets: import >= 250000 songs/s, p50 < 1 ms, p99 < 5 ms, >= 100x LIKE")
        try measureMisses(database)
    }

    /// Misses (typos) answered with suggestions, beside the same LIKE scan, which finds nothing for them.
    private func measureMisses(_ database: LibraryDatabase) throws {
        var times: [Double] = []
        print("\nmiss with suggestions      hits  suggested  ms       like ms    ratio  first suggestion")
        for query in SyntheticCatalogue.misses {
            var result: SearchResult?
            let miss = try measure(repeats: 21) { result = try database.search(query, limit: 20) }
            guard let result else { continue }
            let like = try measure(repeats: 3) { try likeScan(database, query) }
            times.append(contentsOf: miss.all)
            let first = result.suggestions.first.map { $0.name + ($0.singer.map { " — " + $0 } ?? "") } ?? "-"
            print(String(format: "%@ %5d %10d %8.3f %9.1f %8.0fx  %@", pad(query, 26),
                         result.songs.count + result.singers.count, result.suggestions.count, miss.median * 1000,
                         like.median * 1000, like.median / miss.median, first))
        }
        times.sort()
        print(String(format: "miss with suggestions over %d runs: p50 %.3f ms, p99 %.3f ms (target p99 < 50 ms)",
                     times.count, percentile(times, 0.5) * 1000, percentile(times, 0.99) * 1000))
    }

    /// The feed scanner against Foundation's JSONDecoder on the same lines. The decoder reads into a
    /// plain Decodable of the same keys and does no more; the scanner also checks every value and
    /// builds the song, so the ratio is if anything in the decoder's favour.
    private func compareFeedParsers(_ feed: URL) throws {
        let text = try Data(contentsOf: feed)
        var lines: [Data] = []
        lines.reserveCapacity(songCount)
        var start = text.startIndex
        while start < text.endIndex, lines.count < 200_000 {
            let end = text[start...].firstIndex(of: 0x0A) ?? text.endIndex
            lines.append(Data(text[start..<end]))
            start = end + 1
        }
        let bytes = lines.reduce(0) { $0 + $1.count }
        let parser = FeedLine(baseDirectory: nil)
        let decoder = JSONDecoder()
        var scanned = 0, decoded = 0
        let scanner = try measure(repeats: 5) {
            scanned = 0
            for line in lines { if case .success = parser.parse(line) { scanned += 1 } }
        }
        let foundation = try measure(repeats: 5) {
            decoded = 0
            for line in lines where (try? decoder.decode(DecodedFeedLine.self, from: line)) != nil { decoded += 1 }
        }
        guard scanned == lines.count, decoded == lines.count else {
            throw NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: "feed parsers disagree: \(scanned) and \(decoded) of \(lines.count) lines read"])
        }
        func rate(_ seconds: Double) -> String {
            String(format: "%.0f lines/s (%.0f MB/s)", Double(lines.count) / seconds, Double(bytes) / seconds / 1e6)
        }
        print("\nfeed parsing, median of 5 over \(lines.count) lines:")
        print("  scanner      \(rate(scanner.median))")
        print("  JSONDecoder  \(rate(foundation.median))")
        print(String(format: "  scanner is %.1fx JSONDecoder (keep it only at >= 2x)", foundation.median / scanner.median))
    }

    /// The baseline: what a search without an index does. Like the real search it ranks every match
    /// before taking the first 20 (here by title), so it reads every row, whatever the query.
    private func likeScan(_ database: LibraryDatabase, _ query: String) throws {
        let words = query.split(separator: " ").map { "%\($0)%" }
        let condition = words.map { _ in "(song.title LIKE ? OR singer.name LIKE ? OR album.title LIKE ?)" }
            .joined(separator: " AND ")
        let arguments = StatementArguments(words.flatMap { [$0, $0, $0] })
        _ = try database.pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT song.id FROM song JOIN singer ON singer.id = song.singer_id
                LEFT JOIN album ON album.id = song.album_id WHERE \(condition)
                ORDER BY song.title, song.id LIMIT 20
                """, arguments: arguments)
        }
    }

    private func processCPUSeconds() -> Double {
        var usage = rusage()
        #if os(Linux)
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    private func measure(repeats: Int, _ body: () throws -> Void) throws -> (median: Double, all: [Double]) {
        var times: [Double] = []
        for _ in 0..<repeats {
            let start = DispatchTime.now().uptimeNanoseconds
            try body()
            times.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
        }
        return (percentile(times.sorted(), 0.5), times)
    }

    private func pad(_ s: String, _ width: Int) -> String {
        let w = s.unicodeScalars.reduce(0) { $0 + ($1.value >= 0x1100 ? 2 : 1) }
        return s + String(repeating: " ", count: max(0, width - w))
    }
}

/// A feed line's keys as a plain Decodable: the JSONDecoder baseline for the feed scanner.
private struct DecodedFeedLine: Decodable {
    var source_id, title, singer, album, audio_url, lyrics_url, sha256: String?
    var track, year, duration_ms, size: Int64?
}

/// Deterministic names from syllable pools in several scripts.
struct SyntheticCatalogue {
    let songCount: Int
    let singerCount: Int

    static let han = Array("周杰伦陈奕迅王菲邓丽君林俊张学友刘德华梁静茹孙燕姿蔡依林李宗盛五月天晴天七里香十年红豆后来夜曲稻香青花瓷告白气球说好的幸福呢安静简单爱东风破发如雪千里之外")
    static let kana = Array("あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよらりるれろわをんアイウエオカキクケコサシスセソタチツテト")
    static let hangul = Array("가나다라마바사아자차카타파하서울사랑별바다하늘노래꿈밤")
    static let latin = ["love", "night", "queen", "river", "dream", "café", "björk", "señor", "rose", "light",
                        "heart", "fire", "rain", "blue", "garden", "ocean", "winter", "summer", "jazz", "rhapsody",
                        "moon", "star", "road", "city", "golden", "electric", "silent", "wild", "lonely", "sweet"]

    static let queries = ["杰伦", "周", "晴天", "七里香", "zhou jie lun", "zjl", "qingtian", "陳奕迅", "あい", "サシ",
                          "사랑", "bjork", "cafe", "queen jazz", "love night", "rhap", "dream riv", "golden ci",
                          "electric", "wild heart fi", "东风破", "dong feng", "qlx", "summer"]

    /// Typos of names the catalogue holds: each matches nothing and should be answered with suggestions.
    static let misses = ["bjrok", "qingtain", "elecrtic", "rhapsdoy", "zhoujielnu", "lonley nigth", "sumemr ocean",
                         "七里想", "zhou jei lun"]

    /// A small linear congruential generator keeps every run identical.
    private struct Generator {
        var state: UInt64
        mutating func next(_ bound: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(bound))
        }
    }

    private func name(_ g: inout Generator, words: Int) -> String {
        switch g.next(5) {
        case 0, 1: return String((0..<(2 + g.next(3))).map { _ in Self.han[g.next(Self.han.count)] })
        case 2: return String((0..<(3 + g.next(3))).map { _ in Self.kana[g.next(Self.kana.count)] })
        case 3: return String((0..<(2 + g.next(2))).map { _ in Self.hangul[g.next(Self.hangul.count)] })
        default: return (0..<words).map { _ in Self.latin[g.next(Self.latin.count)] }.joined(separator: " ").capitalized
        }
    }

    func write(to url: URL) throws {
        var g = Generator(state: 42)
        let singers = (0..<singerCount).map { i in name(&g, words: 2) + " \(i)" }
        _ = FileManager.default.createFile(atPath: url.path, contents: nil)
        let handle = try FileHandle(forWritingTo: url)
        defer { try? handle.close() }
        var buffer = ""
        let encoder = JSONEncoder()
        struct Line: Encodable { let source_id: String; let title: String; let singer: String; let album: String; let duration_ms: Int }
        for i in 0..<songCount {
            let line = Line(source_id: "bench:\(i)", title: name(&g, words: 1 + g.next(3)),
                            singer: singers[g.next(singers.count)], album: name(&g, words: 2),
                            duration_ms: 120_000 + g.next(240_000))
            buffer += String(decoding: try encoder.encode(line), as: UTF8.self) + "\n"
            if buffer.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(buffer.utf8))
                buffer = ""
            }
        }
        try handle.write(contentsOf: Data(buffer.utf8))
    }
}
