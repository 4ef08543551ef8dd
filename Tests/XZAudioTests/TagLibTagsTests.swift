import Foundation
import XCTest
@testable import XZAudio
import XZTestSupport

/// Tags of every format, written at test time by the formats' own tools (lame, flac/metaflac, oggenc/
/// vorbiscomment, opusenc, ffmpeg) and by mutagen, then read back through TagLib.
final class TagLibTagsTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var frontCover: [UInt8] = []
    private var otherPicture: [UInt8] = []

    /// Debian's python with mutagen; the `python3` on PATH may lack it.
    private static let python = "/usr/bin/python3"

    override func setUpWithError() throws {
        folder = try TemporaryFolder("taglib-tags")
        // Real pictures, so the encoders that look inside (metaflac, opusenc) accept them.
        try TestProcess.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=red:s=16x16",
                                              "-frames:v", "1", folder.path("front.jpg")])
        try TestProcess.runChecked("ffmpeg", ["-v", "error", "-f", "lavfi", "-i", "color=c=blue:s=8x8",
                                              "-frames:v", "1", folder.path("other.png")])
        frontCover = try bytes(folder.path("front.jpg"))
        otherPicture = try bytes(folder.path("other.png"))
    }

    override func tearDown() {
        folder = nil  // removes the folder and every file made in it
    }

    // MARK: What is written

    /// The values every format's test writes, and so expects back.
    private struct Written: Encodable {
        var title = "Title \u{2013} \u{00FC}ber"
        var artists = ["Artist A", "Artist B"]
        var album = "Album"
        var albumArtist = "Album Artist"
        var track = 3
        var trackTotal = 11
        var disc = 2
        var discTotal = 2
        var date = "2004-05-06"
        var genres = ["Rock", "Jazz"]
        var lyrics = "First line\nSecond line"
        var composers = ["Composer One", "Composer Two"]
        var performer = "Performer"
        var comment = "A comment"
        var conductor = "Conductor"
        var work = "The Work"
        var grouping = "The Grouping"
        var label = "Label"
        var artistSort = "Sort, Artist"
        var albumArtistSort = "Sort, Album Artist"
        var albumSort = "Album, The"
        var titleSort = "Title, The"
        var originalDate = "1999"
        var musicBrainz = [
            "MUSICBRAINZ_ARTISTID": "9c9f1380-2516-4fc9-a3e6-f9f61941d090",
            "MUSICBRAINZ_ALBUMID": "2a5b6d0a-2b6e-4f67-bd0c-b1f5c7c2c3a1",
            "MUSICBRAINZ_ALBUMARTISTID": "5b11f4ce-a62d-471e-81fc-a69a8278c7da",
            "MUSICBRAINZ_TRACKID": "b1a9c0e9-d987-4042-ae91-78d6a3267d69",
            "MUSICBRAINZ_RELEASETRACKID": "7d2a4c3e-91b5-4c6e-8b9a-0f3e2d1c4b5a",
            "MUSICBRAINZ_WORKID": "3f2c1b0a-9e8d-4c7b-a6f5-e4d3c2b1a098",
        ]
        var replayGain = [
            "REPLAYGAIN_TRACK_GAIN": "-6.54 dB", "REPLAYGAIN_TRACK_PEAK": "0.988235",
            "REPLAYGAIN_ALBUM_GAIN": "-5.10 dB", "REPLAYGAIN_ALBUM_PEAK": "1.000000",
        ]

        func json() throws -> String { String(decoding: try JSONEncoder().encode(self), as: UTF8.self) }

        /// The Vorbis comment fields (FLAC, Ogg Vorbis, Ogg FLAC, Opus), as KEY=value.
        var vorbisComments: [String] {
            var fields = ["TITLE=\(title)"] + artists.map { "ARTIST=\($0)" } + [
                "ALBUM=\(album)", "ALBUMARTIST=\(albumArtist)", "TRACKNUMBER=\(track)", "TRACKTOTAL=\(trackTotal)",
                "DISCNUMBER=\(disc)", "DISCTOTAL=\(discTotal)", "DATE=\(date)",
            ]
            fields += genres.map { "GENRE=\($0)" } + composers.map { "COMPOSER=\($0)" }
            fields += ["LYRICS=\(lyrics)", "PERFORMER=\(performer)", "COMMENT=\(comment)", "CONDUCTOR=\(conductor)",
                       "WORK=\(work)", "GROUPING=\(grouping)", "LABEL=\(label)", "ARTISTSORT=\(artistSort)",
                       "ALBUMARTISTSORT=\(albumArtistSort)", "ALBUMSORT=\(albumSort)", "TITLESORT=\(titleSort)",
                       "ORIGINALDATE=\(originalDate)"]
            fields += musicBrainz.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            fields += replayGain.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return fields
        }
    }

    /// Every field of `written` found in `tags`; `missing` names fields the format's writer cannot carry.
    private func assertAllFields(_ tags: TrackTags, _ written: Written, genres: [String]? = nil,
                                 missing: Set<String> = [], _ what: String,
                                 file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(tags.title, written.title, "\(what) title", file: file, line: line)
        XCTAssertEqual(tags.artists, written.artists, "\(what) artists", file: file, line: line)
        XCTAssertEqual(tags.artist, written.artists.joined(separator: " / "), "\(what) artist", file: file, line: line)
        XCTAssertEqual(tags.album, written.album, "\(what) album", file: file, line: line)
        XCTAssertEqual(tags.albumArtist, written.albumArtist, "\(what) album artist", file: file, line: line)
        XCTAssertEqual(tags.track, written.track, "\(what) track", file: file, line: line)
        XCTAssertEqual(tags.disc, written.disc, "\(what) disc", file: file, line: line)
        XCTAssertEqual(tags.date, written.date, "\(what) date", file: file, line: line)
        XCTAssertEqual(tags.year, Int(written.date.prefix(4)), "\(what) year", file: file, line: line)
        XCTAssertEqual(tags.genres, genres ?? written.genres, "\(what) genres", file: file, line: line)
        XCTAssertEqual(tags.lyrics, written.lyrics, "\(what) lyrics", file: file, line: line)
        XCTAssertEqual(tags.composers, written.composers, "\(what) composers", file: file, line: line)
        XCTAssertEqual(tags.comment, written.comment, "\(what) comment", file: file, line: line)
        if !missing.contains("performer") {
            XCTAssertEqual(tags.performers, [written.performer], "\(what) performers", file: file, line: line)
        }
        XCTAssertEqual(tags.musicBrainz, written.musicBrainz, "\(what) MusicBrainz", file: file, line: line)
        var more: [String: [String]] = [
            "Conductor": [written.conductor], "Work": [written.work], "Grouping": [written.grouping],
            "Label": [written.label], "ArtistSort": [written.artistSort], "AlbumArtistSort": [written.albumArtistSort],
            "AlbumSort": [written.albumSort], "TitleSort": [written.titleSort], "OriginalDate": [written.originalDate],
        ]
        for name in missing { more[name] = nil }
        XCTAssertEqual(tags.more, more, "\(what) more", file: file, line: line)
        assertReplayGain(tags.replayGain, written.replayGain, what, file: file, line: line)
    }

    /// The gains and peaks as numbers, read off the strings the tools wrote ("-6.54 dB").
    private func assertReplayGain(_ got: ReplayGainTags, _ written: [String: String], _ what: String,
                                  file: StaticString = #filePath, line: UInt = #line) {
        func number(_ key: String) -> Double? {
            written[key].flatMap { Double($0.split(separator: " ").first ?? "") }
        }
        XCTAssertEqual(got, ReplayGainTags(trackGain: number("REPLAYGAIN_TRACK_GAIN"), trackPeak: number("REPLAYGAIN_TRACK_PEAK"),
                                           albumGain: number("REPLAYGAIN_ALBUM_GAIN"), albumPeak: number("REPLAYGAIN_ALBUM_PEAK")),
                       "\(what) ReplayGain", file: file, line: line)
    }

    private func assertFrontCover(_ path: String, mimeType: String = "image/jpeg", _ what: String,
                                  file: StaticString = #filePath, line: UInt = #line) throws {
        let picture = try XCTUnwrap(try AudioTags.picture(path: path), "\(what) has no picture", file: file, line: line)
        XCTAssertEqual(picture.mimeType, mimeType, "\(what) picture type", file: file, line: line)
        XCTAssertTrue(picture.data == frontCover, "\(what): \(picture.data.count) bytes, not the \(frontCover.count) embedded",
                      file: file, line: line)
    }

    // MARK: MP3

    /// ID3v2 frames written by mutagen; prints mutagen's own reading of the genres it wrote.
    private static let writeID3 = #"""
