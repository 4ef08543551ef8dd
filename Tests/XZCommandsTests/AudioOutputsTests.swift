import Foundation
import XCTest
import XZProtocol
import XZServer
import XZTestSupport

/// Several `audio_output` blocks on a real `xzmusic serve`: where the PCM goes as clients (mpc, the prompt)
/// switch them, the state file across a restart, and `outputs` and its ACKs next to real MPD's for the same blocks.
final class AudioOutputsTests: LibraryProcessTestCase {
    /// A run's own output (`$XZMUSIC_OUTPUT`) wins over the blocks, so these hosts are started without one.
    override var environment: [String: String] {
        var env = super.environment
        env["XZMUSIC_OUTPUT"] = nil
        return env
    }

    private var music: URL { temp.url.appendingPathComponent("music") }

    override func setUpWithError() throws {
        temp = try TemporaryFolder("audio-outputs")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", music.appendingPathComponent("tone.wav").path,
                                           "synth", "60", "sine", "440", "vol", "0.5"])
    }

    override func tearDownWithError() throws {
        temp = nil
    }

    /// An output block as MPD's config spells it.
    private func block(_ type: String, _ name: String, _ settings: [String: String] = [:]) -> String {
        (["audio_output {", "    type \"\(type)\"", "    name \"\(name)\""]
            + settings.sorted(by: { $0.key < $1.key }).map { "    \($0.key) \"\($0.value)\"" } + ["}"]).joined(separator: "\n") + "\n"
    }

    private var null: String { block("null", "Null Output") }
    private var raw: String { block("recorder", "Raw", ["encoder": "null", "path": temp.path("raw.pcm")]) }
    private var wave: String { block("recorder", "Wave", ["encoder": "wave", "path": temp.path("out.wav")]) }

    private func writeConfig(_ blocks: String) throws {
        let config = temp.url.appendingPathComponent("config/xzmusic")
        try FileManager.default.createDirectory(at: config, withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n\(blocks)".write(to: config.appendingPathComponent("config"), atomically: true, encoding: .utf8)
    }

    private func stop(_ host: RunningProcess) {
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    private func size(_ name: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: temp.path(name)))?[.size] as? Int) ?? 0
    }

    func testSwitchingOutputsAtRunTimeChangesWhereThePCMGoes() throws {
        try writeConfig(null + raw + wave)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        XCTAssertEqual(try mpc(port, "outputs"),
                       "Output 1 (Null Output) is enabled\nOutput 2 (Raw) is enabled\nOutput 3 (Wave) is enabled\n")
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        XCTAssertTrue(eventually(timeout: 10) { size("raw.pcm") > 44100 * 4 }, "the raw file fills while enabled")

        // Off: the raw file stops growing and the WAV file is finished; the null output plays on.
        try mpc(port, "disable", "Raw")
        try mpc(port, "toggleoutput", "3")
        XCTAssertEqual(try mpc(port, "outputs"),
                       "Output 1 (Null Output) is enabled\nOutput 2 (Raw) is disabled\nOutput 3 (Wave) is disabled\n")
        Thread.sleep(forTimeInterval: 0.3)
        let stopped = size("raw.pcm")
        Thread.sleep(forTimeInterval: 1)
        XCTAssertEqual(size("raw.pcm"), stopped, "a disabled output gets nothing")
        XCTAssertTrue(try mpc(port, "status").contains("[playing]"), "the other outputs play on")
        XCTAssertEqual(try TestProcess.runChecked("soxi", ["-r", temp.path("out.wav")]).stdout, "44100\n")
        XCTAssertEqual(try TestProcess.runChecked("soxi", ["-c", temp.path("out.wav")]).stdout, "2\n")
        // Finished when its output went off: the header tells its length.
        XCTAssertGreaterThan(try Double(XCTUnwrap(TestProcess.runChecked("soxi", ["-D", temp.path("out.wav")]).stdout
            .trimmingCharacters(in: .whitespacesAndNewlines)))!, 0.5)

        // On again: it grows again, and what it holds is the song's tone.
        try mpc(port, "enable", "2")
        XCTAssertTrue(eventually(timeout: 10) { size("raw.pcm") > stopped + 44100 * 4 }, "the raw file fills again")
        XCTAssertEqual(try roughFrequency(raw: temp.path("raw.pcm"), channels: 2), 440, accuracy: 10)
    }

    func testARecorderWithEachEncoderLeavesAWholeFileWhenDisabled() throws {
        let files = ["vorbis": "rec.ogg", "opus": "rec.opus", "lame": "rec.mp3", "flac": "rec.flac"]
        let settings = ["vorbis": ["quality": "4"], "opus": ["bitrate": "96000"], "lame": ["bitrate": "128"], "flac": [:]]
        let kinds = ["lame", "flac", "vorbis", "opus"]
        try writeConfig(null + kinds.map { kind in
            block("recorder", kind, ["encoder": kind, "path": temp.path(files[kind]!)].merging(settings[kind]!) { $1 })
        }.joined())
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        XCTAssertTrue(eventually(timeout: 10) { size("rec.flac") > 100_000 }, "the recordings fill")
        try mpc(port, "disable", "vorbis", "opus", "lame", "flac")
        // The audio thread closes them at its next write, in their order: the Ogg files last.
        XCTAssertTrue(eventually(timeout: 10) { kinds.allSatisfy { finished($0, temp.path(files[$0]!)) } }, "the recordings are finished: \(kinds.filter { !finished($0, temp.path(files[$0]!)) })")
        for kind in kinds {
            let path = temp.path(files[kind]!)
            let decoded = try TestProcess.run("ffmpeg", ["-nostdin", "-v", "error", "-i", path, "-f", "s16le", "-ac", "1", "-ar", "44100",
                                                         "-y", path + ".pcm"])
            XCTAssertEqual(decoded.status, 0, "\(kind): \(decoded.stderr)")
            XCTAssertEqual(decoded.stderr, "", kind)
            XCTAssertGreaterThan(size(files[kind]! + ".pcm"), 44_100, kind)
            XCTAssertEqual(try roughFrequency(raw: path + ".pcm", channels: 1), 440, accuracy: 10, kind)
        }
    }

    /// A recording is finished when its end is written: Ogg's last page ends the stream (its end-of-stream flag).
    /// MP3 and FLAC have no end to tell (FLAC's STREAMINFO keeps length 0, as MPD's recorder writes it: the
    /// encoder writes a stream, never seeking back).
    private func finished(_ kind: String, _ path: String) -> Bool {
        switch kind {
        case "vorbis", "opus":
            guard let bytes = try? [UInt8](Data(contentsOf: URL(fileURLWithPath: path))), bytes.count > 5,
                  let last = (0..<(bytes.count - 5)).last(where: { bytes[$0..<($0 + 4)].elementsEqual("OggS".utf8) }) else { return false }
            return bytes[last + 5] & 0x04 != 0
        default:
            return true
        }
    }

    func testEveryOutputOffPausesTheMusicAsMPDDoes() throws {
        try writeConfig(null + raw)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        try mpc(port, "disable", "1")
        XCTAssertTrue(try mpc(port, "status").contains("[playing]"))
        try mpc(port, "disable", "2")
        XCTAssertTrue(try eventually(timeout: 5) { try mpc(port, "status").contains("[paused]") })
        // Play again with every output off: it stays paused, and nothing was written meanwhile.
        let written = size("raw.pcm")
        try mpc(port, "play")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(try eventually(timeout: 5) { try mpc(port, "status").contains("[paused]") })
        XCTAssertEqual(size("raw.pcm"), written)
        // From stop too: MPD's player waits paused.
        try mpc(port, "stop")
        try mpc(port, "play")
        Thread.sleep(forTimeInterval: 0.5)
        XCTAssertTrue(try eventually(timeout: 5) { try mpc(port, "status").contains("[paused]") }, (try? mpc(port, "status")) ?? "")
        XCTAssertEqual(size("raw.pcm"), written)
    }

    func testAnOutputThatCannotOpenIsDisabledWithOneLineAndTheOthersPlay() throws {
        try writeConfig(block("ao", "Gone", ["driver": "nosuch"]) + raw)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        let idle = try MPDClient.connect(host: "127.0.0.1", port: Int(port)!)
        try idle.sendLine("idle output")
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        XCTAssertEqual(try idle.readResponse().map { "\($0.key): \($0.value)" }, ["changed: output"])
        XCTAssertTrue(eventually(timeout: 10) { size("raw.pcm") > 44100 * 4 })
        XCTAssertEqual(try mpc(port, "outputs"), "Output 1 (Gone) is disabled\nOutput 2 (Raw) is enabled\n")
        XCTAssertTrue(try mpc(port, "status").contains("[playing]"))
        XCTAssertTrue(eventually { (host.stdout + host.stderr).contains("audio output \"Gone\" (ao) disabled: libao has no \"nosuch\" driver") },
                      host.stdout + host.stderr)
    }

    func testAFIFOOutputGivesItsReaderTheMusic() throws {
        let pipe = temp.path("pipe")
        try writeConfig(null + block("fifo", "Pipe", ["path": pipe]))
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        XCTAssertTrue(eventually(timeout: 10) { FileManager.default.fileExists(atPath: pipe) }, "made by the output when it opens")
        // Read without waiting, as a reader that may find the pipe empty for a moment.
        let reader = open(pipe, O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(reader, 0)
        defer { close(reader) }
        var bytes = [UInt8]()
        var chunk = [UInt8](repeating: 0, count: 65536)
        XCTAssertTrue(eventually(timeout: 10) {
            let count = chunk.withUnsafeMutableBytes { read(reader, $0.baseAddress, $0.count) }
            if count > 0 { bytes += chunk[0..<count] }
            return bytes.count >= 44100 * 4
        }, "\(bytes.count) bytes; \((try? mpc(port, "outputs")) ?? ""); \(host.stdout + host.stderr)")
        let samples = bytes.withUnsafeBytes { Array($0.bindMemory(to: Int16.self).prefix(44100 * 2)) }
        // The tone at half scale: its loudest samples near 16384, whatever part of the pipe was dropped before.
        XCTAssertEqual(Double(samples.max() ?? 0), 16384, accuracy: 600)
        XCTAssertTrue(try mpc(port, "status").contains("[playing]"))
    }

    func testAMisspeltBlockKeyIsToldWhenTheProgramStarts() throws {
        try writeConfig(block("recorder", "Tape", ["encodr": "wave", "path": temp.path("tape.wav")]))
        let run = try xzmusic(["config"])
        let config = temp.path("config/xzmusic/config")
        XCTAssertTrue(run.stderr.contains(#"xzmusic: warning: \#(config) line 5: audio_output: unknown key "encodr"; did you mean "encoder"?"#),
                      run.stderr)
    }

    /// Recorders on FIFOs: two nobody reads (WAV through libao, Vorbis) and one whose reader never reads
    /// (raw PCM, which fills the pipe). None may hold the player: each is switched off with one line, the
    /// music goes on in the null output, enabling and disabling one takes effect at once, and the host stops quickly.
    func testRecordersOnFIFOsThatNobodyReadsNeverHoldThePlayer() throws {
        for name in ["tape.fifo", "ogg.fifo", "held.fifo"] { XCTAssertEqual(mkfifo(temp.path(name), 0o600), 0) }
        // Opened before the host, never read: the raw recorder's pipe fills after its first 64 KiB.
        let held = open(temp.path("held.fifo"), O_RDONLY | O_NONBLOCK)
        XCTAssertGreaterThanOrEqual(held, 0)
        defer { close(held) }
        try writeConfig(null + block("recorder", "Tape", ["encoder": "wave", "path": temp.path("tape.fifo")])
            + block("recorder", "Ogg", ["encoder": "vorbis", "path": temp.path("ogg.fifo")])
            + block("recorder", "Held", ["encoder": "null", "path": temp.path("held.fifo")]))
        let (host, port) = try serveOnFreePort()
        var stopped = false
        defer { if !stopped { stop(host) } }
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        XCTAssertTrue(try eventually(timeout: 10) { try elapsed(port) >= 2 }, "the music goes on: \((try? mpc(port, "status")) ?? "")")
        XCTAssertEqual(try mpc(port, "outputs"),
                       "Output 1 (Null Output) is enabled\nOutput 2 (Tape) is disabled\nOutput 3 (Ogg) is disabled\nOutput 4 (Held) is disabled\n")
        let told = (host.stdout + host.stderr).split(separator: "\n").filter { $0.contains(") disabled: ") }
        XCTAssertEqual(told.count, 3, "\(told)")
        XCTAssertTrue(told.contains { $0.contains("\"Held\" (recorder) disabled: cannot write to \(temp.path("held.fifo")): nobody reads it fast enough") }, "\(told)")
        XCTAssertTrue(told.contains { $0.contains("\"Ogg\" (recorder) disabled: recorder \"Ogg\": cannot open \(temp.path("ogg.fifo")) for writing: it is a FIFO nobody reads") }, "\(told)")

        // Enabled again it fails again at once, and disabled it stays off; the music never waits.
        try mpc(port, "enable", "Ogg")
        let before = try elapsed(port)
        XCTAssertTrue(try eventually(timeout: 5) { try elapsed(port) >= before + 1 }, (try? mpc(port, "status")) ?? "")
        try mpc(port, "disable", "Ogg")
        XCTAssertTrue(try mpc(port, "outputs").contains("Output 3 (Ogg) is disabled"))
        XCTAssertTrue(try mpc(port, "status").contains("[playing]"))

        let start = Date()
        stop(host)
        stopped = true
        XCTAssertLessThan(Date().timeIntervalSince(start), 2, "the host stops without waiting on an output")
    }

    /// True when something accepts TCP connections on 127.0.0.1 `port`.
    private func accepts(_ port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
    }

    /// Seconds played of the song, from `mpc status`.
    private func elapsed(_ port: String) throws -> Int {
        let status = try mpc(port, "status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("[playing]") }),
              let time = line.split(separator: " ").first(where: { $0.contains("/") && $0.contains(":") }),
              let played = time.split(separator: "/").first else { return -1 }
        let parts = played.split(separator: ":").compactMap { Int($0) }
        return parts.count == 2 ? parts[0] * 60 + parts[1] : -1
    }

    /// Every room through Snapcast: our fifo output feeds snapserver's pipe source (on loopback, its own
    /// config and state folder), and a snapclient writing to a file receives the song's 440 Hz tone.
    func testSnapcastPlaysTheFifoOutputToItsClients() throws {
        guard let server = try? TestProcess.which("snapserver"), let client = try? TestProcess.which("snapclient") else {
            throw XCTSkip("snapserver and snapclient are not installed (Debian's snapserver, snapclient)")
        }
        let fifo = temp.path("snapfifo")
        let state = temp.path("snapserver")
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        let streamPort = try freePort(), controlPort = try freePort(), httpPort = try freePort()
        try """
            [server]
            datadir = \(state)
            [http]
            enabled = false
            bind_to_address = 127.0.0.1
            port = \(httpPort)
            [tcp]
            enabled = true
            bind_to_address = 127.0.0.1
            port = \(controlPort)
            [stream]
            bind_to_address = 127.0.0.1
            port = \(streamPort)
            source = pipe://\(fifo)?name=default&sampleformat=44100:16:2
            [logging]
            sink = stderr
            """.write(toFile: temp.path("snapserver.conf"), atomically: true, encoding: .utf8)
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = state
        let snapserver = try RunningProcess(server, ["-c", temp.path("snapserver.conf")], environment: environment)
        defer {
            snapserver.signal(SIGTERM)
            if snapserver.finish(timeout: 5) == nil { XCTFail("snapserver did not stop on SIGTERM") }
        }
        XCTAssertTrue(eventually(timeout: 10) { accepts(streamPort) }, snapserver.stderr)

        try writeConfig(block("fifo", "Snapcast", ["path": fifo, "format": "44100:16:2"]))
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        let received = temp.path("received.pcm")
        let snapclient = try RunningProcess(client, ["-h", "127.0.0.1", "-p", "\(streamPort)", "--hostID", "xzmusic-test",
                                                     "--player", "file:filename=\(received)", "--logsink", "stderr"], environment: environment)
        defer {
            snapclient.signal(SIGTERM)
            if snapclient.finish(timeout: 5) == nil { XCTFail("snapclient did not stop on SIGTERM") }
        }
        try mpc(port, "add", "tone.wav")
        try mpc(port, "play")
        // Three seconds of the tone past the first (the server's buffer, the client's start).
        XCTAssertTrue(eventually(timeout: 20) { size("received.pcm") > 44100 * 4 * 4 },
                      "\(size("received.pcm")) bytes; \(snapclient.stderr.suffix(600)) \(snapserver.stderr.suffix(600))")
        let bytes = try Data(contentsOf: URL(fileURLWithPath: received))
        let tail = bytes.suffix(44100 * 4 * 2)
        try tail.write(to: URL(fileURLWithPath: temp.path("tail.pcm")))
        let samples = tail.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
        // The tone at half scale, not silence.
        XCTAssertEqual(Double(samples.max() ?? 0), 16384, accuracy: 1200)
        XCTAssertEqual(try roughFrequency(raw: temp.path("tail.pcm"), channels: 2), 440, accuracy: 10)
        XCTAssertTrue(try mpc(port, "status").contains("[playing]"))
    }

    func testAnIdleClientHearsEachSwitch() throws {
        try writeConfig(null + raw)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        let idle = try MPDClient.connect(host: "127.0.0.1", port: Int(port)!)
        // Only `output`, as MPD tells it for outputs without a mixer.
        for command in [["disable", "2"], ["toggleoutput", "2"], ["disable", "1"], ["toggleoutput", "1"]] {
            try idle.sendLine("idle")
            try TestProcess.runChecked("mpc", ["-p", port] + command)
            XCTAssertEqual(try idle.readResponse().map { "\($0.key): \($0.value)" }, ["changed: output"], "\(command)")
        }
        // Enabling an enabled output changes nothing, so there is nothing to hear: noidle ends the wait.
        try idle.sendLine("idle")
        try mpc(port, "enable", "2")
        try idle.sendLine("noidle")
        XCTAssertEqual(try idle.readResponse().count, 0)
    }

    func testTheStateFileKeepsEachOutputsChoiceByName() throws {
        try writeConfig(null + raw + wave)
        var (host, port) = try serveOnFreePort()
        try mpc(port, "disable", "Raw")
        stop(host)
        let state = try String(contentsOfFile: temp.path("library/host.state"), encoding: .utf8)
        XCTAssertTrue(state.contains("audio_device_state:1:Null Output\naudio_device_state:0:Raw\naudio_device_state:1:Wave\n"), state)

        // The Wave block is gone and Raw moved first: Raw stays off by its name, Wave leaves the state file.
        try writeConfig(raw + null)
        (host, port) = try serveOnFreePort()
        XCTAssertEqual(try mpc(port, "outputs"), "Output 1 (Raw) is disabled\nOutput 2 (Null Output) is enabled\n")
        stop(host)
        let restarted = try String(contentsOfFile: temp.path("library/host.state"), encoding: .utf8)
        XCTAssertFalse(restarted.contains(":Wave"), restarted)
        XCTAssertTrue(restarted.contains("audio_device_state:0:Raw"), restarted)
    }

    func testThePromptListsAndSwitchesOutputsByNumberOrName() throws {
        try writeConfig(null + raw + wave)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        XCTAssertEqual(try xzmusic(["outputs"]).stdout,
                       "Output 1 (Null Output) is enabled\nOutput 2 (Raw) is enabled\nOutput 3 (Wave) is enabled\n")
        XCTAssertEqual(try xzmusic(["outputs", "disable", "Raw", "3"]).stdout,
                       "Output 1 (Null Output) is enabled\nOutput 2 (Raw) is disabled\nOutput 3 (Wave) is disabled\n")
        XCTAssertEqual(try xzmusic(["outputs", "toggle", "2"]).stdout,
                       "Output 1 (Null Output) is enabled\nOutput 2 (Raw) is enabled\nOutput 3 (Wave) is disabled\n")
        XCTAssertEqual(try xzmusic(["outputs", "only", "Wave"]).stdout,
                       "Output 1 (Null Output) is disabled\nOutput 2 (Raw) is disabled\nOutput 3 (Wave) is enabled\n")
        XCTAssertEqual(try mpc(port, "outputs"),
                       "Output 1 (Null Output) is disabled\nOutput 2 (Raw) is disabled\nOutput 3 (Wave) is enabled\n")
        let wrong = try xzmusic(["outputs", "enable", "9"])
        XCTAssertEqual(wrong.status, 1)
        XCTAssertTrue(wrong.stderr.contains("no output \"9\": give its number (1 to 3) or name"), wrong.stderr)
        XCTAssertEqual(try xzmusic(["outputs", "enable"]).status, 64)
    }

    func testThePromptHostingItsOwnPlayerHasOutputsToo() throws {
        try writeConfig(null + raw)
        let prompt = try xzmusic([], input: "outputs disable 1\noutputs\n")
        XCTAssertTrue(prompt.stdout.contains("Output 1 (Null Output) is disabled\nOutput 2 (Raw) is enabled\n"), prompt.stdout + prompt.stderr)
    }

    func testBlocksThatCannotBeUsedAreToldAndTheHostStartsWithTheOthers() throws {
        let config = temp.path("config/xzmusic/config")
        try writeConfig(null + """
            audio_output {
                type "recorder"
                path "\(temp.path("a.ogg"))"
            }
            audio_output {
                type "shout"
                name "Icecast"
            }
            audio_output {
                type "recorder"
                name "Vorbis"
                path "\(temp.path("a.ogg"))"
                encoder "vorbis"
                quality "11"
            }
            audio_output {
                type "null"
                name "Null Output"
            }
            audio_output {
                type "null"
                name "Quiet"
                enabled "maybe"
            }
            """)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        XCTAssertEqual(try mpc(port, "outputs"), "Output 1 (Null Output) is enabled\n")
        let told = host.stdout + host.stderr
        let lines = told.split(separator: "\n").compactMap { line in line.range(of: config).map { line[$0.lowerBound...] } }
        XCTAssertEqual(lines, [
            "\(config) line 6: audio_output: a recorder output needs name \"…\"; the host starts without this output",
            "\(config) line 11: audio_output: no output type \"shout\"; types: alsa, ao, fifo, httpd, null, pulse, recorder; the host starts without this output",
            "\(config) line 19: audio_output: vorbis encoder: quality \"11\" is not a number in the range -1 to 10; the host starts without this output",
            "\(config) line 23: audio_output: another output is named \"Null Output\"; the host starts without this output",
            "\(config) line 28: audio_output: enabled must be yes or no, not \"maybe\"; the host starts without this output",
        ].map { Substring($0) }, told)
    }

    func testOutputsAnswerAsRealMPDForTheSameBlocks() throws {
        let fifo = """
            audio_output {
                type "fifo"
                name "Pipe"
                path "\(temp.path("pipe"))"
            }
            audio_output {
                type "null"
                name "Spare"
                enabled "no"
            }
            """
        // MPD takes no port 0: each host's stream gets a free port of its own.
        let stream = { (port: Int) in self.block("httpd", "Stream", ["port": "\(port)", "bind_to_address": "127.0.0.1", "quality": "4"]) }
        let vorbis = block("recorder", "Vorbis", ["encoder": "vorbis", "path": temp.path("out.ogg"), "quality": "4"])
        try writeConfig(null + raw + wave + fifo + "\n" + stream(try freePort()) + vorbis)
        let (host, port) = try serveOnFreePort()
        defer { stop(host) }
        let mpd = try startRealMPD(blocks: null + raw + wave + fifo + "\n" + stream(try freePort()) + vorbis)
        defer { mpd.signal(SIGTERM); _ = mpd.finish() }
        let ours = try MPDClient.connect(host: "127.0.0.1", port: Int(port)!)
        let theirs = try MPDClient.connect(host: "127.0.0.1", port: mpdPort)
        let requests = ["outputs", "enableoutput 99999999999999999999", "enableoutput -1", "enableoutput abc", "enableoutput 5",
                        "disableoutput 7", "toggleoutput", "enableoutput 1 2", "outputset 0 foo bar", "outputset 9 a b",
                        "outputset 4 always_on yes", "disableoutput 1", "toggleoutput 4", "enableoutput 0", "outputs"]
        for request in requests {
            XCTAssertEqual(answer(ours, request), answer(theirs, request), request)
        }
        let listed = answer(theirs, "outputs")
        XCTAssertTrue(listed.contains("plugin: httpd") && listed.contains("outputname: Vorbis"), "\(listed)")
    }

    private var mpdPort = 0

    /// Debian's real MPD on the same music and blocks.
    private func startRealMPD(blocks: String) throws -> RunningProcess {
        let folder = temp.path("mpd")
        try FileManager.default.createDirectory(atPath: folder + "/playlists", withIntermediateDirectories: true)
        mpdPort = try freePort()
        // The same paths would be two writers of one file: MPD's go to its own folder.
        let theirs = blocks.replacingOccurrences(of: temp.path("raw.pcm"), with: folder + "/raw.pcm")
            .replacingOccurrences(of: temp.path("out.wav"), with: folder + "/out.wav")
            .replacingOccurrences(of: temp.path("pipe"), with: folder + "/pipe")
            .replacingOccurrences(of: temp.path("out.ogg"), with: folder + "/out.ogg")
        try """
            music_directory "\(music.path)"
            playlist_directory "\(folder)/playlists"
            db_file "\(folder)/db"
            pid_file "\(folder)/pid"
            bind_to_address "127.0.0.1"
            port "\(mpdPort)"
            \(theirs)
            """.write(toFile: folder + "/mpd.conf", atomically: true, encoding: .utf8)
        let mpd = try RunningProcess(try TestProcess.which("mpd"), ["--no-daemon", folder + "/mpd.conf"], environment: ProcessInfo.processInfo.environment)
        XCTAssertTrue(eventually(timeout: 10) { (try? MPDClient.connect(host: "127.0.0.1", port: mpdPort)) != nil }, mpd.stderr)
        return mpd
    }

    /// sox's rough frequency of raw 44.1 kHz s16 PCM (its first channel).
    private func roughFrequency(raw path: String, channels: Int) throws -> Double {
        let statistics = try TestProcess.run("sox", ["-t", "raw", "-r", "44100", "-e", "signed", "-b", "16", "-c", "\(channels)",
                                                      path, "-n", "remix", "1", "stat"]).stderr
        let frequency = statistics.split(separator: "\n").first { $0.hasPrefix("Rough   frequency:") }
            .flatMap { Double($0.split(separator: " ").last ?? "") }
        return try XCTUnwrap(frequency, statistics)
    }

    /// A port of 127.0.0.1 nobody listens on now.
    private func freePort() throws -> Int {
        try XCTUnwrap(Int(try TestProcess.runChecked("python3", ["-c", "import socket; s=socket.socket(); s.bind(('127.0.0.1',0)); print(s.getsockname()[1])"])
            .stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
    }

    /// The answer's lines, or its ACK as one line.
    private func answer(_ client: MPDClient, _ line: String) -> [String] {
        do {
            try client.sendLine(line)
            return try client.readResponse().map { "\($0.key): \($0.value)" }
        } catch let error as MPDError {
            return ["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"]
        } catch {
            return ["\(error)"]
        }
    }
}

