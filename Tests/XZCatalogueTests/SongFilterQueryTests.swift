import Foundation
import GRDB
import XCTest
import XZTestSupport
@testable import XZCatalogue
import XZCatalogueTestSupport
import XZFolderScan

/// The filter engine on a real temporary catalogue: MPD's semantics in SQL, the substring index, the
/// folded extras of `search`, ordering and windows; and the tags it filters on, from feeds and files.
final class SongFilterQueryTests: XCTestCase {
    private func feedLibrary() throws -> TestLibrary {
        let library = try TestLibrary()
        let songs: [[String: Any]] = [
            ["source_id": "1", "title": "Love Story", "singer": "Taylor Swift", "album": "Fearless", "track": 3,
             "year": 2008, "genre": "Country", "album_artist": "Taylor Swift", "disc": 1],
            ["source_id": "2", "title": "Café Song", "singer": "Band", "album": "Mix", "track": 1, "year": 2001,
             "genre": "Pop"],
            ["source_id": "3", "title": "晴天", "singer": "周杰伦", "album": "叶惠美", "track": 2, "year": 2003],
            ["source_id": "4", "title": "cafe au lait", "singer": "band", "album": "Mix", "track": 2, "year": 2001,
             "album_artist": "Various"],
            ["source_id": "5", "title": "It's \"quoted\"", "singer": "Q", "track": 10],
        ]
        try library.importFeed(songs.map(TestLibrary.line))
        return library
    }

    private func titles(_ library: TestLibrary, _ arguments: [String], foldCase: Bool = false,
                        order: SongSelection.Order = .path, window: Range<Int>? = nil) throws -> [String] {
        let selection = SongSelection(filters: try FilterParser.parse(arguments, foldCase: foldCase), order: order,
                                      window: window, foldedExtras: foldCase)
        return try library.database.songs(selection, naming: .paths).map(\.title)
    }

    func testFeedFieldsAreKept() throws {
        let library = try feedLibrary()
        let song = try XCTUnwrap(try library.database.songs(
            SongSelection(filters: [.tag(.title, StringMatch(.equal, "Love Story", foldCase: false))]), naming: .paths).first)
        XCTAssertEqual(song.albumArtist, "Taylor Swift")
        XCTAssertEqual(song.genres, ["Country"])
        XCTAssertEqual(song.disc, 1)
        XCTAssertEqual(song.date, "2008")
        XCTAssertEqual(song.artists, ["Taylor Swift"])
    }

    func testFindIsExactAndCaseSensitive() throws {
        let library = try feedLibrary()
        XCTAssertEqual(try titles(library, ["artist", "Band"]), ["Café Song"])
        XCTAssertEqual(try titles(library, ["artist", "band"]), ["cafe au lait"])
        XCTAssertEqual(try titles(library, ["(Artist == 'BAND')"]), [])
        XCTAssertEqual(try titles(library, ["(album == 'Mix')", "(track == '2')"]), ["cafe au lait"])
        XCTAssertEqual(try titles(library, ["(title == 'It\\'s \"quoted\"')"]), ["It's \"quoted\""])
    }

    func testOperatorsNegationAndFallback() throws {
        let library = try feedLibrary()
        XCTAssertEqual(Set(try titles(library, ["(album != 'Mix')"])), ["Love Story", "晴天", "It's \"quoted\""])
        XCTAssertEqual(Set(try titles(library, ["(!(album == 'Mix'))"])), ["Love Story", "晴天", "It's \"quoted\""])
        XCTAssertEqual(try titles(library, ["(title starts_with 'Caf')"]), ["Café Song"])
        XCTAssertEqual(Set(try titles(library, ["(title =~ '^[Cc]af')"])), ["Café Song", "cafe au lait"])
        XCTAssertEqual(Set(try titles(library, ["(title !~ 'a')"])), ["Love Story", "晴天", "It's \"quoted\""])
        XCTAssertEqual(try titles(library, ["((album == 'Mix') AND (title contains 'lait'))"]), ["cafe au lait"])
        // AlbumArtist falls back on Artist where a song has none, as in MPD.
        XCTAssertEqual(try titles(library, ["(AlbumArtist == 'Band')"]), ["Café Song"])
        XCTAssertEqual(try titles(library, ["(AlbumArtist == 'Various')"]), ["cafe au lait"])
        // An absent tag equals the empty string; a tag the catalogue never holds is absent everywhere.
        XCTAssertEqual(try titles(library, ["(album == '')"]), ["It's \"quoted\""])
        XCTAssertEqual(try titles(library, ["(Composer == 'x')"]), [])
        XCTAssertEqual(try titles(library, ["(Date == '2003')"]), ["晴天"])
        XCTAssertEqual(try titles(library, ["(Genre == 'Pop')"]), ["Café Song"])
    }