import json, sys
from mutagen.id3 import (ID3, TIT2, TPE1, TALB, TPE2, TRCK, TPOS, TDRC, TCON, USLT, TCOM, TPE3, TPE4, TIT1,
    TPUB, TSOP, TSO2, TSOA, TSOT, TDOR, COMM, TXXX, UFID, APIC, TMCL)
path, version, spec, pictures = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3]), json.loads(sys.argv[4])
t = ID3()
def text(frame, values):
    t.add(frame(encoding=3, text=values))
text(TIT2, [spec['title']])
text(TPE1, spec['artists'])
text(TALB, [spec['album']])
text(TPE2, [spec['albumArtist']])
text(TRCK, ['%d/%d' % (spec['track'], spec['trackTotal'])])
text(TPOS, ['%d/%d' % (spec['disc'], spec['discTotal'])])
text(TDRC, [spec['date']])
text(TCON, spec['genres'])
text(TCOM, spec['composers'])
text(TPE3, [spec['conductor']])
text(TPE4, [spec['performer']])
text(TIT1, [spec['grouping']])
t.add(TXXX(encoding=3, desc='WORK', text=[spec['work']]))
text(TPUB, [spec['label']])
text(TSOP, [spec['artistSort']])
text(TSO2, [spec['albumArtistSort']])
text(TSOA, [spec['albumSort']])
text(TSOT, [spec['titleSort']])
text(TDOR, [spec['originalDate']])
t.add(TMCL(encoding=3, people=[['guitar', spec['performer']]]))
t.add(USLT(encoding=3, lang='eng', desc='', text=spec['lyrics']))
t.add(COMM(encoding=3, lang='eng', desc='iTunNORM', text=[' 00000A2C 000009F1']))
t.add(COMM(encoding=3, lang='eng', desc='', text=[spec['comment']]))
for key, value in spec['replayGain'].items():
    t.add(TXXX(encoding=3, desc=key.lower(), text=[value]))
