import XCTest
import XZCatalogue
import XZHostCore
@testable import XZMPDCommands
import XZProtocol
import XZTestSupport

/// `sticker get song URI lyrics` tells which lyrics a song has: fetched ones, its own beside it, or none.
final class LyricsStickerTests: XCTestCase {
    func testLyricsStickerFollowsTheSongsLyrics() throws {
        let folder = try TemporaryFolder("lyrics-sticker")
        let host = try makeAlbumHost(in: folder)
        defer { host.shutdown() }
        let service = MPDService(host: host)
        var session = ClientSession(peer: .local, passwordRequired: false)
        func ask(_ line: String) -> String {
            String(decoding: session.receive(line: line, service: service).bytes, as: UTF8.self)
        }
        XCTAssertTrue(ask("update").hasSuffix("OK\n"))
        host.updates.wait()

        XCTAssertEqual(ask("sticker get song album/1.mp3 lyrics"), "ACK [50@0] {sticker} no such sticker\n")
        let one = try XCTUnwrap(host.database.song(localPath: folder.path("music/album/1.mp3")))
        try host.database.saveFetchedLyrics(FetchedLyrics(kind: .notFound), songKey: one.songKey)
        XCTAssertEqual(ask("sticker get song album/1.mp3 lyrics"), "ACK [50@0] {sticker} no such sticker\n")
        try host.database.saveFetchedLyrics(FetchedLyrics(kind: .plain, text: "words"), songKey: one.songKey)
        XCTAssertEqual(ask("sticker get song album/1.mp3 lyrics"), "sticker: lyrics=plain\nOK\n")
        XCTAssertTrue(ask("sticker list song album/1.mp3").contains("sticker: lyrics=plain\n"))
        try "[00:01.00]own\n".write(toFile: folder.path("music/album/1.lrc"), atomically: true, encoding: .utf8)
        XCTAssertEqual(ask("sticker get song album/1.mp3 lyrics"), "sticker: lyrics=synced\nOK\n")

        let two = try XCTUnwrap(host.database.song(localPath: folder.path("music/album/2.mp3")))
        try host.database.saveFetchedLyrics(FetchedLyrics(kind: .instrumental), songKey: two.songKey)
        XCTAssertEqual(ask("sticker get song album/2.mp3 lyrics"), "sticker: lyrics=instrumental\nOK\n")
    }
}