    func testSearchIsMPDsSubstringMatchThenFoldedExtras() throws {
        let library = try feedLibrary()
        // Long enough for the trigram index, and short.
        XCTAssertEqual(Set(try titles(library, ["any", "BAND"], foldCase: true)), ["Café Song", "cafe au lait"])
        XCTAssertEqual(try titles(library, ["title", "ov"], foldCase: true), ["Love Story"])
        // MPD's match ("café") first, then what only folding finds ("cafe" without the accent).
        XCTAssertEqual(try titles(library, ["title", "café"], foldCase: true), ["Café Song", "cafe au lait"])
        XCTAssertEqual(try titles(library, ["any", "zhoujielun"], foldCase: true), ["晴天"])
        XCTAssertEqual(try titles(library, ["artist", "zjl"], foldCase: true), ["晴天"])
        // A folded condition on one tag holds only on that tag.
        XCTAssertEqual(try titles(library, ["album", "qingtian"], foldCase: true), [])
        // Quotes and SQL are data.
        XCTAssertEqual(try titles(library, ["any", "'; DROP TABLE song; --"], foldCase: true), [])
        XCTAssertEqual(try titles(library, ["any", "\"quoted\""], foldCase: true), ["It's \"quoted\""])
        XCTAssertEqual(try library.database.songCount(), 5)
    }

    func testShortNeedlesFindWhatAScanFinds() throws {
        let library = try feedLibrary()
        let songs = try library.database.songs(SongSelection(filters: []), naming: .paths)
        let tags: [SongTag] = [.artist, .albumArtist, .album, .title, .track, .date, .genre, .disc]
        var needles: Set<String> = ["Z", "语", "\u{1F}"]
        for song in songs {
            for value in tags.flatMap({ $0.values(of: song) }) {
                let scalars = Array(value.unicodeScalars)
                for start in scalars.indices {
                    for length in 1...2 where start + length <= scalars.count {
                        let needle = String(String.UnicodeScalarView(scalars[start..<start + length]))
                        needles.formUnion([needle, needle.uppercased()])
                    }
                }
            }
        }
        // The disc number ends its song's text: a needle there still finds it.
        XCTAssertTrue(needles.contains("1"))
        for needle in needles {
            for foldCase in [true, false] {
                let match = StringMatch(.contains, needle, foldCase: foldCase)
                let scanned = Set(songs.filter { song in
                    tags.flatMap { $0.values(of: song) }.contains { match.matchesWithoutNegation($0) }
                }.map(\.id))
                let found = try library.database.songs(SongSelection(filters: [.tag(nil, match)]), naming: .paths)
                XCTAssertEqual(Set(found.map(\.id)), scanned, "any contains '\(needle)', fold \(foldCase)")
            }
        }
    }

