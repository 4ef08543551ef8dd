import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport
import XZCorpusTestSupport

/// Tags and durations against tinytag's expectations (the public corpus tinytag-tinytag, optional),
/// and the decoder's PCM against the recorded `mpg123 -v -s` decode of every sample.
final class TinytagCorpusTests: XCTestCase {
    /// Fields where TagLib and tinytag legitimately disagree. Keep this short and explain each.
    static let exclusions: [String: Set<String>] = [
        // tinytag turns SYLT (synchronised lyrics) into text; TrackTags.lyrics is USLT only.
        "synced_lyrics_invalid.mp3": ["lyrics"],
        "synced_lyrics_milliseconds.mp3": ["lyrics"],
        "synced_lyrics_no_terminator_latin1.mp3": ["lyrics"],
        "synced_lyrics_no_terminator_utf16.mp3": ["lyrics"],
    ]

    /// SOURCES.md: these hold GBK bytes in ISO-8859-1 frames; tinytag returns the Latin-1 reading.
    static let gbkStoredAsLatin1: Set<String> = ["chinese_id3.mp3"]

    struct DecodeRecord {
        let hasFormat: Bool
        let pcmBytes: Int
        let md5: String
    }

    private var samples: URL!
    private var expected: [String: [String: Any]] = [:]
    private var decodeTable: [String: DecodeRecord] = [:]

