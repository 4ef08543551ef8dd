import Foundation
import XCTest
import XZCatalogue
import XZTestSupport
@testable import XZSubsonicAPI

/// Catalogue songs as clients see them (`SubsonicChild(song:…)`), and every entity type as the spec's
/// schemas have it.
final class ModelTests: XCTestCase {
    func testEverySongOfEveryFormatIsAChildWithItsFileIdsAndFolder() throws {
        let fixture = try ModelTestLibrary()
        let songs = try fixture.songs()
        XCTAssertEqual(songs.count, ModelTestLibrary.files.count + 2, "\(songs.keys.sorted())")
        let children = try fixture.library.children(of: Array(songs.values))
        let byTitle = Dictionary(uniqueKeysWithValues: children.map { ($0.title, $0) })
        let expected: [String: (suffix: String, type: String)] = [
            "红豆": ("mp3", "audio/mpeg"), "当时的月亮": ("flac", "audio/flac"), "夜": ("ogg", "audio/ogg"),
            "피 땀 눈물": ("opus", "audio/ogg"), "Come Together": ("m4a", "audio/mp4"), "Alone": ("wav", "audio/wav"),
            "Together": ("flac", "audio/flac"), "一": ("flac", "audio/flac"), "二": ("flac", "audio/flac"),
        ]
        for file in ModelTestLibrary.files {
            let song = try XCTUnwrap(songs[file.title], file.title)
            let child = try XCTUnwrap(byTitle[file.title], file.title)
            XCTAssertEqual(child.id, "so-\(song.id)")
            XCTAssertEqual(SubsonicID(child.id), .song(song.id))
            XCTAssertFalse(child.isDir)
            XCTAssertEqual(child.suffix, expected[file.title]?.suffix, file.path)
            XCTAssertEqual(child.contentType, expected[file.title]?.type, file.path)
            XCTAssertEqual(child.path, file.path, "the path inside the music folder")
            let folder = (file.path as NSString).deletingLastPathComponent
            XCTAssertEqual(child.parent.flatMap(SubsonicID.init), .folder(folder), file.path)
            XCTAssertEqual(child.duration, file.seconds, file.path)
            XCTAssertEqual(child.album, file.album)
            XCTAssertEqual(child.track, 1)
            XCTAssertEqual(child.year, 2001)
            XCTAssertEqual(child.genre, "Pop")
            XCTAssertEqual(child.genres, [ItemGenre(name: "Pop")])
            XCTAssertEqual(child.artistId, "ar-\(song.singerId)")
            XCTAssertEqual(child.type, "music")
            XCTAssertEqual(child.mediaType, "song")
            XCTAssertEqual(child.isVideo, false)
            XCTAssertEqual(child.size, Int64(try XCTUnwrap(FileManager.default.attributesOfItem(
                atPath: fixture.music.appendingPathComponent(file.path).path)[.size] as? Int)), file.path)
            // Opus decodes at 48 kHz whatever it was made from.
            XCTAssertEqual(child.samplingRate, file.path.hasSuffix(".opus") ? 48_000 : 44_100, file.path)
            XCTAssertEqual(child.channelCount, 2, file.path)
            let bitRate = try XCTUnwrap(child.bitRate, file.path)
            XCTAssertGreaterThan(bitRate, 0)
            if file.path.hasSuffix(".wav") { XCTAssertEqual(bitRate, 1411, accuracy: 20, "16-bit stereo at 44.1 kHz") }
            if file.path.hasSuffix(".mp3") { XCTAssertEqual(bitRate, 128, accuracy: 16) }
            XCTAssertEqual(child.bitDepth, file.path.hasSuffix(".flac") || file.path.hasSuffix(".wav") ? 16 : nil, file.path)
            XCTAssertNotNil(child.created)
            XCTAssertEqual(child.created?.text.count, "2026-01-02T03:04:05.000Z".count)
            XCTAssertNil(child.starred)
            XCTAssertNil(child.userRating)
        }
        // One album row per album: its songs share the id, and its cover.
        for child in children {
            guard case .album = child.albumId.flatMap(SubsonicID.init) else { return XCTFail("\(child.title): \(String(describing: child.albumId))") }
            XCTAssertEqual(child.coverArt, child.albumId, child.title)
        }
        // An album is its singer's: "Both" is Alice's and the duet's.
        let albumIDs = Dictionary(grouping: children, by: { "\($0.artistId ?? "") \($0.album ?? "")" }).mapValues { Set($0.compactMap(\.albumId)) }
        XCTAssertEqual(albumIDs.count, 7)
        XCTAssertTrue(albumIDs.values.allSatisfy { $0.count == 1 }, "\(albumIDs)")
        XCTAssertEqual(Set(albumIDs.values.compactMap(\.first)).count, 7)
        XCTAssertEqual(byTitle["红豆"]?.albumId, byTitle["当时的月亮"]?.albumId)
        XCTAssertNotEqual(byTitle["红豆"]?.albumId, byTitle["夜"]?.albumId)
    }