    func testSongsInMemoryMatchAsTheSQLEngineReadsThem() throws {
        let library = try feedLibrary()
        let (temp, music) = try makeFolder()
        _ = temp
        _ = try library.database.importFolder(at: music)
        let songs = try library.database.songs(SongSelection(filters: []), naming: .paths)
        XCTAssertEqual(songs.count, 7)
        let expressions = [
            ["(Artist == 'jzig')"], ["(Artist == 'piman / jzig')"], ["(Genre == 'Pop')"], ["(Genre != 'Rock')"],
            ["(AlbumArtist == 'Band')"], ["(album == '')"], ["(Composer == '')"], ["(Composer == 'x')"],
            ["(title starts_with 'Caf')"], ["(title =~ '^[Cc]af')"], ["(any contains 'AFÉ')"], ["(any contains '')"],
            ["(!(album == 'Mix'))"], ["((album == 'Mix') AND (title contains 'lait'))"], ["(Date == '2004-05-06')"],
            ["(Track == '2')"], ["(Disc == '2')"], ["(file contains 'src:')"], ["(base 'src:1')"],
            ["(modified-since '1970-01-02T00:00:00Z')"], ["(added-since '2000-01-01T00:00:00Z')"],
            ["(AudioFormat == '44100:16:2')"], ["(AudioFormat == '44100:24:2')"], ["(AudioFormat =~ '*:*:2')"],
            ["artist", "band", "album", "Mix"],
        ]
        for arguments in expressions {
            for foldCase in [false, true] {
                let filters = try FilterParser.parse(arguments, foldCase: foldCase)
                let bySQL = try library.database.songs(SongSelection(filters: filters), naming: .paths).map(\.id)
                let inMemory = songs.filter { song in
                    let uri = SongNaming.paths.uri(ofPath: song.localPath.isEmpty ? song.songKey : song.localPath)
                    return filters.allSatisfy { $0.matches(song, uri: uri) }
                }.map(\.id)
                XCTAssertEqual(Set(inMemory), Set(bySQL), "\(arguments), fold \(foldCase)")
            }
        }
    }

    func testTagValuesForListAndCount() throws {
        let library = try feedLibrary()
        let rows = try library.database.tagValues([.tag(.album, StringMatch(.equal, "Mix", foldCase: false))],
                                                  tags: [.albumArtist, .genre, .composer], naming: .paths)
        // Album artist falls back on the artist; a tag the song lacks is the empty string.
        XCTAssertEqual(Set(rows.map { $0.values }), [[["Band"], ["Pop"], [""]], [["Various"], [""], [""]]])
        let all = try library.database.tagValues([], tags: [], naming: .paths)
        XCTAssertEqual(all.count, 5)
    }

    func testSortAndWindow() throws {
        let library = try feedLibrary()
        XCTAssertEqual(try titles(library, ["(track != '0')"], order: .tag(.track, descending: true)),
                       ["It's \"quoted\"", "Love Story", "cafe au lait", "晴天", "Café Song"], "ties in database order")
        XCTAssertEqual(try titles(library, ["(track != '0')"], order: .tag(.track, descending: false), window: 1..<3),
                       ["cafe au lait", "晴天"])
        XCTAssertEqual(try titles(library, ["(album == 'Mix')"], order: .tag(.title, descending: false)),
                       ["Café Song", "cafe au lait"])
    }

    func testDatabaseOrderIsMPDsWalk() throws {
        func song(_ album: String?, _ disc: Int?, _ track: Int?) -> Song {
            var song = Song(title: "t", singer: "s", album: album, track: track, year: nil, durationMs: nil, localPath: "")
            song.disc = disc
            return song
        }
        let songs: [(String, Song)] = [
            ("b/z.mp3", song("A", nil, 1)), ("a.mp3", song(nil, nil, nil)), ("b/c/a.mp3", song(nil, nil, nil)),
            ("b/a.mp3", song("A", nil, 2)), ("B2/x.mp3", song(nil, nil, nil)), ("z.mp3", song(nil, nil, nil)),
            ("b/y.mp3", song(nil, nil, 9)), ("b/d2.mp3", song("A", 2, 1)), ("b/d1.mp3", song("A", 1, 5)),
            ("A.mp3", song(nil, nil, nil)), ("b/x.mp3", song("a", nil, 1)),
        ]
        var ordered = songs
        DatabaseOrder.sortByKey(&ordered) { DatabaseOrder.key(of: $0.1, uri: $0.0) }
        let sorted = ordered.map(\.0)
        // Songs before folders; in a folder, no album first, then disc, then track, then name; names and
        // albums by ICU's root collation (case second, lower case first), as MPD's IcuCollate.
        XCTAssertEqual(sorted, ["a.mp3", "A.mp3", "z.mp3", "b/y.mp3", "b/x.mp3", "b/z.mp3", "b/a.mp3", "b/d1.mp3",
                                "b/d2.mp3", "b/c/a.mp3", "B2/x.mp3"])
    }

