import Foundation
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Every audio format xzmusic decodes, next to the format's reference decoder and to Debian's MPD on the
/// same files in the same run: rendering flat out, playing in real time, and scanning a mixed folder.
struct FormatsBenchmark {
    let folder: URL
    let xzmusic: String

    /// One format: how its files are made from the WAV source, and its reference command-line decoder.
    struct Format: Sendable {
        let name: String
        /// What its files' names end in, after "bench-5min" or "bench-1s".
        let suffix: String
        let encode: @Sendable (_ wav: String, _ output: String) -> [String]
        let reference: @Sendable (_ file: String) -> [String]
    }

    static let formats: [Format] = [
        Format(name: "FLAC", suffix: ".flac", encode: { ["flac", "--silent", "-f", "-o", $1, $0] },
               reference: { ["flac", "-d", "-f", "-o", "/dev/null", $0] }),
        Format(name: "Vorbis", suffix: ".ogg", encode: { ["oggenc", "-Q", "-q", "5", "-o", $1, $0] },
               reference: { ["oggdec", "-Q", "-R", "-b", "16", "-e", "0", "-s", "1", "-o", "/dev/null", $0] }),
        Format(name: "Opus", suffix: ".opus", encode: { ["opusenc", "--quiet", "--bitrate", "128", $0, $1] },
               reference: { ["opusdec", "--quiet", "--rate", "48000", "--no-dither", $0, "/dev/null"] }),
        Format(name: "AAC", suffix: "-aac.m4a",
               encode: { ["ffmpeg", "-v", "quiet", "-y", "-i", $0, "-c:a", "aac", "-b:a", "192k", $1] },
               reference: { ["ffmpeg", "-v", "quiet", "-i", $0, "-f", "s16le", "-y", "/dev/null"] }),
        Format(name: "ALAC", suffix: "-alac.m4a", encode: { ["ffmpeg", "-v", "quiet", "-y", "-i", $0, "-c:a", "alac", $1] },
               reference: { ["ffmpeg", "-v", "quiet", "-i", $0, "-f", "s16le", "-y", "/dev/null"] }),
        Format(name: "WAV", suffix: ".wav", encode: { ["cp", $0, $1] },
               reference: { ["ffmpeg", "-v", "quiet", "-i", $0, "-f", "s16le", "-y", "/dev/null"] }),
        Format(name: "MP3", suffix: ".mp3", encode: { ["lame", "--quiet", "-V", "2", $0, $1] },
               reference: { ["mpg123", "-q", "-s", $0] }),
    ]

    /// The programs the files and baselines need, with the Debian packages that hold them.
    static let tools = ["sox": "sox", "flac": "flac", "oggenc": "vorbis-tools", "oggdec": "vorbis-tools",
                        "opusenc": "opus-tools", "opusdec": "opus-tools", "ffmpeg": "ffmpeg", "lame": "lame",
                        "mpg123": "mpg123", "mpd": "mpd", "mpc": "mpc", "soxi": "sox"]

    let renderSeconds = 300
    let realTimeSeconds = 30.0
    let scanFileCount = 2_000
    let rescans = 5
    /// Which of the four parts run: all by default.
    var parts: Set<String> = ["render", "realtime", "scan", "encode"]

    func run() throws {
        let missing = Self.tools.keys.filter { (try? TestProcess.which($0)) == nil }.sorted()
        guard missing.isEmpty, FileManager.default.isExecutableFile(atPath: "/usr/bin/python3") else {
            let packages = Set(missing.compactMap { Self.tools[$0] }).sorted().joined(separator: " ")
            throw benchFailure("missing \(missing.joined(separator: ", ")): apt-get install \(packages) python3-mutagen")
        }
        // The demo songs would otherwise be imported into the benchmark's empty libraries.
        setenv("XZMUSIC_DEMO", "", 1)
        let render = folder.appendingPathComponent("render")
        let files = parts.isDisjoint(with: ["render", "realtime"]) ? [] : try makeRenderFiles(render)
        print("""
            Formats: xzmusic against each format's reference decoder and against MPD \
            (\(Self.formats.map(\.name).joined(separator: ", "))).
            1. render: CPU seconds to decode a \(renderSeconds / 60)-minute 44.1 kHz stereo file to raw:/dev/null, best of 3; \
            start-up is the same on a 1-second file, best of 5.
            2. real time: CPU milliseconds per minute of audio over \(Int(realTimeSeconds)) s of playing to a null output \
            (after 3 s of warm-up), xzmusic next to MPD, both at once.
            3. scan: a fresh \(scanFileCount)-file mixed folder, `xzmusic import` against MPD's `mpc update --wait` \
            on a fresh database, then the unchanged rescan (median of \(rescans)).
            files: \(render.path) (one sox source, encoded per format)

            """)
        if parts.contains("render") { try renderCPU(files) }
        if parts.contains("realtime") { try realTime(files, music: render) }
        if parts.contains("scan") { try scan() }
        if parts.contains("encode") { try encodeCPU(source: try renderSource(render)) }
    }

