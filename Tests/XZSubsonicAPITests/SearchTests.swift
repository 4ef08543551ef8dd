import Foundation
import GRDB
import XCTest
import XZAccounts
import XZCatalogue
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

final class SearchTests: XCTestCase {
    private func search3(_ fixture: BrowsingLibrary, _ parameters: [(String, String)], as user: LibraryUser? = nil) throws -> SearchResult3 {
        try fixture.answer("search3", parameters, as: user, of: SearchResult3.self)
    }

    func testSearch3FindsACJKSingerByPinyinInitialsTraditionalFormAndATypo() throws {
        let fixture = try BrowsingLibrary()
        for query in ["王菲", "wangfei", "wf", "WangFei", "wang fei"] {
            let result = try search3(fixture, [("query", query)])
            XCTAssertEqual(result.artist.first?.name, "王菲", query)
            XCTAssertEqual(Set(result.song.map(\.title)), ["红豆", "当时的月亮"], query)
            XCTAssertEqual(result.album.map(\.name), ["红豆"], query)
        }
        // Her song and album in traditional characters (紅豆 for 红豆).
        let traditional = try search3(fixture, [("query", "紅豆")])
        XCTAssertEqual(traditional.song.first?.title, "红豆")
        XCTAssertEqual(traditional.album.first?.name, "红豆")
        // A letter typed wrong: nothing matches, so what the query came close to.
        let typo = try search3(fixture, [("query", "wangfie")])
        XCTAssertEqual(typo.artist.map(\.name), ["王菲"])
        let typoTitle = try search3(fixture, [("query", "qingtain")])
        XCTAssertEqual(typoTitle.song.map(\.title), ["晴天"])
        // An album by its name's pinyin, and a CUE sheet's album and tracks.
        XCTAssertEqual(try search3(fixture, [("query", "yehuimei")]).album.map(\.name), ["叶惠美"])
        XCTAssertEqual(try search3(fixture, [("query", "abbey road")]).album.map(\.name), ["Abbey Road"])
        let sheet = try search3(fixture, [("query", "the album")])
        XCTAssertEqual(sheet.album.map(\.name), ["The Album"])
        XCTAssertEqual(Set(sheet.song.map(\.title)), ["First", "Second", "Third"])
        // Ids resolve, and the album the songs name is the one listed.
        let song = try XCTUnwrap(try search3(fixture, [("query", "wangfei")]).song.first)
        XCTAssertEqual(try fixture.answer("getSong", [("id", song.id)], of: SubsonicChild.self).title, song.title)
        XCTAssertEqual(song.albumId, try search3(fixture, [("query", "wangfei")]).album.first?.id)
    }

    func testSearch2AnswersTheFolderViewOfTheSameHits() throws {
        let fixture = try BrowsingLibrary()
        let result = try fixture.answer("search2", [("query", "zhoujielun")], of: SearchResult2.self)
        XCTAssertEqual(result.artist.map(\.name), ["周杰伦"])
        XCTAssertEqual(result.album.map(\.title), ["叶惠美"])
        XCTAssertTrue(result.album.allSatisfy(\.isDir))
        XCTAssertEqual(Set(result.song.map(\.title)), ["晴天", "以父之名"])
    }

    func testAnEmptyQueryPagesThroughEverythingExactlyOnce() throws {
        let fixture = try BrowsingLibrary()
        for query in ["\"\"", "", nil] as [String?] {
            for pageSize in [1, 3, 500] {
                var songs: [String] = [], albums: [String] = [], artists: [String] = []
                var offset = 0
                while true {
                    var parameters = [("songCount", "\(pageSize)"), ("songOffset", "\(offset)"), ("albumCount", "\(pageSize)"),
                                      ("albumOffset", "\(offset)"), ("artistCount", "\(pageSize)"), ("artistOffset", "\(offset)")]
                    if let query { parameters.append(("query", query)) }
                    let page = try search3(fixture, parameters)
                    songs += page.song.map(\.id)
                    albums += page.album.map(\.id)
                    artists += page.artist.map(\.id)
                    XCTAssertLessThanOrEqual(page.song.count, pageSize)
                    if page.song.isEmpty && page.album.isEmpty && page.artist.isEmpty { break }
                    offset += pageSize
                }
                XCTAssertEqual(songs.count, BrowsingLibrary.songCount, "query \(query ?? "nil"), pages of \(pageSize)")
                XCTAssertEqual(Set(songs).count, songs.count)
                // 王菲 红豆, 周杰伦 叶惠美, ヨルシカ 夜, 방탄소년단 Wings, The Beatles Abbey Road, The Band The Album, and
                // Solo's "[Unknown Album]" (top.mp3 names no album).
                XCTAssertEqual(albums.count, 7)
                XCTAssertEqual(Set(albums).count, albums.count)
                // Those and Solo.
                XCTAssertEqual(artists.count, 7)
                XCTAssertEqual(Set(artists).count, artists.count)
            }
        }
        // The CUE image's tracks are the songs; the image itself is not one.
        let all = try search3(fixture, [("query", ""), ("songCount", "500")])
        XCTAssertTrue(all.song.contains { $0.title == "First" })
        XCTAssertFalse(all.song.contains { $0.path?.hasSuffix("image.flac") == true })
    }