    func testCueTracksAreSongsInTheSheetsFolderPlayedFromTheImage() throws {
        let fixture = try ModelTestLibrary()
        let songs = try fixture.songs()
        let tracks = try ["一", "二"].map { try XCTUnwrap(songs[$0], $0) }
        let children = try fixture.library.children(of: tracks)
        for (track, child) in zip(tracks, children) {
            XCTAssertNotNil(track.cuePart)
            XCTAssertEqual(child.parent.flatMap(SubsonicID.init), .folder("光/rip"), "the folder holding the sheet")
            XCTAssertEqual(child.suffix, "flac")
            XCTAssertEqual(child.contentType, "audio/flac")
            XCTAssertEqual(child.artist, track.singer)
            XCTAssertEqual(child.album, "光")
            XCTAssertEqual(child.path, "光/rip/image.cue/track000\(child.track ?? 0)")
            XCTAssertNotNil(child.albumId)
        }
        XCTAssertEqual(children.map(\.track), [1, 2])
        // 4 s 10 frames, then the rest of the 10 s image.
        XCTAssertEqual(children.map(\.duration), [4, 5])
        XCTAssertEqual(children[0].albumId, children[1].albumId)
    }

    func testSeveralArtistsEachWithTheirRowWhereTheyHaveOne() throws {
        let fixture = try ModelTestLibrary()
        let songs = try fixture.songs()
        let duet = try XCTUnwrap(songs["Together"])
        let alone = try XCTUnwrap(songs["Alone"])
        XCTAssertEqual(duet.artists, ["Alice", "Bob"])
        let child = try XCTUnwrap(fixture.library.children(of: [duet]).first)
        XCTAssertEqual(child.artists?.map(\.name), ["Alice", "Bob"])
        XCTAssertEqual(child.artists?.first?.id, "ar-\(alone.singerId)", "Alice's own row")
        XCTAssertEqual(child.artists?.last?.id, "ar-\(duet.singerId)", "Bob has no row of his own: the song's singer")
        XCTAssertEqual(child.displayArtist, duet.singer)
        XCTAssertEqual(child.albumArtists?.map(\.id), ["ar-\(duet.singerId)"])
        XCTAssertEqual(child.displayAlbumArtist, duet.singer)
    }

    func testReplayGainIsTheLoudnessScansMeasurementOfTheFileAsItIs() throws {
        let fixture = try ModelTestLibrary()
        let songs = try fixture.songs()
        let measured = try XCTUnwrap(songs["红豆"]), stale = try XCTUnwrap(songs["夜"])
        try fixture.database.saveLoudness([
            LoudnessRecord(songKey: measured.songKey, trackGain: -6.5, trackPeak: 0.891, albumGain: -7.25, albumPeak: 0.95,
                           file: FileVersion(path: measured.localPath)),
            LoudnessRecord(songKey: stale.songKey, trackGain: -3, trackPeak: 0.5, file: FileVersion(size: 1, mtime: 1)),
        ])
        let children = try fixture.library.children(of: [measured, stale])
        XCTAssertEqual(children[0].replayGain, ReplayGain(trackGain: -6.5, albumGain: -7.25, trackPeak: 0.891, albumPeak: 0.95))
        XCTAssertNil(children[1].replayGain, "measured from another version of the file")
        // A file's own ReplayGain tags, for a song, an album or a folder asked for by id; a search's or a sync's
        // page reads no file.
        let tagged = try XCTUnwrap(songs["当时的月亮"])
        XCTAssertEqual(try fixture.library.children(of: [tagged], readingTags: true).first?.replayGain,
                       ReplayGain(trackGain: -4.2, albumGain: -5, trackPeak: 0.5, albumPeak: 0.75))
        XCTAssertNil(try fixture.library.children(of: [tagged]).first?.replayGain)
        let page = try fixture.library.children(of: Array(repeating: tagged, count: SubsonicSongDetails.maxSongsReadingTags + 1),
                                                readingTags: true)
        XCTAssertNil(page.first?.replayGain)
        // A measurement that is no number (silence) is left out, so the JSON still encodes.
        try fixture.database.saveLoudness([LoudnessRecord(songKey: measured.songKey, trackGain: .infinity, trackPeak: 0,
                                                          albumGain: .nan, file: FileVersion(path: measured.localPath))])
        let silent = try XCTUnwrap(fixture.library.children(of: [measured]).first)
        XCTAssertEqual(silent.replayGain, ReplayGain(trackPeak: 0))
        XCTAssertNoThrow(try SubsonicEncoding.encode(SubsonicDocument("song", silent), as: .json))
    }