    /// The ids behind `songs`, each song read only when asked for: what a host that keeps songs uses.
    func testSongIDsAreWhatSongsSelectsReadingOnlyTheSongsAskedFor() throws {
        let library = try TestLibrary()
        try library.importFeed([
            TestLibrary.line(["source_id": "1", "title": "Café Song", "singer": "Band"]),
            TestLibrary.line(["source_id": "2", "title": "cafe au lait", "singer": "band"]),
            TestLibrary.line(["source_id": "3", "title": "Tea", "singer": "Band"]),
        ])
        let selection = SongSelection(filters: [.tag(.title, StringMatch(.contains, "cafe", foldCase: true))],
                                      foldedExtras: true)
        let songs = try library.database.songs(selection, naming: .paths)
        XCTAssertEqual(songs.map(\.title), ["cafe au lait", "Café Song"], "MPD's match, then the folded one")
        let wanted = songs[1].id
        let found = try library.database.songIDs(selection, naming: .paths) { $0 == wanted }
        XCTAssertEqual(found.matches.map(\.id), [songs[0].id])
        XCTAssertNil(found.matches[0].song, "not asked for")
        XCTAssertEqual(found.extras.map(\.id), [wanted])
        XCTAssertEqual(found.extras[0].song?.title, "Café Song")
        let whole = try library.database.songIDs(selection, naming: .paths, wanted: nil)
        XCTAssertEqual(whole.matches.map(\.song?.title), ["cafe au lait"])
        XCTAssertEqual(whole.extras.map(\.song?.title), ["Café Song"])
    }

    // MARK: Tags from files