    func testCountsAndOffsetsAreHeldToTheirDomains() throws {
        let fixture = try BrowsingLibrary()
        let none = try search3(fixture, [("query", ""), ("songCount", "0"), ("albumCount", "0"), ("artistCount", "0")])
        XCTAssertEqual(none.song.count + none.album.count + none.artist.count, 0)
        let huge = try search3(fixture, [("query", ""), ("songCount", "99999999999999999999999"), ("songOffset", "-5")])
        XCTAssertEqual(huge.song.count, BrowsingLibrary.songCount)
        let past = try search3(fixture, [("query", "wangfei"), ("songOffset", "99999999999999999999"), ("artistOffset", "4294967296")])
        XCTAssertTrue(past.song.isEmpty)
        XCTAssertTrue(past.artist.isEmpty)
        XCTAssertEqual(past.album.count, 1)
        XCTAssertEqual(fixture.errorCode("search3", [("query", "x"), ("songCount", "many")]), 0)
        XCTAssertEqual(fixture.errorCode("search3", [("query", "wangfei"), ("musicFolderId", "1")]), nil)
        XCTAssertEqual(fixture.errorCode("search3", [("query", "wangfei"), ("musicFolderId", "2")]), 70)
    }

    func testHostileQueriesAnswerOrFailWithOneLine() throws {
        let fixture = try BrowsingLibrary()
        let queries = [
            "\"", "\"\"\"", "*", "**", "%", "_%_", "'", "' OR 1=1 --", "\"; DROP TABLE song; --", "NEAR(a b)", "a AND b OR NOT c",
            "title:x", "^x", "(", ")", "{a b}", "a*b", "-x", "+x", "\\", "\u{7F}", "\u{1B}[31m", "王菲\"", "\u{FFFD}",
            "x NEAR/2 y", "col : x", String(repeating: "a", count: 4000), String(repeating: "王", count: 1000),
            String(repeating: "\" OR ", count: 600),
        ]
        for query in queries {
            do {
                _ = try search3(fixture, [("query", query)])
                _ = try fixture.answer("search2", [("query", query)], of: SearchResult2.self)
            } catch let error as SubsonicError {
                XCTFail("\(query.prefix(40)): \(error.message)")
            }
        }
        // Past the longest value a parameter may hold: one line naming the parameter, no statement's text.
        do {
            _ = try search3(fixture, [("query", String(repeating: "x", count: 5000))])
            XCTFail("a 5,000-character query was searched")
        } catch let error as SubsonicError {
            XCTAssertEqual(error.code, 0)
            XCTAssertFalse(error.message.contains("\n"))
            XCTAssertFalse(error.message.localizedCaseInsensitiveContains("sql"))
            XCTAssertTrue(error.message.contains("query"))
        }
    }

    func testStarsAndPlaysAreTheCallersOwn() throws {
        let fixture = try BrowsingLibrary()
        try UserAnnotations(database: fixture.database, user: fixture.guest.id).setStarred(true, artists: [try fixture.song(titled: "红豆").singerId])
        let guest = try search3(fixture, [("query", "wangfei")], as: fixture.guest)
        XCTAssertNotNil(guest.artist.first?.starred)
        let owner = try search3(fixture, [("query", "wangfei")])
        XCTAssertNil(owner.artist.first?.starred)
    }