    func testAUsersAnnotationIsTheirsAlone() throws {
        let fixture = try ModelTestLibrary()
        let song = try XCTUnwrap(fixture.songs()["红豆"])
        let starred = SubsonicDate(Date(timeIntervalSince1970: 1_700_000_000.25))
        let annotation = SubsonicAnnotation(starred: starred, userRating: 4, playCount: 12,
                                            played: SubsonicDate(Date(timeIntervalSince1970: 1_700_000_100)), bookmarkPosition: 5_000)
        let children = try fixture.library.children(of: [song, song], annotations: [song.id: annotation])
        XCTAssertEqual(children[0].starred?.text, "2023-11-14T22:13:20.250Z")
        XCTAssertEqual(children[0].userRating, 4)
        XCTAssertEqual(children[0].playCount, 12)
        XCTAssertEqual(children[0].played?.text, "2023-11-14T22:15:00.000Z")
        XCTAssertEqual(children[0].bookmarkPosition, 5_000)
        let plain = try XCTUnwrap(fixture.library.children(of: [song]).first)
        XCTAssertNil(plain.starred)
        XCTAssertNil(plain.playCount)
    }

    func testSuffixAndTypeComeFromTheFilesName() {
        XCTAssertEqual(SubsonicMediaFormat.suffix(ofPath: "/m/王菲/01.FLAC"), "flac")
        XCTAssertEqual(SubsonicMediaFormat.suffix(ofPath: "/m/a.b/track"), "")
        XCTAssertEqual(SubsonicMediaFormat.suffix(ofPath: "/m/.hidden"), "")
        XCTAssertEqual(SubsonicMediaFormat.suffix(ofPath: "https://example.org/x/song.opus?token=a.b"), "opus")
        XCTAssertEqual(SubsonicMediaFormat.contentType(ofSuffix: "M4A"), "audio/mp4")
        XCTAssertEqual(SubsonicMediaFormat.contentType(ofSuffix: "xyz"), "application/octet-stream")
    }

    func testDatesAreISO8601WithMillisecondsInUTC() {
        XCTAssertEqual(SubsonicDate(stamp: "2026-01-02T03:04:05Z")?.text, "2026-01-02T03:04:05.000Z")
        XCTAssertNil(SubsonicDate(stamp: "2026-01-02 03:04:05"))
        XCTAssertEqual(SubsonicDate(Date(timeIntervalSince1970: 0.999)).text, "1970-01-01T00:00:00.999Z")
        XCTAssertEqual(SubsonicDate(Date(timeIntervalSince1970: -0.5)).text, "1969-12-31T23:59:59.500Z")
    }

    func testEveryEntityIsValidUnderItsSpecSchema() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try ModelTestLibrary()
        let songs = try fixture.songs()
        try fixture.database.saveLoudness(songs.values.map {
            LoudnessRecord(songKey: $0.songKey, trackGain: -6.5, trackPeak: 0.9, albumGain: -7, albumPeak: 1, file: FileVersion(path: $0.localPath))
        })
        let annotation = SubsonicAnnotation(starred: SubsonicDate(Date()), userRating: 5, averageRating: 4.5, playCount: 3,
                                            played: SubsonicDate(Date()), bookmarkPosition: 1000)
        let children = try fixture.library.children(of: songs.values.sorted { $0.id < $1.id },
                                                     annotations: Dictionary(uniqueKeysWithValues: songs.values.map { ($0.id, annotation) }))
        let documents = try ModelFixtures.entities(children: children)
        let encoder = JSONEncoder()
        var checks: [(name: String, target: ModelSchemaValidator.Target, json: Data)] = []
        for (name, schema, value) in documents {
            checks.append((name, .schema(schema), try encoder.encode(value)))
        }
        // Whole responses, envelope and all, as the transport sends them.
        for (endpoint, key, value) in ModelFixtures.responses(documents) {
            let body = try SubsonicEncoding.encode(SubsonicDocument(key, value), as: .json)
            checks.append(("\(endpoint) response", .endpoint(endpoint), Data(body.bytes)))
        }
        checks.append(("ping response", .endpoint("ping"), Data(try SubsonicEncoding.encode(SubsonicDocument(), as: .json).bytes)))
        checks.append(("failed getAlbum response", .endpoint("getAlbum"),
                       Data(SubsonicEncoding.encode(SubsonicError.notFound, as: .json).bytes)))
        XCTAssertEqual(try validator.failures(checks), [])
        // The validator does fail what the spec forbids.
        var broken = children[0]
        broken.userRating = 9
        let failures = try validator.failures([("broken", .schema("Child"), try encoder.encode(broken))])
        XCTAssertEqual(failures.count, 1, "\(failures)")
        XCTAssertTrue(failures.first?.contains("userRating") == true, "\(failures)")
    }
}

