import Foundation
import XCTest
import XZTestSupport
@testable import XZFolderScan
import XZCatalogueTestSupport
import XZCatalogue

/// A folder scan reads a CUE sheet beside its image as MPD does: each track a song, the image none.
final class CueSheetImportTests: XCTestCase {
    private func scanned(_ sheet: String = CueFixtures.sheet) throws -> (TestLibrary, TemporaryFolder, URL, ImportSummary) {
        let temp = try TemporaryFolder("cue-scan")
        let music = temp.url.appendingPathComponent("Music")
        try CueFixtures.makeRip(in: music.appendingPathComponent("Rip"), sheet: sheet)
        let library = try TestLibrary()
        return (library, temp, music, try library.database.importFolder(at: music))
    }

    private func songs(_ library: TestLibrary) throws -> [Song] {
        try library.database.songs(SongSelection(filters: []), naming: .paths).sorted { $0.localPath < $1.localPath }
    }

    func testTracksAreSongsWithTheSheetsTagsAndExactBounds() throws {
        let (library, temp, music, summary) = try scanned()
        defer { withExtendedLifetime(temp) {} }
        XCTAssertEqual(summary.added, 3, summary.problems.joined(separator: "\n"))
        XCTAssertEqual(summary.problems, [])
        let rip = music.appendingPathComponent("Rip").standardizedFileURL.resolvingSymlinksInPath().path
        let songs = try songs(library)
        XCTAssertEqual(songs.map(\.localPath), (1...3).map { rip + "/image.cue/track000\($0)" }, "the image is no song of its own")
        XCTAssertEqual(songs.map(\.title), ["First", "Second", "Third"])
        // The track's performer, else the image's artist, as MPD merges them.
        XCTAssertEqual(songs.map(\.singer), ["Singer A", "ImgArtist", "ImgArtist"])
        XCTAssertEqual(Set(songs.map(\.album)), ["The Album"])
        XCTAssertEqual(Set(songs.map(\.albumArtist)), ["The Band"])
        XCTAssertEqual(Set(songs.map(\.genres)), [["Rock"]])
        XCTAssertEqual(Set(songs.map(\.date)), ["1999"])
        XCTAssertEqual(songs.map(\.track), [1, 2, 3])
        XCTAssertEqual(Set(songs.map { $0.moreTags[.composer] }), [["Comp"]])
        XCTAssertEqual(songs.map { $0.cuePart?.file }, Array(repeating: rip + "/image.flac", count: 3))
        XCTAssertEqual(songs.map { $0.cuePart?.startFrame }, CueFixtures.trackFrames.map(\.start))
        XCTAssertEqual(songs.map { $0.cuePart?.endFrame }, CueFixtures.trackFrames.map(\.end))
        // MPD's durations: each bound in whole milliseconds, the last track to the image's end.
        XCTAssertEqual(songs.map(\.durationMs), [4133, 3307, 2560])
        XCTAssertEqual(try library.database.search("second").songs.map(\.title), ["Second"], "the prompt's search finds a track")
    }

    func testRescanSkipsUnchangedTracksAndFollowsAnEditedSheet() throws {
        let (library, temp, music, _) = try scanned()
        defer { withExtendedLifetime(temp) {} }
        XCTAssertEqual(try library.database.importFolder(at: music).skipped, 3)
        // The sheet edited: one track fewer, the image's tracks read again.
        let sheet = music.appendingPathComponent("Rip/image.cue")
        let edited = CueFixtures.sheet.replacingOccurrences(of: "TITLE \"Third\"\n    INDEX 01 00:07:33\n", with: "")
            .replacingOccurrences(of: "  TRACK 03 AUDIO\n", with: "")
        try edited.write(to: sheet, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 5)], ofItemAtPath: sheet.path)
        let summary = try library.database.importFolder(at: music)
        XCTAssertEqual(summary.removed, 1)
        XCTAssertEqual(try songs(library).map(\.durationMs), [4133, 5867])
        // The sheet gone: the image is a song again.
        try FileManager.default.removeItem(at: sheet)
        _ = try library.database.importFolder(at: music)
        XCTAssertEqual(try songs(library).map { ($0.localPath as NSString).lastPathComponent }, ["image.flac"])
    }

    /// Each hostile sheet gives one line in the report, and the image stays the one song it was.
    func testHostileSheetsReportOneLineAndLeaveTheImageASong() throws {
        let cases: [(String, String)] = [
            (String(repeating: "REM x\n", count: 200_000), "image.cue: a CUE sheet larger than 1024 KiB"),
            ("FILE \"image.flac\" WAVE\u{0}\u{1}", "image.cue: not a CUE sheet (binary data)"),
            ("TITLE x\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n", "image.cue: 1 line skipped (line 2: TRACK before any FILE); no audio tracks"),
            ("FILE \"other.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n", "image.cue: no audio file \"other.flac\""),
            ("FILE \"../Rip/image.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 00:00:00\n", "image.cue: no audio file \"../Rip/image.flac\""),
            ("FILE \"image.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 59:00:00\n", "image.cue: track 01 starts after the end of image.flac"),
            ("FILE \"image.flac\" WAVE\nTRACK 01 AUDIO\nINDEX 01 -1:00:00\n", "image.cue: 2 lines skipped (line 3: INDEX time -1:00:00); no audio tracks"),
        ]
        for (sheet, report) in cases {
            let (library, temp, _, summary) = try scanned(sheet)
            defer { withExtendedLifetime(temp) {} }
            XCTAssertEqual(summary.problems.map(Self.shortened), [report])
            XCTAssertEqual(try songs(library).map { ($0.localPath as NSString).lastPathComponent }, ["image.flac"], report)
        }
    }

    /// A report line names the sheet by its file name.
    private static func shortened(_ line: String) -> String {
        guard let range = line.range(of: "image.cue:") else { return line }
        return String(line[range.lowerBound...])
    }
}