    // MARK: 1. Render

    private func renderCPU(_ files: [(format: Format, long: String, short: String)]) throws {
        let library = ["--library", folder.appendingPathComponent("library").path]
        print("1. render CPU s, xzmusic vs reference (goal <= 1.1x); start-up on a 1 s file; the ratio less start-up")
        for (format, long, short) in files {
            let ours = [xzmusic, "play", long, "--output", "raw:/dev/null"] + library
            let decoded = try decodedSeconds(long, library: library)
            guard abs(decoded - Double(renderSeconds)) < 1 else {
                print(pad(format.name) + String(format: "xzmusic decoded %.1f s of %d s, not measured", decoded, renderSeconds))
                continue
            }
            let (mine, theirs) = try bestPair(of: 3, ours, format.reference(long))
            let (mineStart, theirStart) = try bestPair(of: 5, [xzmusic, "play", short, "--output", "raw:/dev/null"] + library,
                                                       format.reference(short))
            let ratio = mine.cpuSeconds / theirs.cpuSeconds
            let reference = format.reference(long)[0]
            print(pad(format.name) + String(format: "xzmusic %.3f  %@ %.3f  %.2fx %@   start-up %.3f / %.3f   less start-up %.2fx",
                                            mine.cpuSeconds, pad(reference, 7), theirs.cpuSeconds, ratio, verdict(ratio, 1.1),
                                            mineStart.cpuSeconds, theirStart.cpuSeconds,
                                            (mine.cpuSeconds - mineStart.cpuSeconds) / (theirs.cpuSeconds - theirStart.cpuSeconds)))
            if format.name == "Opus" { opusFloor(long) }
        }
        print()
    }

    /// libopusfile against libopus over a bare Ogg reader, both through the multistream layer, in this process,
    /// best of 3 each.
    private func opusFloor(_ file: String) {
        var runs: [[OpusFloor.Run]] = [[], []]
        for _ in 0..<3 {
            if let run = OpusFloor.throughOpusFile(file) { runs[0].append(run) }
            if let run = OpusFloor.throughBareDecoder(file) { runs[1].append(run) }
        }
        guard let library = runs[0].min(by: { $0.seconds < $1.seconds }),
              let bare = runs[1].min(by: { $0.seconds < $1.seconds }) else {
            print(pad("") + "Opus floor: the file did not decode in-process")
            return
        }
        // xzmusic's decoder (the row above) decodes a mono or stereo packet with the stream's one decoder, not
        // libopus's multistream layer, whose per-packet size queries run CPUID (slow under a hypervisor).
        print(pad("") + String(format: "Opus through libopus's multistream layer: libopusfile op_read_float %.3f, "
                                   + "opus_multistream_decode_float over libogg (MPD's way) %.3f: %.2fx",
                               library.seconds, bare.seconds, library.seconds / bare.seconds))
    }