names = {'MUSICBRAINZ_ARTISTID': 'MusicBrainz Artist Id', 'MUSICBRAINZ_ALBUMID': 'MusicBrainz Album Id',
         'MUSICBRAINZ_ALBUMARTISTID': 'MusicBrainz Album Artist Id',
         'MUSICBRAINZ_RELEASETRACKID': 'MusicBrainz Release Track Id', 'MUSICBRAINZ_WORKID': 'MusicBrainz Work Id'}
for key, value in spec['musicBrainz'].items():
    if key == 'MUSICBRAINZ_TRACKID':
        t.add(UFID(owner='http://musicbrainz.org', data=value.encode()))
    else:
        t.add(TXXX(encoding=3, desc=names[key], text=[value]))
for kind, mime, name in pictures:
    t.add(APIC(encoding=3, mime=mime, type=kind, desc=str(kind), data=open(name, 'rb').read()))
if version == 3:
    t.update_to_v23()
t.save(path, v2_version=version, v1=0)
print(json.dumps(TCON(text=spec['genres']).genres))
"""#

    private func mp3(_ name: String) throws -> String {
        let wav = try tone(name, rate: 44100)
        let path = folder.path(name + ".mp3")
        try TestProcess.runChecked("lame", ["--quiet", "-b", "128", wav, path])
        return path
    }

    /// The pictures as (type, MIME type, file): another picture first, so the front cover has to be looked for.
    private var pictureList: String {
        #"[[0, "image/png", "\#(folder.path("other.png"))"], [3, "image/jpeg", "\#(folder.path("front.jpg"))"]]"#
    }

    func testMP3ID3v24EveryField() throws {
        var written = Written()
        written.genres = ["17", "Jazz"]  // an ID3v1 genre number among them
        let path = try mp3("v24")
        let output = try TestProcess.runChecked(Self.python, ["-c", Self.writeID3, path, "4", try written.json(), pictureList]).stdout
        let genres = try JSONDecoder().decode([String].self, from: Data(output.utf8))
        XCTAssertEqual(genres.count, 2)
        let tags = try AudioTags.read(path: path)
        // TPE4 is MPD's Performer; the TMCL credit names the same person.
        assertAllFields(tags, written, genres: genres, "ID3v2.4")
        try assertFrontCover(path, "ID3v2.4")
    }

    func testMP3ID3v23EveryField() throws {
        var written = Written()
        written.genres = ["17", "Jazz"]
        written.composers = ["Composer One"]  // ID3v2.3 has no value lists; only artists and genres are split on "/"
        let path = try mp3("v23")
        let output = try TestProcess.runChecked(Self.python, ["-c", Self.writeID3, path, "3", try written.json(), pictureList]).stdout
        let genres = try JSONDecoder().decode([String].self, from: Data(output.utf8))
        let head = [UInt8](try bytes(path).prefix(4))
        XCTAssertEqual(head, Array("ID3".utf8) + [3], "mutagen wrote ID3v2.3")
        let tags = try AudioTags.read(path: path)
        // mutagen drops the ID3v2.4-only sort frames from a v2.3 tag and writes TYER + TDAT for the date.
        assertAllFields(tags, written, genres: genres, missing: ["ArtistSort", "AlbumSort", "TitleSort"], "ID3v2.3")
        try assertFrontCover(path, "ID3v2.3")
    }

    func testID3v23RepeatedFramesGiveEveryValue() throws {
        let path = folder.path("two-tpe1.mp3")
        try ID3Builder.makeTaggedMP3(at: path, version: 3, frames: [
            ID3Builder.text("TPE1", .utf16, ID3Builder.utf16("First Artist")),
            ID3Builder.text("TPE1", .utf16, ID3Builder.utf16("Second Artist")),
            ID3Builder.text("TCON", .latin1, Array("Pop/(17)".utf8)),
        ])
        let tags = try AudioTags.read(path: path)
        XCTAssertEqual(tags.artists, ["First Artist", "Second Artist"])
        XCTAssertEqual(tags.artist, "First Artist / Second Artist")
        XCTAssertEqual(tags.genres, ["Pop", "Rock"], "ID3v1 genre 17 is Rock")
    }

    func testID3v1FillsWhatID3v2Lacks() throws {
        let wav = try tone("v1", rate: 44100)
        let v1Only = folder.path("v1.mp3")
        try TestProcess.runChecked("lame", ["--quiet", "-b", "128", "--id3v1-only", "--tt", "v1 title", "--ta", "v1 artist",
                                            "--tl", "v1 album", "--ty", "1999", "--tn", "7", "--tg", "Jazz", wav, v1Only])
        let v2Only = folder.path("v2.mp3")
        try TestProcess.runChecked("lame", ["--quiet", "-b", "128", "--id3v2-only", "--tt", "v2 title", wav, v2Only])
        let both = folder.path("both.mp3")
        try Data(try bytes(v2Only) + (try bytes(v1Only)).suffix(128)).write(to: URL(fileURLWithPath: both))

        let v1 = try AudioTags.read(path: v1Only)
        XCTAssertEqual(v1.title, "v1 title")
        XCTAssertEqual(v1.artists, ["v1 artist"])
        XCTAssertEqual(v1.genres, ["Jazz"])
        let merged = try AudioTags.read(path: both)
        XCTAssertEqual(merged.title, "v2 title")
        XCTAssertEqual(merged.artist, "v1 artist")
        XCTAssertEqual(merged.album, "v1 album")
        XCTAssertEqual(merged.year, 1999)
        XCTAssertEqual(merged.track, 7)
        XCTAssertEqual(merged.genres, ["Jazz"])
    }

    func testGBKInLatin1FrameIsRecovered() throws {
        let path = try mp3("gbk")
        let script = #"""