    override func setUpWithError() throws {
        let root = try Corpora.require("tinytag-tinytag", files: [
            "samples", "expected_metadata_from_test_all.json", "mpg123-1.31.2_decode_table.tsv"])
        samples = root.appendingPathComponent("samples")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("expected_metadata_from_test_all.json")))
        expected = try XCTUnwrap(json as? [String: [String: Any]])
        let tsv = try String(contentsOf: root.appendingPathComponent("mpg123-1.31.2_decode_table.tsv"), encoding: .utf8)
        for line in tsv.split(separator: "\n") where !line.hasPrefix("#") && !line.hasPrefix("file\t") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard f.count >= 6, let bytes = Int(f[4]) else { continue }
            decodeTable[f[0]] = DecodeRecord(hasFormat: !f[3].isEmpty, pcmBytes: bytes, md5: f[5])
        }
        XCTAssertGreaterThan(expected.count, 80)
        XCTAssertGreaterThan(decodeTable.count, 80)
    }

    /// Files whose ID3v2 header claims more bytes than the file holds (the sample was cut short).
    /// libmpg123 reads a whole tag before parsing it, so these give no ID3v2 data and no audio.
    private func tagRunsPastEnd(_ url: URL) throws -> Bool {
        let bytes = [UInt8](try Data(contentsOf: url))
        guard bytes.count >= 10, bytes[0...2] == [0x49, 0x44, 0x33] else { return false }
        let size = bytes[6...9].reduce(0) { $0 << 7 | Int($1 & 0x7F) }
        return 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0) > bytes.count
    }

    /// Album artist, disc, genre (ID3v1 numbers resolved) and every artist of a tag, where tinytag names them.
    func testBrowsingTagsMatchTinytag() throws {
        var checked = 0
        for name in expected.keys.sorted() where name.hasSuffix(".mp3") && !(Self.exclusions[name] ?? []).contains("artist") {
            let url = samples.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path), try !tagRunsPastEnd(url),
                  !Self.gbkStoredAsLatin1.contains(name) else { continue }
            let want = try XCTUnwrap(expected[name])
            let tags = try AudioTags.read(path: url.path)
            if let albumArtist = want["albumartist"] as? String {
                XCTAssertEqual(tags.albumArtist, albumArtist, "\(name) albumartist")
            }
            if let disc = want["disc"] as? Int { XCTAssertEqual(tags.disc, disc, "\(name) disc") }
            if let genre = want["genre"] as? String { XCTAssertEqual(tags.genres.first, genre, "\(name) genre") }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 60)
        // Four TPE1 frames in one tag, one of them a NUL-separated list: every value of every frame.
        let name = "id3_multiple_artists.mp3"
        let several = try AudioTags.read(path: samples.appendingPathComponent(name).path)
        XCTAssertEqual(several.artists, try XCTUnwrap(Self.allArtists(expected[name])))
    }

    func testTagsMatchTinytag() throws {
        var checked = 0
        var cutShort: [String] = []
        for name in expected.keys.sorted() {
            let url = samples.appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: url.path) else { continue }  // non-ASCII name not shipped
            if try tagRunsPastEnd(url) {
                cutShort.append(name)
                XCTAssertThrowsError(try AudioDecoders.probe(path: url.path), name) { XCTAssertTrue($0 is AudioError, name) }
                XCTAssertThrowsError(try MP3Decoder(path: url.path), name) { error in
                    XCTAssertTrue(String(describing: error).contains("ID3v2"), "\(name): \(error)")
                }
                continue
            }
            let want = try XCTUnwrap(expected[name])
            let tags = try AudioTags.read(path: url.path)
            let skip = Self.exclusions[name] ?? []

            for field in ["title", "artist", "album"] where !skip.contains(field) {
                let got: String? = field == "title" ? tags.title : field == "artist" ? tags.artist : tags.album
                // tinytag keeps the first artist in `artist` and the others in `other`; TrackTags joins them all.
                var value = field == "artist" ? Self.allArtists(want)?.joined(separator: " / ")
                    : (want[field] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines)
                if let v = value, Self.gbkStoredAsLatin1.contains(name) {
                    value = String(decoding: try ID3Builder.encode(v, as: "LATIN1").gbkDecoded(), as: UTF8.self)
                }
                XCTAssertEqual(got, value?.isEmpty == true ? nil : value, "\(name) \(field)")
            }
            if !skip.contains("year") {
                XCTAssertEqual(tags.year, (want["year"] as? String).flatMap(Self.fourDigitYear), "\(name) year")
            }
            if !skip.contains("track") {
                XCTAssertEqual(tags.track, want["track"] as? Int, "\(name) track")
            }
            if !skip.contains("lyrics") {
                let lyrics = ((want["other"] as? [String: Any])?["lyrics"] as? [String])?.first
                XCTAssertEqual(tags.lyrics, lyrics, "\(name) lyrics")
            }
            checked += 1
        }
        XCTAssertGreaterThan(checked, 70)
        XCTAssertEqual(cutShort.count, 9, "cut-short tag samples: \(cutShort)")
    }

    /// Every artist tinytag names for a file: `artist`, then `other.artist`, repeats dropped.
    static func allArtists(_ want: [String: Any]?) -> [String]? {
        guard let want, let first = (want["artist"] as? String)?.trimmingCharacters(in: .whitespacesAndNewlines) else { return nil }
        var seen = Set<String>()
        let all = [first] + ((want["other"] as? [String: Any])?["artist"] as? [String] ?? [])
        return all.filter { !$0.isEmpty && seen.insert($0).inserted }
    }

    /// "2010" -> 2010; tinytag's "0" (ID3v1 filler) is no year.
    static func fourDigitYear(_ s: String) -> Int? {
        let digits = s.prefix(4)
        guard digits.count == 4, digits.allSatisfy(\.isNumber), let y = Int(digits), y > 0 else { return nil }
        return y
    }

    func testChineseGBKTagsAreRecovered() throws {
        // Values from SOURCES.md: .encode('latin-1').decode('gbk') of tinytag's strings.
        let tags = try AudioTags.read(path: samples.appendingPathComponent("chinese_id3.mp3").path)
        XCTAssertEqual(tags.title, "角落之歌")
        XCTAssertEqual(tags.album, "角落之歌")
        XCTAssertEqual(tags.artist, "苏云")
    }

    func testProbeFormatAndDuration() throws {
        var checked = 0
        for name in expected.keys.sorted() {
            let url = samples.appendingPathComponent(name)
            guard let record = decodeTable[name], FileManager.default.fileExists(atPath: url.path) else { continue }
            let want = try XCTUnwrap(expected[name])
            guard record.hasFormat else {
                // mpg123 found no frame it could start on (tag-only, one-frame or cut-short files).
                XCTAssertThrowsError(try AudioDecoders.probe(path: url.path), name) { XCTAssertTrue($0 is AudioError, name) }
                continue
            }
            let info = try AudioDecoders.probe(path: url.path)
            XCTAssertEqual(info.tags, try AudioTags.read(path: url.path), name)
            if let rate = want["samplerate"] as? Int { XCTAssertEqual(info.format.sampleRate, rate, name) }
            if let channels = want["channels"] as? Int { XCTAssertEqual(info.format.channels, channels, name) }
            if let seconds = want["duration"] as? Double {
                let got = try XCTUnwrap(info.durationMs, name)
                // tinytag counts whole frames and does not apply the LAME gapless trim libmpg123 does:
                // encoder delay 576 + decoder delay 529 + padding (< 1 frame), plus one frame of rounding;
                // frames hold at most 1152 samples. That bound is 77 ms at 44.1 kHz but 426 ms at 8 kHz.
                let gaplessBound = 1000.0 * Double(576 + 529 + 2 * 1152) / Double(info.format.sampleRate)
                let tolerance = max(100, seconds * 1000 * 0.02, gaplessBound)
                XCTAssertEqual(Double(got), seconds * 1000, accuracy: tolerance, name)
                checked += 1
            }
        }
        XCTAssertGreaterThan(checked, 50)
    }

    /// The decoder must equal `mpg123 -s` byte for byte; the table records its md5 for every sample.
    func testDecoderMatchesRecordedMpg123Output() throws {
        let folder = try TemporaryFolder("audio-pcm")
        let tmp = folder.url.appendingPathComponent("decoded.pcm")
        var compared = 0
        for (name, record) in decodeTable.sorted(by: { $0.key < $1.key }) {
            let path = samples.appendingPathComponent(name).path
            let pcm: Data
            do {
                pcm = try PCM.decodeFile(path).1
            } catch let error as AudioError {
                // Refusing a file is right only when mpg123 got no audio out of it either.
                XCTAssertEqual(record.pcmBytes, 0, "\(name): \(error)")
                XCTAssertTrue(error.description.hasPrefix(path + ": "), error.description)
                continue
            }
            XCTAssertEqual(pcm.count, record.pcmBytes, name)
            try pcm.write(to: tmp)
            XCTAssertEqual(try Tool.md5(tmp.path), record.md5, name)
            compared += 1
        }
        XCTAssertGreaterThan(compared, 50)
    }

    func testDecoderLengthMatchesDecodedSamples() throws {
        for (name, record) in decodeTable where record.pcmBytes > 0 {
            let (decoder, pcm) = try PCM.decodeFile(samples.appendingPathComponent(name).path)
            XCTAssertEqual(decoder.lengthInSamples, pcm.count / decoder.format.bytesPerFrame, name)
            XCTAssertEqual(decoder.positionInSamples, pcm.count / decoder.format.bytesPerFrame, name)
            XCTAssertNil(decoder.damageReport, name)
        }
    }

    func testBrokenSamplesThrowAudioError() throws {
        for name in ["empty_file.mp3", "incomplete.mp3", "invalid_file_larger.mp3", "empty_frame.mp3"] {
            let path = samples.appendingPathComponent(name).path
            XCTAssertThrowsError(try MP3Decoder(path: path), name) { XCTAssertTrue($0 is AudioError, name) }
            XCTAssertThrowsError(try AudioDecoders.probe(path: path), name) { XCTAssertTrue($0 is AudioError, name) }
        }
    }
}

extension Array where Element == UInt8 {
    /// GBK bytes to UTF-8 through the system's iconv tool.
    func gbkDecoded() throws -> [UInt8] {
        try Tool.iconv(self, from: "GBK", to: "UTF-8")
    }
}
