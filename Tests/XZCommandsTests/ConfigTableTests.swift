import Foundation
import XCTest
@testable import XZCommands
import XZDownloader
import XZPlaybackEngine
import XZPlaybackValues
import XZHostAssembly
import XZSystem
import XZTestSupport

/// The one table of config keys: every key parses its default and is read by the reader it names, a bad
/// value is one line naming the file, line and key, an unknown key warns with the closest one, the file
/// is read once per process, `xzmusic config` shows where each value comes from, and the README's table
/// is the table.
final class ConfigTableTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("config-table")
        try FileManager.default.createDirectory(atPath: temp.path("config/xzmusic"), withIntermediateDirectories: true)
    }

    override func tearDown() {
        temp = nil
    }

    private func writeConfig(_ text: String) throws {
        try text.write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)
    }

    // MARK: - The table and its readers

    func testEveryKeyIsDeclaredOnceAndParsesItsDefault() throws {
        XCTAssertEqual(Set(ConfigKey.all.map(\.name)).count, ConfigKey.all.count, "a key declared twice")
        XCTAssertGreaterThanOrEqual(ConfigKey.all.count, 35)
        for key in ConfigKey.all {
            XCTAssertEqual(ConfigKey.named(key.name), key)
            XCTAssertNil(ConfigKey.mpdOnly[key.name] ?? nil, "\(key.name) is read, so it is not MPD's only")
            switch key.defaultValue {
            case .value(let text), .environment(_, let text):
                XCTAssertNotNil(key.parse(text), "\(key.name)'s default \(text) is not a value it takes")
            case .unset:
                break
            }
        }
        // The defaults written out are what every reader has without a file.
        let defaults = ConfigFile(source: "config", entries: []).settings().compactMap { setting in
            setting.text.map { "\(setting.key.name) = \($0)" }
        }
        XCTAssertEqual(try ReadSettings(ConfigFile(parsing: defaults.joined(separator: "\n"))), try ReadSettings(ConfigFile(parsing: "")))
    }

    func testEveryKeyIsReadByTheReaderItNames() throws {
        let none = try ReadSettings(ConfigFile(parsing: ""))
        for key in ConfigKey.all {
            let value = try XCTUnwrap(Self.otherValue(key), key.name)
            let read = try ReadSettings(ConfigFile(parsing: "\(key.name) = \(value)\n"))
            for reader in ConfigKey.Reader.allCases {
                XCTAssertEqual(read.same(as: none, in: reader), reader != key.reader,
                               "\(key.name) = \(value) and \(reader.rawValue)")
            }
        }
    }

    func testTheChoicesAreTheReadersValues() {
        XCTAssertEqual(ConfigKey.replayGainMode.kind, .choice(ReplayGainMode.allCases.map(\.rawValue)))
        XCTAssertEqual(ConfigKey.onlineCache.kind, .choice(OnlineCache.allCases.map(\.rawValue)))
    }

    func testABadValueIsOneLineNamingFileLineAndKey() throws {
        var checked = 0
        for key in ConfigKey.all {
            for bad in Self.badValues(key) {
                let config = try ConfigFile(parsing: "# settings\n\(key.name) = \(bad)\n", source: "/home/u/config")
                XCTAssertThrowsError(try ReadSettings(config), "\(key.name) = \(bad)") { error in
                    XCTAssertEqual(error as? SystemError, .config)
                    XCTAssertEqual("\(error)", "/home/u/config line 2: \(key.name) must be \(key.expectation), not \"\(bad)\"")
                }
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 40)
        XCTAssertThrowsError(try ReadSettings(ConfigFile(parsing: "port = \u{1B}[2J"))) { error in
            XCTAssertFalse("\(error)".contains("\u{1B}"), "\(error)")
        }
    }

    func testYesNoTakesMPDsWordsAndOnOff() {
        for word in ["yes", "YES", "true", "True", "1", "on", "ON"] { XCTAssertEqual(ConfigKey.yesNo(word), true, word) }
        for word in ["no", "No", "false", "FALSE", "0", "off"] { XCTAssertEqual(ConfigKey.yesNo(word), false, word) }
        for word in ["", "y", "2", "maybe", "yes please"] { XCTAssertNil(ConfigKey.yesNo(word), word) }
    }

    func testPathsTakeTheHomeAndNone() {
        let environment = ["HOME": "/home/u"]
        XCTAssertEqual(ConfigKey.musicDirectory.parse("~/Music", environment: environment), .text("/home/u/Music"))
        XCTAssertEqual(ConfigKey.musicDirectory.parse("/srv/music", environment: environment), .text("/srv/music"))
        XCTAssertNil(ConfigKey.musicDirectory.parse("none", environment: environment))
        XCTAssertEqual(ConfigKey.stateFile.parse("none", environment: environment), .noPath)
        XCTAssertEqual(ConfigKey.stateFile.parse("", environment: environment), .noPath)
    }

    // MARK: - Warnings

    func testAMisspeltKeyWarnsWithItsLineAndTheClosestKey() throws {
        let config = try ConfigFile(parsing: """
            # the host
            port = 6601

            password = x
            restore_paused = no
            # a typo:
            bind_adress = 0.0.0.0
            replaygain_mode = album
            colour = blue
            db_file = /var/lib/mpd/db
            replaygain = album
            port = 6602
            """)
        XCTAssertEqual(config.warnings, [
            #"config line 7: unknown key "bind_adress"; did you mean "bind_to_address"?"#,
            #"config line 8: unknown key "replaygain_mode"; did you mean "replay_gain_mode"?"#,
            #"config line 9: unknown key "colour"; ignored ('xzmusic config' lists the keys)"#,
            #"config line 10: "db_file" is an MPD setting XZMusic does not use; ignored"#,
            #"config line 11: "replaygain" is MPD's name; XZMusic's key is "replay_gain_mode""#,
            #"config line 12: "port" is set again (first on line 2); this line counts"#,
        ])
        // The later line counts; the lines that set nothing stop nothing.
        XCTAssertEqual(try HostSettings(config: config).port, 6602)
        XCTAssertEqual(try ConfigFile(parsing: "retries = 2\n").warnings, [])
        // A hostile key costs no comparison and is shown escaped.
        let long = try ConfigFile(parsing: String(repeating: "k", count: 100_000) + "\u{1B} = 1")
        XCTAssertEqual(long.warnings.count, 1)
        XCTAssertFalse(long.warnings[0].contains("\u{1B}"))
    }

    func testAudioOutputBlocksAreReadAsMPDWritesThem() throws {
        let config = try ConfigFile(parsing: """
            port = 6601
            audio_output {
                type "httpd"
                name   "My HTTP Stream"
                # a comment inside
                port = "8000"
            }
            Audio_Output {
                type "null"
            }
            password = x
            """)
        XCTAssertEqual(config.entries.map(\.key), ["port", "password"])
        XCTAssertEqual(config.blocks(named: "audio_output").count, 2)
        let stream = config.blocks[0]
        XCTAssertEqual(stream.line, 2)
        XCTAssertEqual(stream.value("type"), "httpd")
        XCTAssertEqual(stream.value("name"), "My HTTP Stream")
        XCTAssertEqual(stream.value("port"), "8000")
        XCTAssertNil(stream.value("bind_to_address"))
        XCTAssertEqual(config.blocks[1].value("type"), "null")
        XCTAssertEqual(config.warnings, [])

        for (text, message) in [
            ("audio_output {\n type \"null\"\n", "config line 1: the audio_output block is not closed with \"}\""),
            ("}\n", "config line 1: \"}\" closes no block"),
            ("decoder {\n}\n", "config line 1: unknown block \"decoder\"; blocks: audio_output"),
            ("audio_output {\naudio_output {\n}\n}\n", "config line 2: a block cannot hold another block"),
            ("type \"null\"\n", "config line 1: expected key = value"),
            (String(repeating: "audio_output {\n}\n", count: 65), "config line 129: more than 64 blocks"),
        ] {
            XCTAssertThrowsError(try ConfigFile(parsing: text)) { XCTAssertEqual("\($0)", message) }
        }
    }

    func testTheFileIsARegularFileOfAtMostOneMebibyte() throws {
        let environment = ["XDG_CONFIG_HOME": temp.path("config")]
        XCTAssertEqual(try ConfigFile.load(environment: environment).entries, [])
        try writeConfig(String(repeating: "# padding\n", count: ConfigFile.sizeLimit / 10 + 1))
        XCTAssertThrowsError(try ConfigFile.load(environment: environment)) { error in
            XCTAssertEqual("\(error)", "the config file \(temp.path("config/xzmusic/config")) is larger than 1024 KiB")
        }
        // A FIFO would hold the reader forever: refused before a byte is read.
        try FileManager.default.removeItem(atPath: temp.path("config/xzmusic/config"))
        XCTAssertEqual(mkfifo(temp.path("config/xzmusic/config"), 0o600), 0)
        XCTAssertThrowsError(try ConfigFile.load(environment: environment)) { error in
            XCTAssertEqual("\(error)", "the config file \(temp.path("config/xzmusic/config")) is not a regular file")
        }
    }

    // MARK: - The program

    func testTheProgramWarnsOnceAndReadsTheFileOnce() throws {
        try writeConfig("port = 6601\nbind_adress = 0.0.0.0\n")
        let prompt = try RunningProcess(binary, [], environment: environment)
        defer { if prompt.process.isRunning { prompt.signal(SIGKILL) } }
        prompt.send("config")
        XCTAssertTrue(prompt.waitForOutput("ccmixter_url"), prompt.stdout + prompt.stderr)
        // A change made while the program runs is not read: a process has one config.
        try writeConfig("port = 6602\n")
        prompt.send("config")
        prompt.send("quit")
        XCTAssertEqual(prompt.finish(), 0, prompt.stderr)
        XCTAssertEqual(prompt.stdout.components(separatedBy: "port = 6601").count - 1, 2, prompt.stdout)
        XCTAssertFalse(prompt.stdout.contains("6602"), prompt.stdout)
        let warnings = prompt.stderr.split(separator: "\n").filter { $0.contains("bind_adress") }
        XCTAssertEqual(warnings, [#"xzmusic: warning: \#(temp.path("config/xzmusic/config")) line 2: unknown key "bind_adress"; did you mean "bind_to_address"?"#])
    }

    func testConfigShowsEachValueAndWhereItCameFrom() throws {
        try writeConfig("# mine\nport = 6601\npassword = hush\n")
        var environment = self.environment
        environment["XDG_MUSIC_DIR"] = temp.path("music")
        let listed = try TestProcess.run(binary, ["config"], environment: environment)
        XCTAssertEqual(listed.status, 0, listed.stderr)
        XCTAssertEqual(listed.stderr, "")
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.first, "# \(temp.path("config/xzmusic/config"))")
        func line(_ key: String) -> String? { lines.first { $0.hasPrefix("\(key) =") || $0.hasPrefix("# \(key) =") } }
        XCTAssertEqual(line("port")?.replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression), "port = 6601 # line 2")
        XCTAssertEqual(line("password")?.replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression), "password = ******** # line 3")
        XCTAssertEqual(line("music_directory")?.replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression),
                       "music_directory = \(temp.path("music")) # $XDG_MUSIC_DIR")
        XCTAssertEqual(line("retries")?.replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression), "retries = 5 # default")
        XCTAssertEqual(line("state_file")?.replacingOccurrences(of: #" +"#, with: " ", options: .regularExpression),
                       "# state_file = # default: \(temp.path("library"))/host.state")
        XCTAssertTrue(lines.contains("# XZMUSIC_OUTPUT=null: the audio output of serve and a hosting prompt, unless --output names one"),
                      listed.stdout)
        XCTAssertEqual(ConfigKey.all.filter { line($0.name) == nil }, [])

        let json = try TestProcess.run(binary, ["config", "--json"], environment: environment)
        XCTAssertEqual(json.status, 0, json.stderr)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let keys = try XCTUnwrap(object["keys"] as? [[String: Any]])
        let port = try XCTUnwrap(keys.first { $0["key"] as? String == "port" })
        XCTAssertEqual(port["source"] as? String, "file")
        XCTAssertEqual(port["line"] as? Int, 2)
        let music = try XCTUnwrap(keys.first { $0["key"] as? String == "music_directory" })
        XCTAssertEqual(music["source"] as? String, "environment")
        XCTAssertEqual(music["variable"] as? String, "XDG_MUSIC_DIR")
        XCTAssertEqual(keys.count, ConfigKey.all.count)
    }

    func testConfigFailsOnABadValueWithOneLine() throws {
        try writeConfig("port = 6601\nconcurrency = lots\n")
        let listed = try xzmusic(["config"])
        XCTAssertEqual(listed.status, 1)
        XCTAssertEqual(listed.stderr, "xzmusic: \(temp.path("config/xzmusic/config")) line 2: concurrency must be a whole number from 1 to 32, not \"lots\"\n")
        XCTAssertTrue(listed.stdout.contains(#"# line 2: concurrency must be a whole number from 1 to 32, not "lots""#), listed.stdout)
    }

    // MARK: - The README

    func testTheReadmesTableIsTheTable() throws {
        let readme = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        guard let heading = readme.range(of: "\n## The config file\n"),
              let start = readme.range(of: "\n| key |", range: heading.upperBound..<readme.endIndex) else {
            throw TestFailure("README has no table of keys under \"## The config file\"")
        }
        let table = readme[readme.index(after: start.lowerBound)...].split(separator: "\n", omittingEmptySubsequences: false)
            .prefix { $0.hasPrefix("|") }.joined(separator: "\n")
        XCTAssertEqual(table, ConfigCommand.markdownTable(), "README's table differs: paste `xzmusic config --markdown` into it")
        let printed = try xzmusic(["config", "--markdown"])
        XCTAssertEqual(printed.stdout, ConfigCommand.markdownTable() + "\n")
    }

    // MARK: - Helpers

    /// A value `key` takes other than its default.
    static func otherValue(_ key: ConfigKey) -> String? {
        let current: String? = switch key.defaultValue {
        case .value(let text), .environment(_, let text): text
        case .unset: nil
        }
        switch key.kind {
        case .yesNo: return current.flatMap(ConfigKey.yesNo) == true ? "no" : "yes"
        case .wholeNumber(let range, _): return current == "\(range.lowerBound)" ? "\(range.upperBound)" : "\(range.lowerBound)"
        case .number(let range, _):
            return current.flatMap(Double.init) == range.lowerBound ? "\(range.upperBound)" : "\(range.lowerBound)"
        case .choice(let words): return words.first { $0 != current }
        case .httpURL: return "http://127.0.0.1:9"
        case .text, .secret: return "elsewhere"
        case .path: return "/srv/elsewhere"
        }
    }

    /// Values `key` does not take.
    static func badValues(_ key: ConfigKey) -> [String] {
        switch key.kind {
        case .yesNo: return ["maybe", "2"]
        case .wholeNumber(let range, _): return ["\(range.upperBound + 1)", "\(range.lowerBound - 1)", "1.5", "many"]
        case .number(let range, _): return ["\(Int(range.upperBound * 2 + 1))", "nan", "inf", "soon"]
        case .choice: return ["sometimes"]
        case .httpURL: return ["ftp://example.org", "example.org"]
        case .text(let allowsEmpty): return allowsEmpty ? [] : [""]
        case .secret: return [""]
        case .path(let orNone): return orNone ? ["relative/file"] : ["relative/folder", "none"]
        }
    }
}

/// Every reader's settings from one config file.
private struct ReadSettings: Equatable {
    var host: HostSettings
    var replayGain: ReplayGainSettings
    var crossfade: CrossfadeSettings
    var downloads: DownloadSettings

    init(_ config: ConfigFile) throws {
        host = try HostSettings(config: config)
        replayGain = try ReplayGainSettings(config: config)
        crossfade = try CrossfadeSettings().reading(config)
        downloads = try DownloadSettings(config: config)
    }

    /// Whether `reader`'s part of the settings is the same in both.
    func same(as other: ReadSettings, in reader: ConfigKey.Reader) -> Bool {
        switch reader {
        case .host:
            var mine = host
            mine.libraryWatch = other.host.libraryWatch
            return mine == other.host
        case .libraryWatch: return host.libraryWatch == other.host.libraryWatch
        case .replayGain: return replayGain == other.replayGain
        case .crossfade: return crossfade == other.crossfade
        case .downloads: return downloads == other.downloads
        }
    }
}