import sys
from mutagen.id3 import ID3, TIT2, TPE1
t = ID3()
t.add(TIT2(encoding=0, text=[sys.argv[2].encode('gbk').decode('latin-1')]))
t.add(TPE1(encoding=0, text=[sys.argv[3].encode('gbk').decode('latin-1')]))
t.save(sys.argv[1], v2_version=3, v1=0)
"""#
        try TestProcess.runChecked(Self.python, ["-c", script, path, "七里香", "周杰伦"])
        let tags = try AudioTags.read(path: path)
        XCTAssertEqual(tags.title, "七里香")
        XCTAssertEqual(tags.artists, ["周杰伦"])
    }

    /// mp3gain-style: ReplayGain and a cover in an APEv2 tag, no ID3v2.
    func testMP3WithAPETag() throws {
        let path = try mp3("ape")
        let script = #"""
import json, sys
from mutagen.apev2 import APEv2, APEValue, BINARY
tag = APEv2()
for key, value in json.loads(sys.argv[2]).items():
    tag[key] = value
tag['Title'] = 'APE title'
tag['Cover Art (Other)'] = APEValue(b'other.png\x00' + open(sys.argv[3], 'rb').read(), BINARY)
tag['Cover Art (Front)'] = APEValue(b'front.jpg\x00' + open(sys.argv[4], 'rb').read(), BINARY)
tag.save(sys.argv[1])
"""#
        let gains = Written().replayGain
        let json = String(decoding: try JSONEncoder().encode(gains), as: UTF8.self)
        try TestProcess.runChecked(Self.python, ["-c", script, path, json, folder.path("other.png"), folder.path("front.jpg")])
        let tags = try AudioTags.read(path: path)
        XCTAssertEqual(tags.title, "APE title")
        assertReplayGain(tags.replayGain, gains, "APE")
        XCTAssertEqual(AudioTags.replayGain(path: path), tags.replayGain)
        try assertFrontCover(path, "APE")
    }

    // MARK: FLAC, Vorbis, Opus

    func testFLACEveryField() throws {
        let written = Written()
        let path = folder.path("tags.flac")
        try TestProcess.runChecked("flac", ["--silent", "-o", path, try tone("flac", rate: 44100)])
        try TestProcess.runChecked("metaflac", written.vorbisComments.map { "--set-tag=" + $0 } + [
            "--import-picture-from=0||other||" + folder.path("other.png"),
            "--import-picture-from=3||front||" + folder.path("front.jpg"), path,
        ])
        let (tags, properties) = try AudioTags.readWithProperties(path: path)
        assertAllFields(tags, written, "FLAC")
        try assertFrontCover(path, "FLAC")
        // What sox generated: 1 s of 16-bit stereo at 44.1 kHz.
        let audio = try XCTUnwrap(properties)
        XCTAssertEqual(audio.sampleRate, 44100)
        XCTAssertEqual(audio.channels, 2)
        XCTAssertEqual(audio.bitsPerSample, 16)
        XCTAssertEqual(audio.lengthMs, 1000)
    }

    /// A METADATA_BLOCK_PICTURE comment per picture, the way Ogg formats carry them.
    private static let addXiphPictures = #"""