    func testSongsAndAlbumsCarryTheCallersLikesRatingsPlaysAndBookmarks() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "红豆")
        let albumID = try XCTUnwrap(try fixture.database.pool.read {
            try Int64.fetchOne($0, sql: "SELECT album_id FROM song WHERE id = ?", arguments: [song.id])
        })
        let played = Date(timeIntervalSince1970: 1_800_000_000)
        let stats = StatsStore(database: fixture.database, user: fixture.guest.id)
        try stats.like(songKey: song.songKey, at: played)
        for day in 0..<2 {
            try stats.recordPlay(songKey: song.songKey, title: song.title, singer: song.singer, durationMs: 1_000,
                                 at: played.addingTimeInterval(Double(day) * 86_400))
        }
        let guestMarks = UserAnnotations(database: fixture.database, user: fixture.guest.id)
        try guestMarks.setRating(.song, id: song.id, rating: 4)
        try guestMarks.setRating(.album, id: albumID, rating: 3)
        try guestMarks.setStarred(true, albums: [albumID], at: played)
        try UserAnnotations(database: fixture.database, user: fixture.owner.id).setRating(.song, id: song.id, rating: 1)
        try UserBookmarks(database: fixture.database, user: fixture.guest.id).save(songId: song.id, positionMs: 42_000, comment: "")

        let guest = try search3(fixture, [("query", "红豆")], as: fixture.guest)
        let child = try XCTUnwrap(guest.song.first { $0.id == SubsonicID.song(song.id).text })
        XCTAssertEqual(child.starred, SubsonicDate(played))
        XCTAssertEqual(child.userRating, 4)
        XCTAssertEqual(child.averageRating, 2.5)
        XCTAssertEqual(child.playCount, 2)
        XCTAssertEqual(child.played, SubsonicDate(played.addingTimeInterval(86_400)))
        XCTAssertEqual(child.bookmarkPosition, 42_000)
        let album = try XCTUnwrap(guest.album.first { $0.id == SubsonicID.album(albumID).text })
        XCTAssertEqual(album.starred, SubsonicDate(played))
        XCTAssertEqual(album.userRating, 3)
        XCTAssertEqual(album.playCount, 2)
        XCTAssertEqual(album.played, SubsonicDate(played.addingTimeInterval(86_400)))

        let owner = try search3(fixture, [("query", "红豆")])
        let ownChild = try XCTUnwrap(owner.song.first { $0.id == SubsonicID.song(song.id).text })
        XCTAssertEqual(ownChild.userRating, 1)
        XCTAssertEqual(ownChild.averageRating, 2.5)
        XCTAssertNil(ownChild.starred)
        XCTAssertNil(ownChild.playCount)
        XCTAssertNil(ownChild.played)
        XCTAssertNil(ownChild.bookmarkPosition)
        let ownAlbum = try XCTUnwrap(owner.album.first { $0.id == SubsonicID.album(albumID).text })
        XCTAssertNil(ownAlbum.starred)
        XCTAssertNil(ownAlbum.userRating)
        XCTAssertNil(ownAlbum.playCount)
    }

    func testResponsesMatchTheSpecsSchemas() throws {
        let validator = try ModelSchemaValidator.make()
        let fixture = try BrowsingLibrary()
        try UserAnnotations(database: fixture.database, user: fixture.owner.id).setStarred(true, artists: [try fixture.song(titled: "红豆").singerId])
        var checks: [(name: String, target: ModelSchemaValidator.Target, json: Data)] = []
        for (endpoint, query) in [("search3", "wangfei"), ("search3", ""), ("search2", "wf"), ("search2", "\"\""), ("search3", "nothing like it")] {
            let parameters = [("query", query), ("songCount", "500")]
            let document = endpoint == "search3"
                ? SubsonicDocument("searchResult3", try fixture.answer(endpoint, parameters, of: SearchResult3.self))
                : SubsonicDocument("searchResult2", try fixture.answer(endpoint, parameters, of: SearchResult2.self))
            let body = try SubsonicEncoding.encode(document, as: .json)
            checks.append(("\(endpoint) of query \(checks.count)", .endpoint(endpoint), Data(body.bytes)))
        }
        checks.append(("search3 failed", .endpoint("search3"),
                       Data(SubsonicEncoding.encode(SubsonicError.generic("parameter 'query' is longer than 4096 bytes"), as: .json).bytes)))
        XCTAssertEqual(try validator.failures(checks), [])
    }
}