/// One of each entity type, filled as far as the library can fill it.
enum ModelFixtures {
    static func entities(children: [SubsonicChild]) throws -> [(name: String, schema: String, value: any Encodable & Sendable)] {
        // A song with every field the library fills, its measured loudness included.
        let song = try XCTUnwrap(children.first { $0.replayGain != nil } ?? children.first)
        var artist = ArtistID3(id: "ar-1", name: "王菲", coverArt: "ar-1", albumCount: 1)
        artist.starred = SubsonicDate(Date())
        artist.sortName = "wang fei"
        artist.musicBrainzId = "9fa2a5b2-0000-0000-0000-000000000000"
        var album = AlbumID3(id: "al-1", name: "红豆", songCount: children.count, duration: children.compactMap(\.duration).reduce(0, +),
                             created: SubsonicDate(Date()))
        album.artist = "王菲"
        album.artistId = "ar-1"
        album.coverArt = "al-1"
        album.year = 1998
        album.genre = "Pop"
        album.genres = [ItemGenre(name: "Pop")]
        album.artists = [ArtistID3(id: "ar-1", name: "王菲")]
        album.displayArtist = "王菲"
        album.apply(SubsonicAnnotation(starred: SubsonicDate(Date()), userRating: 3, playCount: 7, played: SubsonicDate(Date())))
        var folderArtist = SubsonicArtist(id: "fo-546", name: "王菲")
        folderArtist.starred = SubsonicDate(Date())
        folderArtist.userRating = 2
        folderArtist.averageRating = 2.5
        var directory = Directory(id: "fo-546", parent: SubsonicID.folder("").text, name: "王菲",
                                  child: [SubsonicChild(folderID: "fo-5ZC", parent: "fo-546", title: "红豆")] + children)
        directory.playCount = 2
        let indexes = Indexes(ignoredArticles: "The El La Los Las Le Les", lastModified: 1_700_000_000_000,
                              index: [SubsonicIndex(name: "W", artist: [folderArtist])], child: [song])
        return [
            ("Child", "Child", song),
            ("Child folder", "Child", SubsonicChild(folderID: "fo-5ZC", parent: "fo-546", title: "红豆")),
            ("ItemGenre", "ItemGenre", ItemGenre(name: "Pop")),
            ("ReplayGain", "ReplayGain", try XCTUnwrap(song.replayGain)),
            ("ArtistID3", "ArtistID3", artist),
            ("ArtistWithAlbumsID3", "ArtistWithAlbumsID3", ArtistWithAlbumsID3(artist: artist, album: [album])),
            ("AlbumID3", "AlbumID3", album),
            ("AlbumID3WithSongs", "AlbumID3WithSongs", AlbumID3WithSongs(album: album, song: children)),
            ("Artist", "Artist", folderArtist),
            ("Genre", "Genre", SubsonicGenre(value: "Pop", songCount: 9, albumCount: 4)),
            ("Genres", "Genres", Genres(genre: [SubsonicGenre(value: "Pop", songCount: 9, albumCount: 4)])),
            ("MusicFolder", "MusicFolder", MusicFolder(id: 1, name: "Music")),
            ("MusicFolders", "MusicFolders", MusicFolders(musicFolder: [MusicFolder(id: 1, name: "Music")])),
            ("Index", "Index", SubsonicIndex(name: "W", artist: [folderArtist])),
            ("IndexID3", "IndexID3", IndexID3(name: "W", artist: [artist])),
            ("Indexes", "Indexes", indexes),
            ("ArtistsID3", "ArtistsID3", ArtistsID3(ignoredArticles: "The", index: [IndexID3(name: "W", artist: [artist])])),
            ("Directory", "Directory", directory),
        ]
    }

    /// The endpoints answering each payload, with the key it goes under.
    static func responses(_ entities: [(name: String, schema: String, value: any Encodable & Sendable)])
        -> [(endpoint: String, key: String, value: any Encodable & Sendable)] {
        let byName = Dictionary(uniqueKeysWithValues: entities.map { ($0.name, $0.value) })
        return [
            ("getSong", "song", byName["Child"]!),
            ("getAlbum", "album", byName["AlbumID3WithSongs"]!),
            ("getArtist", "artist", byName["ArtistWithAlbumsID3"]!),
            ("getGenres", "genres", byName["Genres"]!),
            ("getMusicFolders", "musicFolders", byName["MusicFolders"]!),
            ("getIndexes", "indexes", byName["Indexes"]!),
            ("getArtists", "artists", byName["ArtistsID3"]!),
            ("getMusicDirectory", "directory", byName["Directory"]!),
        ]
    }
}