import base64, sys
from mutagen import File
from mutagen.flac import Picture
audio = File(sys.argv[1])
blocks = []
for kind, mime, name in ((0, 'image/png', sys.argv[2]), (3, 'image/jpeg', sys.argv[3])):
    picture = Picture()
    picture.type, picture.mime, picture.data = kind, mime, open(name, 'rb').read()
    blocks.append(base64.b64encode(picture.write()).decode('ascii'))
audio['METADATA_BLOCK_PICTURE'] = blocks
audio.save()
"""#

    func testOggVorbisEveryField() throws {
        let written = Written()
        let path = folder.path("tags.ogg")
        try TestProcess.runChecked("oggenc", ["--quiet", "-o", path, try tone("vorbis", rate: 44100)])
        // vorbiscomment takes a multi-line value only escaped (-e), as \n.
        let fields = written.vorbisComments.map { $0.replacingOccurrences(of: "\n", with: "\\n") }
        try TestProcess.runChecked("vorbiscomment", ["-w", "-e"] + fields.flatMap { ["-t", $0] } + [path])
        try TestProcess.runChecked(Self.python, ["-c", Self.addXiphPictures, path, folder.path("other.png"), folder.path("front.jpg")])
        let (tags, properties) = try AudioTags.readWithProperties(path: path)
        assertAllFields(tags, written, "Ogg Vorbis")
        try assertFrontCover(path, "Ogg Vorbis")
        XCTAssertEqual(properties?.sampleRate, 44100)
        XCTAssertNil(properties?.bitsPerSample)
    }

    func testOggFLACPicture() throws {
        let path = folder.path("tags.oga")
        try TestProcess.runChecked("flac", ["--silent", "--ogg", "-T", "TITLE=Ogg FLAC", "-o", path, try tone("oggflac", rate: 44100)])
        try TestProcess.runChecked(Self.python, ["-c", Self.addXiphPictures, path, folder.path("other.png"), folder.path("front.jpg")])
        XCTAssertEqual(try AudioTags.read(path: path).title, "Ogg FLAC")
        try assertFrontCover(path, "Ogg FLAC")
    }

    func testOpusEveryFieldAndR128() throws {
        var written = Written()
        written.replayGain = [:]
        let path = folder.path("tags.opus")
        let trackR128 = -1674, albumR128 = 256
        var arguments = ["--quiet", "--title", written.title, "--album", written.album, "--date", written.date]
        arguments += written.artists.flatMap { ["--artist", $0] } + written.genres.flatMap { ["--genre", $0] }
        let skip = ["TITLE=", "ARTIST=", "ALBUM=", "DATE=", "GENRE="]
        for field in written.vorbisComments where !skip.contains(where: field.hasPrefix) {
            arguments += ["--comment", field]
        }
        arguments += ["--comment", "R128_TRACK_GAIN=\(trackR128)", "--comment", "R128_ALBUM_GAIN=\(albumR128)",
                      "--picture", "0||other||" + folder.path("other.png"), "--picture", "3||front||" + folder.path("front.jpg")]
        try TestProcess.runChecked("opusenc", arguments + [try tone("opus", rate: 48000), path])
        let (tags, properties) = try AudioTags.readWithProperties(path: path)
        var expected = tags
        expected.replayGain = ReplayGainTags()
        assertAllFields(expected, written, "Opus")
        // RFC 7845: Q7.8 dB against -23 LUFS; ReplayGain's reference is 5 dB louder.
        XCTAssertEqual(tags.replayGain, ReplayGainTags(trackGain: Double(trackR128) / 256 + 5, albumGain: Double(albumR128) / 256 + 5))
        try assertFrontCover(path, "Opus")
        XCTAssertEqual(properties?.sampleRate, 48000)

        // A REPLAYGAIN_* gain wins over R128 for the same gain.
        let both = folder.path("both.opus")
        try TestProcess.runChecked("opusenc", ["--quiet", "--comment", "REPLAYGAIN_TRACK_GAIN=-3.20 dB",
                                               "--comment", "R128_TRACK_GAIN=\(trackR128)",
                                               try tone("opus2", rate: 48000), both])
        XCTAssertEqual(try AudioTags.read(path: both).replayGain, ReplayGainTags(trackGain: -3.2))
    }

    // MARK: MP4

    private static let writeMP4 = #"""
