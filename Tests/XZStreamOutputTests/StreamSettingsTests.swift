import XCTest
import XZEncoders
import XZPlaybackEngine
import XZStreamOutput
import XZSystem

/// An `audio_output { type "httpd" … }` block read as MPD reads it, and its one-line errors.
final class StreamSettingsTests: XCTestCase {
    /// The block read by the httpd type's keys, as the host reads it.
    private func block(_ lines: String, password: String? = nil) throws -> OutputBlock {
        let file = try ConfigFile(parsing: "audio_output {\n    type \"httpd\"\n\(lines)\n}\n")
        return try OutputBlock(XCTUnwrap(file.blocks(named: "audio_output").first), of: .httpd, in: file, hostPassword: password)
    }

    private func refusal(_ lines: String, password: String? = nil) throws -> String {
        do {
            _ = try StreamOutputSettings(block: block(lines, password: password))
            return "accepted"
        } catch {
            return "\(error)"
        }
    }

    func testMPDsDefaults() throws {
        let settings = try StreamOutputSettings(block: block("name \"Stream\"\nbitrate \"128\""))
        XCTAssertEqual(settings.port, 8000)
        XCTAssertEqual(settings.address, "127.0.0.1")
        XCTAssertEqual(settings.encoder, .vorbis)
        XCTAssertEqual(settings.maxClients, 0)
        XCTAssertEqual(settings.listenerLimit, StreamOutputSettings.listenerHardCap)
        XCTAssertFalse(settings.alwaysOn)
        XCTAssertTrue(settings.sendsTags)
        XCTAssertNil(settings.password)
        XCTAssertEqual(settings.encoderSettings, ["bitrate": "128"])
    }

    func testEveryKeyRead() throws {
        let settings = try StreamOutputSettings(block: block("""
            name "Kitchen"
            port "8123"
            bind_to_address "any"
            encoder "wave"
            max_clients "3"
            always_on "yes"
            tags "no"
            quality "5.0"
            """, password: "pw"))
        XCTAssertEqual(settings.port, 8123)
        XCTAssertEqual(settings.address, "::")
        XCTAssertEqual(settings.encoder, .wave)
        XCTAssertEqual(settings.listenerLimit, 3)
        XCTAssertTrue(settings.alwaysOn)
        XCTAssertFalse(settings.sendsTags)
        XCTAssertEqual(settings.password, "pw")
        XCTAssertEqual(settings.encoderSettings, [:], "the wave encoder reads no setting")
    }

    func testBadValuesAreRefusedNamingTheKey() throws {
        XCTAssertEqual(try refusal("port \"8000\""), "config line 1: audio_output: a httpd output needs name \"…\"")
        XCTAssertEqual(try refusal("name \"s\"\nport \"70000\""), "config line 4: audio_output: port must be a whole number from 0 to 65535, not \"70000\"")
        XCTAssertTrue(try refusal("name \"s\"\nport \"-1\"").contains("port must be"))
        XCTAssertTrue(try refusal("name \"s\"\nmax_clients \"99999999999\"").contains("max_clients must be"))
        XCTAssertTrue(try refusal("name \"s\"\nalways_on \"maybe\"").contains("always_on must be yes or no"))
        XCTAssertTrue(try refusal("name \"s\"\ntags \"2\"").contains("tags must be"))
        XCTAssertTrue(try refusal("name \"s\"\nencoder \"mp4\"").contains("encoder must be opus, vorbis, lame, flac or wave"))
        XCTAssertTrue(try refusal("name \"s\"\nbind_to_address \"a b\"").contains("bind_to_address"))
    }

    func testAnOpenAddressNeedsTheHostsPassword() throws {
        XCTAssertTrue(try refusal("name \"s\"\nbind_to_address \"0.0.0.0\"")
            .contains("refusing 'bind_to_address' 0.0.0.0 without a password"))
        XCTAssertTrue(try refusal("name \"s\"\nbind_to_address \"any\"").contains("without a password"))
        XCTAssertEqual(try refusal("name \"s\"\nbind_to_address \"0.0.0.0\"", password: "pw"), "accepted")
        XCTAssertEqual(try refusal("name \"s\"\nbind_to_address \"127.0.0.1\""), "accepted")
        XCTAssertEqual(try refusal("name \"s\"\nbind_to_address \"::1\""), "accepted")
    }

    func testAPortTakenIsOneLine() throws {
        var settings = StreamOutputSettings(name: "first")
        settings.port = 0
        settings.encoder = .wave
        let first = try HTTPStreamOutput(settings: settings)
        defer { first.shutdown() }
        settings.port = first.port
        XCTAssertThrowsError(try HTTPStreamOutput(settings: settings)) { error in
            guard let refusal = error as? StreamOutputError, refusal == .cannotListen else { return XCTFail("\(error)") }
            let why = refusal.message
            XCTAssertTrue(why.hasPrefix("audio_output \"first\": cannot listen on 127.0.0.1 port \(first.port)"), why)
            XCTAssertFalse(why.contains("\n"))
        }
    }

    /// As MPD 0.23 (checked with its `httpd` output on this machine): LAME with neither `bitrate` nor `quality`
    /// refuses to start in one line, Vorbis starts at quality 3; each encoder's own range errors come through.
    func testEncoderSettingsAsMPD() throws {
        func output(_ lines: String) throws -> String {
            do {
                let output = try OutputType.httpd.make(block("name \"s\"\nport \"0\"\n" + lines))
                (output as? HTTPStreamOutput)?.shutdown()
                return "started"
            } catch {
                return "\(error)"
            }
        }
        XCTAssertEqual(try output("encoder \"lame\""), "audio_output \"s\": neither bitrate nor quality defined")
        XCTAssertEqual(try output("encoder \"lame\"\nbitrate \"128\""), "started")
        XCTAssertEqual(try output("encoder \"vorbis\""), "started")
        XCTAssertEqual(try output("encoder \"vorbis\"\nquality \"5\"\nbitrate \"128\""), "audio_output \"s\": quality and bitrate are both defined")
        XCTAssertEqual(try output("encoder \"opus\"\nbitrate \"499\""),
                       "audio_output \"s\": bitrate \"499\" is not \"auto\", \"max\" or a number of bits per second from 500 to 512000")
    }
}
