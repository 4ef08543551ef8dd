import Foundation
import GRDB
import XCTest
import XZTestSupport
@testable import XZFolderScan
@testable import XZCatalogue
import XZCatalogueTestSupport

/// The tags beyond the eight of their own columns (Composer, Performer, the sort tags, MusicBrainz ids ...):
/// read from real files, kept by the catalogue, filtered, listed and sorted as MPD does; and a library made
/// before they were kept upgrades with its data.
final class MoreTagsImportTests: XCTestCase {
    private var temp: TemporaryFolder!

    override func tearDown() { temp = nil }

    /// A FLAC file tagged with `comments` ("KEY=value"), one second of tone.
    private func makeFLAC(_ path: String, _ comments: [String]) throws {
        let wav = temp.path("tone.wav")
        if !FileManager.default.fileExists(atPath: wav) {
            try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", wav, "synth", "1", "sine", "440"])
        }
        try FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try TestProcess.runChecked("flac", ["-s", "-f", "-o", path, wav] + comments.flatMap { ["-T", $0] })
    }

    private static let bachComments = [
        "ARTIST=Gould", "TITLE=Aria", "ALBUM=Goldberg Variations", "COMPOSER=Bach", "COMPOSERSORT=Bach, J. S.",
        "PERFORMER=Glenn Gould", "PERFORMER=Piano", "CONDUCTOR=Nobody", "WORK=BWV 988", "GROUPING=Keyboard",
        "LABEL=Sony", "ARTISTSORT=Gould, Glenn", "ALBUMSORT=Goldberg", "ORIGINALDATE=1955", "MOVEMENTNAME=Aria",
        "MOVEMENT=1", "ENSEMBLE=Solo", "LOCATION=New York", "MUSICBRAINZ_TRACKID=track-1", "MUSICBRAINZ_WORKID=work-1",
        "COMMENT=not kept, as MPD keeps none",
    ]

    func testFolderImportKeepsEveryTagMPDKnows() throws {
        temp = try TemporaryFolder("more-tags")
        let music = temp.url.appendingPathComponent("music")
        try makeFLAC(music.appendingPathComponent("bach.flac").path, Self.bachComments)
        try makeFLAC(music.appendingPathComponent("mozart.flac").path,
                     ["ARTIST=Uchida", "TITLE=Sonata", "COMPOSER=Mozart", "PERFORMER=Mitsuko Uchida"])
        try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent("karajan.mp3").path, frames: [
            ID3Builder.list("TPE1", ["Berliner"]), ID3Builder.list("TIT2", ["Fifth"]), ID3Builder.list("TCOM", ["Beethoven"]),
            ID3Builder.list("TPE3", ["Karajan"]), ID3Builder.list("TPE4", ["Orchestra"]), ID3Builder.list("TIT1", ["Symphonies"]),
            ID3Builder.list("TPUB", ["DG"]), ID3Builder.list("TSOP", ["Berliner, Die"]), ID3Builder.list("TDOR", ["1963"]),
            ID3Builder.text("TXXX", .utf8, Array("MusicBrainz Album Id".utf8) + [0] + Array("album-9".utf8)),
            ("UFID", Array("http://musicbrainz.org".utf8) + [0] + Array("track-9".utf8)),
        ])
        let library = try TestLibrary()
        let summary = try library.database.importFolder(at: music)
        XCTAssertEqual(summary.added, 3, summary.problems.joined(separator: "\n"))
        let songs = try library.database.songs(SongSelection(filters: []), naming: .paths)
        let bach = try XCTUnwrap(songs.first { $0.title == "Aria" })
        XCTAssertEqual(bach.moreTags, [
            .composer: ["Bach"], .composerSort: ["Bach, J. S."], .performer: ["Glenn Gould", "Piano"],
            .conductor: ["Nobody"], .work: ["BWV 988"], .grouping: ["Keyboard"], .label: ["Sony"],
            .artistSort: ["Gould, Glenn"], .albumSort: ["Goldberg"], .originalDate: ["1955"], .movement: ["Aria"],
            .movementNumber: ["1"], .ensemble: ["Solo"], .location: ["New York"],
            .musicBrainzTrackID: ["track-1"], .musicBrainzWorkID: ["work-1"],
        ])
        let karajan = try XCTUnwrap(songs.first { $0.title == "Fifth" })
        XCTAssertEqual(karajan.moreTags, [
            .composer: ["Beethoven"], .conductor: ["Karajan"], .performer: ["Orchestra"], .grouping: ["Symphonies"],
            .label: ["DG"], .artistSort: ["Berliner, Die"], .originalDate: ["1963"],
            .musicBrainzAlbumID: ["album-9"], .musicBrainzTrackID: ["track-9"],
        ])