import json, sys
from mutagen.mp4 import MP4, MP4Cover, MP4FreeForm
path, spec = sys.argv[1], json.loads(sys.argv[2])
m = MP4(path)
m['\xa9nam'] = [spec['title']]
m['\xa9ART'] = spec['artists']
m['\xa9alb'] = [spec['album']]
m['aART'] = [spec['albumArtist']]
m['trkn'] = [(spec['track'], spec['trackTotal'])]
m['disk'] = [(spec['disc'], spec['discTotal'])]
m['\xa9day'] = [spec['date']]
m['\xa9gen'] = spec['genres']
m['\xa9lyr'] = [spec['lyrics']]
m['\xa9wrt'] = spec['composers']
m['\xa9cmt'] = [spec['comment']]
m['\xa9wrk'] = [spec['work']]
m['\xa9grp'] = [spec['grouping']]
m['soar'] = [spec['artistSort']]
m['soaa'] = [spec['albumArtistSort']]
m['soal'] = [spec['albumSort']]
m['sonm'] = [spec['titleSort']]
def free(name, value):
    m['----:com.apple.iTunes:' + name] = [MP4FreeForm(value.encode())]
free('CONDUCTOR', spec['conductor'])
free('LABEL', spec['label'])
free('originaldate', spec['originalDate'])
names = {'MUSICBRAINZ_ARTISTID': 'MusicBrainz Artist Id', 'MUSICBRAINZ_ALBUMID': 'MusicBrainz Album Id',
         'MUSICBRAINZ_ALBUMARTISTID': 'MusicBrainz Album Artist Id', 'MUSICBRAINZ_TRACKID': 'MusicBrainz Track Id',
         'MUSICBRAINZ_RELEASETRACKID': 'MusicBrainz Release Track Id', 'MUSICBRAINZ_WORKID': 'MusicBrainz Work Id'}
