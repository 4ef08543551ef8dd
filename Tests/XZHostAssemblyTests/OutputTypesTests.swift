import Foundation
import XCTest
import XZHostAssembly
import XZPlaybackEngine
import XZSystem

/// The one table of output types: config blocks read by each type's keys and warned of as the file's
/// own keys are, and the word of `--output` made through the same table.
final class OutputTypesTests: XCTestCase {
    /// A value of `kind` its parser takes.
    private func value(_ kind: ConfigKey.Kind) -> String {
        switch kind {
        case .yesNo: return "yes"
        case .wholeNumber(let range, _): return "\(range.lowerBound)"
        case .number(let range, _): return "\(range.lowerBound)"
        case .choice(let words): return words[0]
        case .httpURL: return "http://127.0.0.1/"
        case .text, .secret: return "x"
        case .path: return "/tmp/xzmusic-output-types"
        }
    }

    func testAMisspeltBlockKeyWarnsWithFileLineAndSuggestion() throws {
        let config = try ConfigFile(parsing: """
            port = 6600
            audio_output {
                type "recorder"
                name "Tape"
                path "/tmp/tape.ogg"
                encodr "wave"
                mixer_type "software"
                xyzzy "1"
            }
            audio_output {
                type "httpd"
                name "Stream"
                prot "8000"
            }
            """, source: "/home/u/config")
        XCTAssertEqual(AudioOutputTypes.warnings(of: config), [
            #"/home/u/config line 6: audio_output: unknown key "encodr"; did you mean "encoder"?"#,
            #"/home/u/config line 7: audio_output: "mixer_type" is an MPD setting XZMusic does not use; ignored"#,
            "/home/u/config line 8: audio_output: unknown key \"xyzzy\"; ignored (keys: "
                + (OutputType.commonKeys + OutputType.recorder.keys).map(\.name).joined(separator: ", ") + ")",
            #"/home/u/config line 13: audio_output: unknown key "prot"; did you mean "port"?"#,
        ])
    }

    func testACorrectConfigOfEveryTypeWithAllItsKeysWarnsNothing() throws {
        let blocks = AudioOutputTypes.all.map { type in
            "audio_output {\n" + type.allKeys.map { key in
                "    \(key.name) \"\(key.name == "type" ? type.name : value(key.kind))\"\n"
            }.joined() + "}\n"
        }
        let config = try ConfigFile(parsing: blocks.joined())
        XCTAssertEqual(config.blocks.count, AudioOutputTypes.all.count)
        XCTAssertEqual(AudioOutputTypes.warnings(of: config), [])
        XCTAssertEqual(config.warnings, [])
    }

    /// Every type's block, with the settings its users write, is made by the table.
    func testEveryTypeIsMadeFromItsBlock() throws {
        let folder = NSTemporaryDirectory() + "xzmusic-output-types-\(getpid())"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let settings = [
            "null": "", "ao": "driver \"null\"\noptions \"a=b\"", "alsa": "device \"hw:0\"", "pulse": "sink \"s\"",
            "fifo": "path \"\(folder)/fifo\"", "httpd": "port \"0\"\nencoder \"wave\"",
            "recorder": "path \"\(folder)/rec.ogg\"\nencoder \"vorbis\"\nquality \"4\"",
        ]
        let config = try ConfigFile(parsing: AudioOutputTypes.all.map { type in
            "audio_output {\ntype \"\(type.name)\"\nname \"\(type.name)\"\n\(try XCTUnwrap(settings[type.name], type.name))\n}\n"
        }.joined())
        let made = AudioOutputTypes.outputs(of: config)
        defer { made.outputs.forEach { $0.output.disable() } }
        XCTAssertEqual(made.notes, [])
        XCTAssertEqual(made.outputs.map(\.plugin), AudioOutputTypes.all.map(\.name))
    }

    func testAValueOutsideItsKeysDomainIsOneLineNamingItsLine() throws {
        let config = try ConfigFile(parsing: "audio_output {\ntype \"fifo\"\nname \"F\"\npath \"relative/fifo\"\n}\n", source: "/c")
        XCTAssertEqual(AudioOutputTypes.outputs(of: config).notes,
                       [#"/c line 4: audio_output: path must be an absolute path, not "relative/fifo"; the host starts without this output"#])
    }

    func testEveryOutputWordIsABlockOfTheTable() throws {
        func made(_ word: String) throws -> String {
            let output = try AudioOutputTypes.output(for: OutputSpec(parsing: word, currentDirectory: "/music"), realtime: false)
            return "\(output.name) (\(output.plugin))"
        }
        XCTAssertEqual(try made("default"), "default detected output (ao)")
        XCTAssertEqual(try made("null"), "Null Output (null)")
        XCTAssertEqual(try made("wav:/tmp/a b.wav"), "wav:/tmp/a b.wav (recorder)")
        XCTAssertEqual(try made("raw:C:/odd:name"), "raw:C:/odd:name (recorder)")
        let au = try OutputSpec(parsing: "au:x.au", currentDirectory: "/music")
        XCTAssertEqual(au.block.value("path"), "/music/x.au", "a relative path is the current folder's")
        XCTAssertEqual(au.block.value("encoder"), "au")
        for word in ["default", "null", "wav:w", "au:a", "raw:r"] {
            XCTAssertEqual(try OutputSpec(parsing: word).description, word)
        }
        for bad in ["", "alsa", "wav", "wav:", "mp3:x.mp3", "nul"] {
            XCTAssertThrowsError(try OutputSpec(parsing: bad), bad) { error in
                XCTAssertTrue("\(error)".contains("\"\(bad)\""), "\(error)")
            }
        }
    }
}