    private func makeFolder() throws -> (TemporaryFolder, URL) {
        let temp = try TemporaryFolder("tags")
        let music = temp.url.appendingPathComponent("Music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent("v24.mp3").path, frames: [
            ID3Builder.list("TPE1", ["piman", "jzig"]), ID3Builder.list("TIT2", ["Two Artists"]),
            ID3Builder.list("TALB", ["Album"]), ID3Builder.list("TPE2", ["Various"]),
            ID3Builder.list("TCON", ["Rock", "17", "Pop"]), ID3Builder.list("TPOS", ["2/3"]),
            ID3Builder.list("TDRC", ["2004-05-06"]), ID3Builder.list("TRCK", ["4"]),
        ])
        try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent("v23.mp3").path, version: 3, frames: [
            ID3Builder.text("TPE1", .utf16, ID3Builder.utf16("piman/jzig")),
            ID3Builder.text("TIT2", .utf16, ID3Builder.utf16("Slash Artists")),
            ID3Builder.text("TCON", .utf16, ID3Builder.utf16("(13)")),
        ])
        return (temp, music)
    }

    func testSeveralArtistsAndGenresAndTheOtherTagsAreKept() throws {
        let library = try TestLibrary()
        let (temp, music) = try makeFolder()
        _ = temp
        let summary = try library.database.importFolder(at: music)
        XCTAssertEqual(summary.added, 2, summary.problems.joined(separator: "\n"))
        let songs = try library.database.songs(SongSelection(filters: []), naming: .paths)
        let v24 = try XCTUnwrap(songs.first { $0.title == "Two Artists" })
        XCTAssertEqual(v24.artists, ["piman", "jzig"])
        XCTAssertEqual(v24.singer, "piman / jzig")
        XCTAssertEqual(v24.albumArtist, "Various")
        XCTAssertEqual(v24.genres, ["Rock", "Pop"])
        XCTAssertEqual(v24.disc, 2)
        XCTAssertEqual(v24.date, "2004-05-06")
        XCTAssertEqual(v24.year, 2004)
        XCTAssertEqual(v24.sampleRate, 44100)
        XCTAssertEqual(v24.channels, 2)
        let v23 = try XCTUnwrap(songs.first { $0.title == "Slash Artists" })
        XCTAssertEqual(v23.artists, ["piman", "jzig"])
        XCTAssertEqual(v23.genres, ["Pop"])
        // Each artist is found on its own; the terminal's search finds the joined singer too.
        let find = SongSelection(filters: [.tag(.artist, StringMatch(.equal, "jzig", foldCase: false))])
        XCTAssertEqual(Set(try library.database.songs(find, naming: .paths).map(\.title)), ["Two Artists", "Slash Artists"])
        XCTAssertEqual(Set(try library.titles("jzig")), ["Two Artists", "Slash Artists"])
        // MPD's `search any` reads each artist, never the joined display name.
        for (needle, found) in [("man", ["Two Artists", "Slash Artists"]), ("n / j", []), ("n /", [])] {
            let search = SongSelection(filters: [.tag(nil, StringMatch(.contains, needle, foldCase: true))])
            XCTAssertEqual(Set(try library.database.songs(search, naming: .paths).map(\.title)), Set(found), needle)
        }
    }

    func testRescanAfterTheMigrationRereadsUnchangedFiles() throws {
        let (temp, music) = try makeFolder()
        let path = temp.url.appendingPathComponent("old.sqlite").path
        let file = music.appendingPathComponent("v24.mp3").path
        let attributes = try FileManager.default.attributesOfItem(atPath: file)
        let size = (attributes[.size] as? NSNumber)?.int64Value ?? 0
        let mtime = Int64((attributes[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
        // A library as the release before v7 left it: the file imported with its first artist only.
        try makeOldLibrary(at: path, upTo: "v5-song-by-path", """
            INSERT INTO singer (id, name, name_key, name_pinyin, name_initials, first_letter, song_count)
                VALUES (1, 'jzig', 'jzig', 'jzig', '', 'J', 1);
            INSERT INTO song (song_key, title, singer_id, local_path, size, file_mtime, added_at, title_key,
                              title_pinyin, title_initials)
                VALUES (?, 'Two Artists', 1, ?, ?, ?, '2020-01-01T00:00:00Z', 'two artists', 'two artists', '');
            """, arguments: ["file:" + file, file, size, mtime])
        let database = try LibraryDatabase(path: path)
        // The substring index covers songs imported before it.
        let before = try database.songs(SongSelection(filters: [.tag(nil, StringMatch(.contains, "artists", foldCase: true))]),
                                        naming: .paths)
        XCTAssertEqual(before.map(\.title), ["Two Artists"])
        let summary = try database.importFolder(at: music)
        XCTAssertEqual(summary.updated, 1, summary.problems.joined(separator: "\n"))
        XCTAssertEqual(summary.added, 1)
        let song = try XCTUnwrap(try database.song(localPath: file))
        XCTAssertEqual(song.artists, ["piman", "jzig"])
        XCTAssertEqual(song.genres, ["Rock", "Pop"])
        // And the next rescan skips it again.
        XCTAssertEqual(try database.importFolder(at: music).skipped, 2)
    }

    func testTheShortSubstringMigrationIndexesEveryTag() throws {
        let temp = try TemporaryFolder("short-substrings")
        let path = temp.url.appendingPathComponent("old.sqlite").path
        // A library as v7 left it: its substring text ended in the disc number and held no genre.
        try makeOldLibrary(at: path, upTo: "v7-song-tags", """
            INSERT INTO singer (id, name, name_key, name_pinyin, name_initials, first_letter, song_count)
                VALUES (1, 'Q', 'q', 'q', '', 'Q', 1);
            INSERT INTO song (id, song_key, title, singer_id, genre, disc, added_at, title_key, title_pinyin,
                              title_initials)
                VALUES (1, 'src:1', 'Song', 1, 'Jazz', 7, '2020-01-01T00:00:00Z', 'song', 'song', '');
            INSERT INTO song_text (rowid, text) VALUES (1, 'Song' || char(10) || 'Q' || char(10) || char(10)
                || char(10) || char(10) || '7');
            """)
        let database = try LibraryDatabase(path: path)
        for needle in ["7", "az", "jazz"] {
            let found = try database.songs(SongSelection(filters: [.tag(nil, StringMatch(.contains, needle, foldCase: true))]),
                                           naming: .paths)
            XCTAssertEqual(found.map(\.title), ["Song"], needle)
        }
    }

    /// A library file as an earlier release left it: migrated up to `migration`, then `sql` run.
    private func makeOldLibrary(at path: String, upTo migration: String, _ sql: String,
                                arguments: StatementArguments = []) throws {
        let queue = try DatabaseQueue(path: path)
        try Schema.migrator.migrate(queue, upTo: migration)
        try queue.write { db in try db.execute(sql: sql, arguments: arguments) }
    }
}