for key, value in spec['musicBrainz'].items():
    free(names[key], value)
for key, value in spec['replayGain'].items():
    free(key.lower(), value)
free('iTunSMPB', sys.argv[3])
m['covr'] = [MP4Cover(open(sys.argv[4], 'rb').read(), imageformat=MP4Cover.FORMAT_JPEG),
             MP4Cover(open(sys.argv[5], 'rb').read(), imageformat=MP4Cover.FORMAT_PNG)]
m.save()
"""#

    func testM4AEveryField() throws {
        let written = Written()
        let path = folder.path("tags.m4a")
        try TestProcess.runChecked("ffmpeg", ["-v", "error", "-i", try tone("aac", rate: 44100), "-c:a", "aac", "-b:a", "96k", path])
        let smpb = " 00000000 00000840 000001C0 000000000000AC44 00000000 00000000 00000000 00000000"
        try TestProcess.runChecked(Self.python, ["-c", Self.writeMP4, path, try written.json(), smpb,
                                                 folder.path("front.jpg"), folder.path("other.png")])
        let (tags, properties) = try AudioTags.readWithProperties(path: path)
        // MP4 has no performer item.
        assertAllFields(tags, written, missing: ["performer"], "M4A")
        XCTAssertEqual(tags.performers, [])
        // covr holds no picture types: the first is the cover.
        try assertFrontCover(path, "M4A")
        XCTAssertEqual(try AudioTags.iTunSMPB(path: path), smpb)
        XCTAssertEqual(properties?.sampleRate, 44100)
        XCTAssertEqual(properties?.channels, 2)
    }

    // MARK: Errors

    func testUnreadableFilesGiveOneLineErrors() throws {
        var noise = SeededBytes(seed: 11)
        let garbage = folder.path("noise.flac")
        try Data(noise.bytes(4096)).write(to: URL(fileURLWithPath: garbage))
        let missing = folder.path("missing.ogg")
        for path in [garbage, missing, folder.url.path] {
            XCTAssertThrowsError(try AudioTags.read(path: path), path) { error in
                guard let error = error as? AudioError else { return XCTFail("\(path): \(error)") }
                XCTAssertEqual(error.file, path)
                XCTAssertFalse(error.message.isEmpty, path)
                XCTAssertFalse(error.description.contains("\n"), error.description)
            }
            XCTAssertThrowsError(try AudioTags.picture(path: path), path)
            XCTAssertNil(AudioTags.replayGain(path: path), path)
        }
        XCTAssertNil(try AudioTags.picture(path: try mp3("bare")), "no tag, no picture")
    }

    // MARK: Helpers

    private func tone(_ name: String, rate: Int) throws -> String {
        let wav = folder.path(name + ".wav")
        try TestProcess.runChecked("sox", ["-n", "-r", "\(rate)", "-c", "2", "-b", "16", wav, "synth", "1", "sine", "440", "vol", "0.5"])
        return wav
    }

    private func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }
}