    /// Seconds of audio xzmusic renders from `file` (written once as WAV and measured): a decoder that
    /// stops early would otherwise look fast.
    private func decodedSeconds(_ file: String, library: [String]) throws -> Double {
        let wav = folder.appendingPathComponent("decoded.wav").path
        defer { try? FileManager.default.removeItem(atPath: wav) }
        let log = folder.appendingPathComponent("decoded.log").path
        let play = try MeasuredRun.run([xzmusic, "play", file, "--output", "wav:\(wav)"] + library, stdoutPath: log)
        guard play.status == 0 else { return 0 }
        let soxi = folder.appendingPathComponent("soxi.out").path
        defer { try? FileManager.default.removeItem(atPath: soxi) }
        guard try MeasuredRun.run(["soxi", "-D", wav], stdoutPath: soxi).status == 0 else { return 0 }
        return Double((try String(contentsOfFile: soxi, encoding: .utf8)).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
    }

    /// The least CPU of `count` runs of each command, the two taking turns so that a burst of load on the
    /// machine falls on both; a failed run throws.
    private func bestPair(of count: Int, _ first: [String], _ second: [String]) throws -> (MeasuredRun, MeasuredRun) {
        var runs: [[MeasuredRun]] = [[], []]
        for _ in 0..<count {
            for (index, command) in [first, second].enumerated() {
                let run = try MeasuredRun.run(command)
                guard run.status == 0 else { throw benchFailure("\(command.joined(separator: " ")) exited with status \(run.status)") }
                runs[index].append(run)
            }
        }
        let best = runs.map { $0.min { $0.cpuSeconds < $1.cpuSeconds }! }
        return (best[0], best[1])
    }

    // MARK: 2. Real time

    private func realTime(_ files: [(format: Format, long: String, short: String)], music: URL) throws {
        print("2. real time, CPU ms per minute of audio, xzmusic vs MPD (goal <= 1x)")
        let mpd = try LoopbackMPD(music: music, emptyDatabase: false)
        defer { mpd.stop() }
        try mpd.update()
        let library = folder.appendingPathComponent("library").path
        let minutes = realTimeSeconds / 60
        for (format, long, _) in files {
            try mpd.mpc(["clear"])
            try mpd.mpc(["add", URL(fileURLWithPath: long).lastPathComponent])
            // Both at once: the same 30 s of the machine's load falls on each.
            try mpd.mpc(["play"])
            let ours = try RunningProcess(xzmusic, ["play", long, "--output", "null", "--library", library],
                                          environment: ProcessInfo.processInfo.environment)
            let pid = ours.process.processIdentifier
            // Past the start, when each fills its buffer ahead as fast as it can.
            Thread.sleep(forTimeInterval: 3)
            let (ourStart, theirStart) = (processCPUSeconds(pid), mpd.cpuSeconds)
            Thread.sleep(forTimeInterval: realTimeSeconds)
            let (ourEnd, theirEnd) = (processCPUSeconds(pid), mpd.cpuSeconds)
            let ourPlaying = ours.process.isRunning
            let theirPlaying = try mpd.status().contains("state: play")
            ours.signal(SIGINT)
            _ = ours.finish(timeout: 10)
            try mpd.mpc(["stop"])
            guard ourPlaying, theirPlaying else {
                print(pad(format.name) + "not measured: " + (ourPlaying ? "" : "xzmusic stopped ") + (theirPlaying ? "" : "MPD stopped ")
                    + ours.stderr.suffix(200))
                continue
            }
            let mine = (ourEnd - ourStart) / minutes * 1000, theirs = (theirEnd - theirStart) / minutes * 1000
            print(pad(format.name) + String(format: "xzmusic %7.1f  mpd %7.1f  %.2fx %@", mine, theirs, mine / theirs,
                                            verdict(mine / theirs, 1)))
        }
        print()
    }

    // MARK: 3. Scan

    private func scan() throws {
        let music = try makeScanFolder()
        print("3. scan of \(scanFileCount) mixed files (\(music.path)), wall s (CPU s), xzmusic vs MPD (goal <= 1x)")
        // Read once, so that neither side pays for the disk.
        for path in FileManager.default.enumerator(atPath: music.path)?.allObjects as? [String] ?? [] {
            _ = FileManager.default.contents(atPath: music.appendingPathComponent(path).path)
        }
        let library = folder.appendingPathComponent("scan-library")
        try? FileManager.default.removeItem(at: library)
        let log = folder.appendingPathComponent("import.log").path
        let command = [xzmusic, "import", music.path, "--library", library.path]
        let first = try MeasuredRun.run(command, stdoutPath: log)
        // Its last line counts the songs added and the files it could not read.
        let summary = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n").last
            .map { $0.replacingOccurrences(of: music.path + ": ", with: "") } ?? ""
        let rescan = median(try (0..<rescans).map { _ in try MeasuredRun.run(command) })
        // The fixed cost of any import (process start-up, opening a library), on an empty folder.
        let empty = folder.appendingPathComponent("empty-folder")
        try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
        let startCommand = [xzmusic, "import", empty.path, "--library", folder.appendingPathComponent("startup-library").path]
        try checked(startCommand)
        let startup = try (0..<5).map { _ in try checked(startCommand) }.min { $0.cpuSeconds < $1.cpuSeconds }!

        let mpd = try LoopbackMPD(music: music, emptyDatabase: true)
        defer { mpd.stop() }
        let mpdFirst = try mpd.update()
        let mpdRescan = median(try (0..<rescans).map { _ in try mpd.update() })
        let songs = try mpd.stats().split(separator: "\n").first { $0.hasPrefix("songs: ") }?.dropFirst(7) ?? "?"
        for (label, ours, theirs) in [("first import", first, mpdFirst), ("rescan", rescan, mpdRescan)] {
            let wall = ours.wallSeconds / theirs.wallSeconds, cpu = ours.cpuSeconds / theirs.cpuSeconds
            print(pad(label, 14) + String(format: "xzmusic %7.3f (%.3f)  mpd %7.3f (%.3f)  wall %.2fx %@  CPU %.2fx %@",
                                          ours.wallSeconds, ours.cpuSeconds, theirs.wallSeconds, theirs.cpuSeconds,
                                          wall, verdict(wall, 1), cpu, verdict(cpu, 1)))
        }
        print(pad("", 14) + String(format: "xzmusic start-up %.3f (%.3f), an empty folder; rescan less it: wall %.2fx  CPU %.2fx",
                                     startup.wallSeconds, startup.cpuSeconds,
                                     (rescan.wallSeconds - startup.wallSeconds) / mpdRescan.wallSeconds,
                                     (rescan.cpuSeconds - startup.cpuSeconds) / mpdRescan.cpuSeconds))
        print("songs: xzmusic \(summary)\(first.status == 0 && rescan.status == 0 ? "" : " (import exited with status \(first.status), rescan \(rescan.status))")   mpd \(songs)")
        print("(xzmusic's CPU includes its process start-up; MPD is already running)")
    }

    /// The median by wall time; a failed run's status is kept, so the figure shows it.
    private func median(_ runs: [MeasuredRun]) -> MeasuredRun {
        let median = runs.sorted { $0.wallSeconds < $1.wallSeconds }[runs.count / 2]
        let failed = runs.first { $0.status != 0 }
        return MeasuredRun(cpuSeconds: median.cpuSeconds, wallSeconds: median.wallSeconds, peakRSSKiB: 0,
                           status: failed?.status ?? 0)
    }

    // MARK: Files

    /// The 5-minute and 1-second file of every format, encoded once from one sox source.
    private func makeRenderFiles(_ render: URL) throws -> [(format: Format, long: String, short: String)] {
        let source = try renderSource(render)
        let shortSource = render.appendingPathComponent("source-1s.wav").path
        if !FileManager.default.fileExists(atPath: shortSource) {
            try checked(["sox", source, shortSource, "trim", "0", "1"])
        }
        return try Self.formats.map { format in
            let long = render.appendingPathComponent("bench-5min" + format.suffix).path
            let short = render.appendingPathComponent("bench-1s" + format.suffix).path
            for (wav, file) in [(source, long), (shortSource, short)] where !FileManager.default.fileExists(atPath: file) {
                // Written aside and moved, so an interrupted encoder leaves no file to reuse.
                let partial = file + ".partial" + format.suffix
                try checked(format.encode(wav, partial))
                try FileManager.default.moveItem(atPath: partial, toPath: file)
            }
            return (format, long, short)
        }
    }

    /// The `renderSeconds` source WAV every format's files are encoded from, made once.
    private func renderSource(_ render: URL) throws -> String {
        try FileManager.default.createDirectory(at: render, withIntermediateDirectories: true)
        let source = render.appendingPathComponent("source-\(renderSeconds)s.wav").path
        if !FileManager.default.fileExists(atPath: source) {
            try makeSource(seconds: renderSeconds, at: source)
        }
        return source
    }

    /// Music-like 44.1 kHz stereo 16-bit audio: sweeping tones under a tremolo, a plucked chord twice a
    /// second and a little pink noise, so that every encoder has real work and no silence to skip.
    private func makeSource(seconds: Int, at path: String) throws {
        let parts = ["tones", "notes", "noise"].map { folder.appendingPathComponent("source-\($0).wav").path }
        defer { for part in parts { try? FileManager.default.removeItem(atPath: part) } }
        let format = ["-r", "44100", "-c", "2", "-b", "16"]
        try checked(["sox", "-n"] + format + [parts[0], "synth", "\(seconds)", "sine", "220:880", "sine", "330:1320",
                                              "synth", "\(seconds)", "square", "mix", "110:55", "square", "mix", "165:82",
                                              "tremolo", "4", "60"])
        try checked(["sox", "-n"] + format + [parts[1], "synth", "0.5", "pluck", "A3", "pluck", "E4", "repeat", "\(seconds * 2 - 1)"])
        try checked(["sox", "-n"] + format + [parts[2], "synth", "\(seconds)", "pinknoise", "tremolo", "0.5", "80"])
        let partial = path + ".partial.wav"
        try checked(["sox", "-m", "-v", "0.4", parts[0], "-v", "0.8", parts[1], "-v", "0.1", parts[2], "-b", "16", partial,
                     "gain", "-n", "-1"])
        try FileManager.default.moveItem(atPath: partial, toPath: path)
    }

    /// `scanFileCount` files of every format in turn, copies of a few clips of 2 to 4 s, each tagged with
    /// its own title, singer, album, track, year and genre. Kept between runs (the mtimes too).
    private func makeScanFolder() throws -> URL {
        let base = folder.appendingPathComponent("scan")
        let music = base.appendingPathComponent("music")
        let done = base.appendingPathComponent("complete-\(scanFileCount)")
        if FileManager.default.fileExists(atPath: done.path) { return music }
        print("making \(scanFileCount) tagged files in \(music.path) (once)…")
        try? FileManager.default.removeItem(at: base)
        let clips = base.appendingPathComponent("clips")
        try FileManager.default.createDirectory(at: clips, withIntermediateDirectories: true)
        let source = folder.appendingPathComponent("render/source-\(renderSeconds)s.wav").path
        // Three clips per format, from different places in the source.
        var clipFiles: [[String]] = []
        for format in Self.formats {
            var files: [String] = []
            for (index, seconds) in [2, 3, 4].enumerated() {
                let wav = clips.appendingPathComponent("clip\(index).wav").path
                if !FileManager.default.fileExists(atPath: wav) {
                    try checked(["sox", source, wav, "trim", "\(37 * index + 11)", "\(seconds)"])
                }
                let file = clips.appendingPathComponent("clip\(index)" + format.suffix).path
                if format.suffix != ".wav" { try checked(format.encode(wav, file)) }
                files.append(file)
            }
            clipFiles.append(files)
        }
        let han = SyntheticCatalogue.han, latin = SyntheticCatalogue.latin
        let genres = ["Pop", "Rock", "Jazz", "Folk", "Classical", "Electronic", "Hip-Hop", "民谣", "流行"]
        var manifest = ""
        for i in 0..<scanFileCount {
            let singer = i / 20
            let name = singer % 2 == 0
                ? String((0..<3).map { han[(singer * 7 + $0 * 13) % han.count] }) + " \(singer)"
                : latin[singer % latin.count].capitalized + " Ensemble \(singer)"
            let album = (singer % 3 == 0 ? String((0..<2).map { han[(singer + $0 * 11) % han.count] }) : "Album")
                + " \(singer)-\(i / 10 % 2)"
            let title = i % 3 == 0 ? String((0..<2).map { han[(i + $0 * 5) % han.count] }) + " \(i)"
                                   : latin[i % latin.count].capitalized + " \(latin[(i / 7) % latin.count]) \(i)"
            let format = Self.formats[i % Self.formats.count]
            let clip = clipFiles[i % Self.formats.count][i / Self.formats.count % 3]
            let dir = music.appendingPathComponent(name).appendingPathComponent(album)
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            let file = dir.appendingPathComponent(String(format: "%02d %@", i % 10 + 1, title) + format.suffix)
            try FileManager.default.copyItem(atPath: clip, toPath: file.path)
            // Some fields left out on some files, as in a real collection.
            let fields = [file.path, title, name, album, "\(i % 10 + 1)", i % 7 == 0 ? "" : "\(1970 + i % 50)",
                          i % 5 == 0 ? "" : genres[i % genres.count], i % 4 == 0 ? "Various \(singer / 4)" : ""]
            manifest += fields.joined(separator: "\t") + "\n"
        }
        let manifestPath = base.appendingPathComponent("tags.tsv").path
        let script = base.appendingPathComponent("tag.py").path
        try manifest.write(toFile: manifestPath, atomically: true, encoding: .utf8)
        try Self.tagScript.write(toFile: script, atomically: true, encoding: .utf8)
        try checked(["/usr/bin/python3", script, manifestPath])
        _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        return music
    }

    /// Writes each manifest line's tags into its file with mutagen, in the format's own tag kind.
    static let tagScript = """
        import sys
        from mutagen.flac import FLAC
        from mutagen.oggvorbis import OggVorbis
        from mutagen.oggopus import OggOpus
        from mutagen.mp4 import MP4
        from mutagen.wave import WAVE
        from mutagen.id3 import ID3, TIT2, TPE1, TPE2, TALB, TRCK, TDRC, TCON

        for line in open(sys.argv[1], encoding="utf-8"):
            path, title, artist, album, track, date, genre, albumartist = line.rstrip("\\n").split("\\t")
            fields = {"title": title, "artist": artist, "album": album, "tracknumber": track,
                      "date": date, "genre": genre, "albumartist": albumartist}
            fields = {k: v for k, v in fields.items() if v}
            if path.endswith((".mp3", ".wav")):
                kinds = {"title": TIT2, "artist": TPE1, "album": TALB, "tracknumber": TRCK, "date": TDRC,
                         "genre": TCON, "albumartist": TPE2}
                audio = ID3() if path.endswith(".mp3") else WAVE(path)
                if not path.endswith(".mp3"):
                    audio.add_tags()
                tags = audio if path.endswith(".mp3") else audio.tags
                for key, value in fields.items():
                    tags.add(kinds[key](encoding=3, text=value))
                if path.endswith(".mp3"):
                    audio.save(path, v2_version=4)
                else:
                    audio.save(v2_version=4)
            elif path.endswith(".m4a"):
                atoms = {"title": "\\xa9nam", "artist": "\\xa9ART", "album": "\\xa9alb", "date": "\\xa9day",
                         "genre": "\\xa9gen", "albumartist": "aART"}
                audio = MP4(path)
                for key, value in fields.items():
                    if key == "tracknumber":
                        audio["trkn"] = [(int(value), 10)]
                    else:
                        audio[atoms[key]] = [value]
                audio.save()
            else:
                kind = {"flac": FLAC, "ogg": OggVorbis, "opus": OggOpus}[path.rsplit(".", 1)[1]]
                audio = kind(path)
                for key, value in fields.items():
                    audio[key] = value
                audio.save()
        """

    // MARK: Helpers

    @discardableResult
    private func checked(_ arguments: [String]) throws -> MeasuredRun {
        let log = folder.appendingPathComponent("command.log").path
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let run = try MeasuredRun.run(arguments, stdoutPath: log)
        guard run.status == 0 else {
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw benchFailure("\(arguments.joined(separator: " ")) exited with status \(run.status): \(output.suffix(500))")
        }
        return run
    }

    private func pad(_ text: String, _ width: Int = 8) -> String {
        text.padding(toLength: width, withPad: " ", startingAt: 0)
    }

    private func verdict(_ ratio: Double, _ goal: Double) -> String {
        ratio <= goal ? "met" : "MISSED"
    }
}

/// CPU seconds a running process has used, all its threads: the kernel's per-process CPU clock, the
/// utime + stime of /proc/PID/stat in nanoseconds rather than 10 ms ticks (a player uses a few ticks a second).
func processCPUSeconds(_ pid: pid_t) -> Double {
    var clock = clockid_t()
    var time = timespec()
    guard clock_getcpuclockid(pid, &clock) == 0, clock_gettime(clock, &time) == 0 else { return 0 }
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

/// Debian's MPD listening on 127.0.0.1 only, at a free port, with its config, database and log in a
/// temporary folder of its own (no state, sticker or playlist file, no zeroconf); `stop` removes it all.
final class LoopbackMPD {
    private(set) var port = 0
    private let home: URL
    private var server: RunningProcess?

    /// With `emptyDatabase`, the database is first made on an empty folder, so MPD does not scan `music`
    /// as it starts and the first `update` is the whole import.
    init(music: URL, emptyDatabase: Bool) throws {
        home = FileManager.default.temporaryDirectory.appendingPathComponent("xzmusic-bench-mpd-\(getpid())")
        try? FileManager.default.removeItem(at: home)
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        do {
            if emptyDatabase {
                let empty = home.appendingPathComponent("empty")
                try FileManager.default.createDirectory(at: empty, withIntermediateDirectories: true)
                try start(music: empty)
                try update()
                stopServer()
            }
            try start(music: music)
        } catch {
            stop()
            throw error
        }
    }

    private func start(music: URL) throws {
        port = try freeLoopbackPort()
        let config = home.appendingPathComponent("mpd.conf")
        try """
            music_directory  "\(music.path)"
            db_file          "\(home.appendingPathComponent("database").path)"
            log_file         "\(home.appendingPathComponent("log").path)"
            bind_to_address  "127.0.0.1"
            port             "\(port)"
            auto_update      "no"
            zeroconf_enabled "no"
            audio_output {
                type       "null"
                name       "null"
                mixer_type "software"
            }

            """.write(to: config, atomically: true, encoding: .utf8)
        let server = try RunningProcess(try TestProcess.which("mpd"), ["--no-daemon", config.path],
                                        environment: ProcessInfo.processInfo.environment)
        self.server = server
        let deadline = Date(timeIntervalSinceNow: 30)
        while (try? ProtocolConnection(port: port)) == nil {
            guard Date() < deadline, server.process.isRunning else {
                let log = (try? String(contentsOf: home.appendingPathComponent("log"), encoding: .utf8)) ?? ""
                throw benchFailure("mpd did not answer on 127.0.0.1:\(port): \(server.stderr.suffix(300)) \(log.suffix(300))")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Runs mpc against this MPD; a failure throws.
    @discardableResult
    func mpc(_ arguments: [String]) throws -> MeasuredRun {
        let run = try MeasuredRun.run(["mpc", "-h", "127.0.0.1", "-p", "\(port)"] + arguments)
        guard run.status == 0 else { throw benchFailure("mpc \(arguments.joined(separator: " ")) failed") }
        return run
    }

    /// `mpc --wait update` (the option first, else mpc returns at once): wall time until MPD has finished
    /// the update, and the CPU time MPD spent meanwhile.
    @discardableResult
    func update() throws -> MeasuredRun {
        let before = cpuSeconds
        let run = try mpc(["--wait", "update"])
        return MeasuredRun(cpuSeconds: cpuSeconds - before, wallSeconds: run.wallSeconds, peakRSSKiB: 0, status: run.status)
    }

    var cpuSeconds: Double { server.map { processCPUSeconds($0.process.processIdentifier) } ?? 0 }

    func status() throws -> String { try ProtocolConnection(port: port).text("status") }
    func stats() throws -> String { try ProtocolConnection(port: port).text("stats") }

    private func stopServer() {
        server?.signal(SIGTERM)
        _ = server?.finish(timeout: 10)
        server = nil
    }

    func stop() {
        stopServer()
        try? FileManager.default.removeItem(at: home)
    }
}

/// Line by line, so that the figures show as they come when piped.
private func print(_ line: String = "") {
    Swift.print(line)
    fflush(nil)
}