        func titles(_ filters: [SongFilter], order: SongSelection.Order = .path) throws -> [String] {
            try library.database.songs(SongSelection(filters: filters, order: order), naming: .paths).map(\.title)
        }
        XCTAssertEqual(try titles([.tag(.composer, StringMatch(.equal, "Bach", foldCase: false))]), ["Aria"])
        XCTAssertEqual(try titles([.tag(.performer, StringMatch(.contains, "uchida", foldCase: true))]), ["Sonata"])
        XCTAssertEqual(try titles([.tag(.conductor, StringMatch(.equal, "", foldCase: false))]), ["Sonata"],
                       "an absent tag equals the empty string")
        XCTAssertEqual(try titles([.tag(nil, StringMatch(.contains, "track-9", foldCase: true))]), ["Fifth"],
                       "`any` reads every tag")
        XCTAssertEqual(try titles([.tag(.comment, StringMatch(.contains, "kept", foldCase: true))]), [])
        // ArtistSort falls back to Artist where a song has none: Berliner, Die < Gould, Glenn < Uchida.
        XCTAssertEqual(try titles([], order: .tag(.artistSort, descending: false)), ["Fifth", "Aria", "Sonata"])
        // ComposerSort has no fallback: the songs without one tie, in database order (no album first).
        XCTAssertEqual(try titles([], order: .tag(.composerSort, descending: true)), ["Aria", "Fifth", "Sonata"])
        let composers = try library.database.tagValues([], tags: [.composer, .albumSort], naming: .paths)
            .map(\.values).sorted { $0[0][0] < $1[0][0] }
        XCTAssertEqual(composers, [[["Bach"], ["Goldberg"]], [["Beethoven"], [""]], [["Mozart"], [""]]])
    }

    /// A library of the schema before v12 (its tables as the earlier binary left them) holding a song of a file
    /// that has not changed since: opened now, it keeps its songs and stickers, and the next scan reads the
    /// file again for the tags the earlier scan did not keep.
    func testLibraryOfTheEarlierSchemaUpgradesAndKeepsItsData() throws {
        temp = try TemporaryFolder("more-tags-upgrade")
        let music = temp.url.appendingPathComponent("music")
        let file = music.appendingPathComponent("bach.flac").path
        try makeFLAC(file, Self.bachComments)
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let mtime = Int64((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        let path = temp.path("library.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            try Schema.migrator.migrate(queue, upTo: "v11-sticker-version")
            try queue.write { db in
                try db.execute(sql: """
                    INSERT INTO singer (id, name, name_key, name_pinyin, name_initials, first_letter, song_count)
                        VALUES (1, 'Gould', 'gould', 'gould', '', 'G', 1);
                    INSERT INTO song (id, song_key, title, singer_id, local_path, size, file_mtime, added_at,
                                      title_key, title_pinyin, title_initials)
                        VALUES (7, ?, 'Aria', 1, ?, ?, ?, '2020-01-01T00:00:00Z', 'aria', 'aria', '');
                    INSERT INTO sticker (song_key, name, value) VALUES (?, 'rating', '9');
                    """, arguments: ["file:" + file, file, size, mtime, "file:" + file])
            }
            XCTAssertFalse(try queue.read { try $0.columns(in: "song").contains { $0.name == "more_tags" } })
        }

        let database = try LibraryDatabase(path: path)
        let kept = try XCTUnwrap(try database.song(id: 7))
        XCTAssertEqual(kept.title, "Aria")
        XCTAssertEqual(kept.moreTags, [:])
        XCTAssertEqual(try database.pool.read { try String.fetchOne($0, sql: "SELECT value FROM sticker") }, "9")
        XCTAssertEqual(try database.pool.read { try Bool.fetchOne($0, sql: "SELECT file_mtime IS NULL FROM song") }, true,
                       "the file's stamp is forgotten, so the next scan reads it")

        let summary = try database.importFolder(at: music)
        XCTAssertEqual(summary.updated, 1, summary.problems.joined(separator: "\n"))
        let upgraded = try XCTUnwrap(try database.song(id: 7))
        XCTAssertEqual(upgraded.moreTags[.composer], ["Bach"])
        XCTAssertEqual(upgraded.moreTags[.musicBrainzWorkID], ["work-1"])
        XCTAssertEqual(try database.importFolder(at: music).skipped, 1, "read once, then unchanged")
    }
}
