import Foundation
import XCTest
import XZAccounts
import XZCatalogue
import XZStats
import XZTestSupport
@testable import XZSubsonicAPI

final class ListsTests: XCTestCase {
    func testAlbumListsOfEveryType() throws {
        let fixture = try BrowsingLibrary()
        func names(_ parameters: [(String, String)], as user: LibraryUser? = nil) throws -> [String] {
            try fixture.answer("getAlbumList2", parameters, as: user, of: SubsonicAlbumList2.self).album.map(\.name)
        }
        // Solo's top.mp3 names no album: it is in Solo's "[Unknown Album]".
        let all = ["Abbey Road", "The Album", "Wings", "叶惠美", "夜", "红豆", "[Unknown Album]"]
        // By spelling: abbey, album (article dropped), hongdou, unknown album, wings, ye (夜), yehuimei.
        XCTAssertEqual(try names([("type", "alphabeticalByName"), ("size", "500")]),
                       ["Abbey Road", "The Album", "红豆", "[Unknown Album]", "Wings", "夜", "叶惠美"])
        XCTAssertEqual(try names([("type", "alphabeticalByName"), ("size", "2"), ("offset", "2")]), ["红豆", "[Unknown Album]"])
        // By artist: beatles, b방…, imgartist (the image's ARTIST tag), solo, wangfei, y…, zhoujielun.
        XCTAssertEqual(try names([("type", "alphabeticalByArtist"), ("size", "500")]),
                       ["Abbey Road", "Wings", "The Album", "[Unknown Album]", "红豆", "夜", "叶惠美"])
        XCTAssertEqual(try names([("type", "byYear"), ("fromYear", "1990"), ("toYear", "2020")]),
                       ["红豆", "The Album", "叶惠美", "Wings", "夜"])
        XCTAssertEqual(try names([("type", "byYear"), ("fromYear", "2020"), ("toYear", "1990")]),
                       ["夜", "Wings", "叶惠美", "The Album", "红豆"])
        XCTAssertEqual(try names([("type", "byGenre"), ("genre", "Mandopop")]), ["叶惠美"])
        XCTAssertEqual(Set(try names([("type", "random"), ("size", "500")])), Set(all))
        XCTAssertEqual(Set(try names([("type", "newest"), ("size", "500")])), Set(all))
        XCTAssertEqual(try names([("type", "newest")]).count, 7)
        XCTAssertEqual(try names([("type", "random"), ("size", "3")]).count, 3)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", [("type", "byYear")]), 10)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", [("type", "byGenre")]), 10)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", [("type", "best")]), 0)
        XCTAssertEqual(fixture.errorCode("getAlbumList2", []), 10)

        // The guest's plays, ratings and stars are the guest's alone.
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        for (title, plays) in [("晴天", 3), ("Something", 1), ("红豆", 2)] {
            let song = try fixture.song(titled: title)
            for play in 0..<plays {
                try fixture.play(song, as: fixture.guest, at: day.addingTimeInterval(Double(play * 60 + (title == "Something" ? 3600 : 0))))
            }
        }
        let albums = Dictionary(uniqueKeysWithValues: try fixture.database.albumNames().map { ($0.title, $0.id) })
        let marks = UserAnnotations(database: fixture.database, user: fixture.guest.id)
        try marks.setRating(.album, id: albums["夜"]!, rating: 4)
        try marks.setRating(.song, id: try fixture.song(titled: "Come Together").id, rating: 5)
        try marks.setRating(.song, id: try fixture.song(titled: "Something").id, rating: 2)
        try marks.setStarred(true, albums: [albums["Wings"]!], at: day)
        try marks.setStarred(true, albums: [albums["红豆"]!], at: day.addingTimeInterval(10))

        XCTAssertEqual(try names([("type", "frequent")], as: fixture.guest), ["叶惠美", "红豆", "Abbey Road"])
        XCTAssertEqual(try names([("type", "recent")], as: fixture.guest), ["Abbey Road", "叶惠美", "红豆"])
        XCTAssertEqual(try names([("type", "highest")], as: fixture.guest), ["夜", "Abbey Road"])
        XCTAssertEqual(try names([("type", "starred")], as: fixture.guest), ["红豆", "Wings"])
        for type in ["frequent", "recent", "highest", "starred"] {
            XCTAssertEqual(try names([("type", type)]), [], type)
        }
        let frequent = try fixture.answer("getAlbumList2", [("type", "frequent")], as: fixture.guest, of: SubsonicAlbumList2.self).album
        XCTAssertEqual(frequent.map(\.playCount), [3, 2, 1])
        XCTAssertNotNil(frequent[1].starred)
        let folderList = try fixture.answer("getAlbumList", [("type", "starred")], as: fixture.guest, of: SubsonicAlbumList.self).album
        XCTAssertEqual(folderList.map(\.title), ["红豆", "Wings"])
        // Every user's ratings, averaged: the owner's 2 and the guest's 5 of Come Together.
        let comeTogether = try fixture.song(titled: "Come Together")
        try UserAnnotations(database: fixture.database, user: fixture.owner.id).setRating(.song, id: comeTogether.id, rating: 2)
        let rated = try fixture.answer("getSong", [("id", SubsonicID.song(comeTogether.id).text)], as: fixture.guest, of: SubsonicChild.self)
        XCTAssertEqual(rated.userRating, 5)
        XCTAssertEqual(rated.averageRating, 3.5)
        try UserAnnotations(database: fixture.database, user: fixture.owner.id).setRating(.album, id: albums["夜"]!, rating: 1)
        let night = try fixture.answer("getAlbumList", [("type", "highest")], as: fixture.guest, of: SubsonicAlbumList.self).album
        XCTAssertEqual(night.first?.userRating, 4)
        XCTAssertEqual(night.first?.averageRating, 2.5)
        XCTAssertTrue(folderList.allSatisfy(\.isDir))
        // The folder view's albums and artists open as folders too (clients browse them by getMusicDirectory).
        let redBean = try fixture.answer("getMusicDirectory", [("id", folderList[0].id)], of: Directory.self)
        XCTAssertEqual(redBean.child.map(\.title), ["当时的月亮", "红豆"])
        XCTAssertEqual(redBean.parent, folderList[0].parent)
        let singer = try fixture.answer("getMusicDirectory", [("id", try XCTUnwrap(redBean.parent))], of: Directory.self)
        XCTAssertEqual(singer.name, "王菲")
        XCTAssertEqual(singer.child.map(\.id), [folderList[0].id])
    }

    func testStarsAndPlaysAreEachUsersOwn() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "晴天")
        try fixture.likeAndPlay(song, as: fixture.guest)
        try UserAnnotations(database: fixture.database, user: fixture.guest.id).setStarred(true, artists: [song.singerId])

        let mine = try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], as: fixture.guest, of: SubsonicChild.self)
        XCTAssertNotNil(mine.starred)
        XCTAssertEqual(mine.playCount, 1)
        XCTAssertNotNil(mine.played)
        let owners = try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], of: SubsonicChild.self)
        XCTAssertNil(owners.starred)
        XCTAssertNil(owners.playCount)
        try UserBookmarks(database: fixture.database, user: fixture.guest.id).save(songId: song.id, positionMs: 1500, comment: "")
        XCTAssertEqual(try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], as: fixture.guest,
                                          of: SubsonicChild.self).bookmarkPosition, 1500)
        XCTAssertNil(try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], of: SubsonicChild.self).bookmarkPosition)

        let starred = try fixture.answer("getStarred2", [], as: fixture.guest, of: SubsonicStarred2.self)
        XCTAssertEqual(starred.song.map(\.title), ["晴天"])
        XCTAssertEqual(starred.artist.map(\.name), ["周杰伦"])
        XCTAssertNotNil(starred.artist.first?.starred)
        let ownerStarred = try fixture.answer("getStarred2", [], of: SubsonicStarred2.self)
        XCTAssertTrue(ownerStarred.song.isEmpty && ownerStarred.artist.isEmpty && ownerStarred.album.isEmpty)
        let folderStarred = try fixture.answer("getStarred", [], as: fixture.guest, of: SubsonicStarred.self)
        XCTAssertEqual(folderStarred.artist.map(\.name), ["周杰伦"])

        let album = try fixture.answer("getAlbum", [("id", try XCTUnwrap(mine.albumId))], as: fixture.guest, of: AlbumID3WithSongs.self)
        XCTAssertEqual(album.album.playCount, 1)
        XCTAssertEqual(album.song.first { $0.title == "晴天" }?.playCount, 1)
        let ownerAlbum = try fixture.answer("getAlbum", [("id", try XCTUnwrap(mine.albumId))], of: AlbumID3WithSongs.self)
        XCTAssertNil(ownerAlbum.album.playCount)
    }

    func testTopSimilarAndNowPlayingComeFromTheLibrarysOwnPlays() throws {
        let fixture = try BrowsingLibrary()
        let day = Date(timeIntervalSince1970: 1_700_000_000)
        func play(_ title: String, times: Int = 1, at date: Date) throws {
            let song = try fixture.song(titled: title)
            for _ in 0..<times { try fixture.play(song, as: fixture.guest, at: date) }
        }
        try play("Something", times: 3, at: day)
        try play("Come Together", at: day)
        try play("红豆", times: 2, at: day.addingTimeInterval(60))
        try play("晴天", at: day.addingTimeInterval(86_400 * 3))

        let top = try fixture.answer("getTopSongs", [("artist", "The Beatles")], of: SubsonicSongList.self)
        XCTAssertEqual(top.song.map(\.title), ["Something", "Come Together"])
        XCTAssertEqual(try fixture.answer("getTopSongs", [("artist", "Nobody At All")], of: SubsonicSongList.self).song.count, 0)

        let something = try fixture.song(titled: "Something")
        let similar = try fixture.answer("getSimilarSongs2", [("id", SubsonicID.song(something.id).text), ("count", "3")],
                                         of: SubsonicSongList.self)
        // Played the same day first (红豆 twice, Come Together once), then the same artist or genre.
        XCTAssertEqual(Array(similar.song.map(\.title).prefix(2)), ["红豆", "Come Together"])
        XCTAssertEqual(similar.song.count, 3)
        XCTAssertFalse(similar.song.contains { $0.title == "Something" })
        let unplayed = try fixture.answer("getSimilarSongs", [("id", SubsonicID.song(try fixture.song(titled: "ただ君に晴れ").id).text)],
                                          of: SubsonicSongList.self)
        XCTAssertTrue(unplayed.song.allSatisfy { $0.title != "ただ君に晴れ" })

        let info = try fixture.answer("getArtistInfo2", [("id", SubsonicID.artist(something.singerId).text)], of: SubsonicArtistInfo2.self)
        XCTAssertEqual(info.similarArtist?.map(\.name), ["王菲", "周杰伦"])
        XCTAssertEqual(fixture.errorCode("getAlbumInfo2", [("id", "al-999999")]), 70)
        let abbeyRoad = try XCTUnwrap(try fixture.database.albumNames().first { $0.title == "Abbey Road" })
        XCTAssertNil(try fixture.answer("getAlbumInfo", [("id", SubsonicID.album(abbeyRoad.id).text)], of: SubsonicAlbumInfo.self).notes)

        // What a client reported playing, by its user.
        NowPlayingReports.of(fixture.library).add(NowPlayingReport(user: fixture.guest.id, username: "guest", client: "DSub",
                                                                   songId: something.id, at: Date()))
        let now = try fixture.answer("getNowPlaying", [], of: SubsonicNowPlaying.self)
        XCTAssertEqual(now.entry.map(\.username), ["guest"])
        XCTAssertEqual(now.entry.first?.child.title, "Something")
        XCTAssertEqual(now.entry.first?.playerName, "DSub")
        XCTAssertEqual(now.entry.first?.minutesAgo, 0)
    }

    func testAlphabeticalListsFollowTheCatalogue() throws {
        let fixture = try BrowsingLibrary()
        func names() throws -> [String] {
            try fixture.answer("getAlbumList2", [("type", "alphabeticalByName"), ("size", "2")], of: SubsonicAlbumList2.self).album.map(\.name)
        }
        XCTAssertEqual(try names(), ["Abbey Road", "The Album"])
        let music = fixture.folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("new"), withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("new/1.mp3").path, seconds: 1,
                                  tags: .init(title: "Ant", artist: "ZZ Top", album: "Aardvark", track: 1))
        _ = fixture.host.startUpdate(of: music, rescan: false)
        fixture.host.updates.wait()
        XCTAssertEqual(try names(), ["Aardvark", "Abbey Road"])
        XCTAssertEqual(try fixture.answer("getAlbumList2", [("type", "alphabeticalByArtist"), ("size", "500")],
                                          of: SubsonicAlbumList2.self).album.last?.name, "Aardvark")
    }
}
