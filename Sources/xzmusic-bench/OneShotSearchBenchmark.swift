import Foundation

/// `xzmusic search` as a whole process, start-up included, on a 10,000-song library: CJK and pinyin
/// queries next to a Latin one and to `xzmusic --version` (start-up alone), all in the same run.
struct OneShotSearchBenchmark {
    let folder: URL
    let xzmusic: String
    let songCount = 10_000

    func run() throws {
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let feed = folder.appendingPathComponent("catalogue.jsonl")
        try SyntheticCatalogue(songCount: songCount, singerCount: songCount / 10).write(to: feed)
        let library = ["--library", folder.appendingPathComponent("library").path]
        setenv("XZMUSIC_DEMO", "", 1)
        let load = try MeasuredRun.run([xzmusic, "import", feed.path] + library)
        guard load.status == 0 else { throw benchFailure("xzmusic import failed (status \(load.status))") }
        print("library: \(songCount) synthetic songs; each figure is the median of 21 processes\n")

        let runs: [(label: String, arguments: [String])] = [
            ("--version (start-up)", ["--version"]),
            ("search love (Latin)", ["search", "love"] + library),
            ("search 周杰伦", ["search", "周杰伦"] + library),
            ("search 陳奕迅 (traditional)", ["search", "陳奕迅"] + library),
            ("search zhoujielun", ["search", "zhoujielun"] + library),
            ("search björk", ["search", "björk"] + library),
        ]
        print("process                          wall ms   CPU ms")
        var medians: [String: (wall: Double, cpu: Double)] = [:]
        for (label, arguments) in runs {
            var walls: [Double] = [], cpus: [Double] = []
            for _ in 0..<21 {
                let run = try MeasuredRun.run([xzmusic] + arguments)
                guard run.status == 0 else { throw benchFailure("xzmusic \(arguments.joined(separator: " ")) failed") }
                walls.append(run.wallSeconds)
                cpus.append(run.cpuSeconds)
            }
            let wall = walls.sorted()[10], cpu = cpus.sorted()[10]
            medians[label] = (wall, cpu)
            print(String(format: "%@ %8.1f %8.1f", label.padding(toLength: 31, withPad: " ", startingAt: 0),
                         wall * 1000, cpu * 1000))
        }
        // CPU beside wall: on a shared machine the wall figure moves with the load.
        let latin = medians["search love (Latin)"] ?? (1, 1), cjk = medians["search 周杰伦"] ?? (0, 0)
        print(String(format: "\nCJK / Latin: wall %.2fx, CPU %.2fx (target <= 1.1x, CJK < 50 ms)",
                     cjk.wall / latin.wall, cjk.cpu / latin.cpu))
    }
}
