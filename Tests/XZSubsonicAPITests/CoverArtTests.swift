import Foundation
import XCTest
import XZCatalogue
import XZSystem
import XZTestSupport
@testable import XZSubsonicAPI

final class CoverArtTests: XCTestCase {
    /// A 640×480 JPEG written by the ffmpeg CLI.
    private func writePicture(_ path: String, width: Int = 640, height: Int = 480) throws {
        try TestProcess.runChecked("ffmpeg", ["-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=1",
                                              "-frames:v", "1", path])
    }

    private func cover(_ library: SubsonicLibrary, _ fixture: BrowsingLibrary, _ parameters: [(String, String)]) throws -> BytesReply {
        guard case .bytes(let reply) = try fixture.reply("getCoverArt", parameters, from: library) else {
            throw TestFailure("getCoverArt answered no bytes")
        }
        return reply
    }

    /// (codec, width, height) as ffprobe reads `bytes`.
    private func probe(_ bytes: [UInt8], in folder: TemporaryFolder) throws -> (String, Int, Int) {
        let path = folder.path("probe-\(UUID().uuidString)")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let out = try TestProcess.runChecked("ffprobe", ["-v", "error", "-select_streams", "v:0", "-show_entries",
                                                         "stream=codec_name,width,height", "-of", "csv=p=0", path]).stdout
        let fields = out.trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",").map(String.init)
        guard fields.count == 3, let width = Int(fields[1]), let height = Int(fields[2]) else { throw TestFailure("ffprobe said \(out)") }
        return (fields[0], width, height)
    }

    private func cachedFiles(_ library: SubsonicLibrary) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: library.covers.folder.path)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
    }

    func testAnAlbumsCoverIsResizedOnceAndServedFromTheCache() throws {
        let fixture = try BrowsingLibrary()
        let library = fixture.library
        let song = try fixture.song(titled: "红豆")
        let folder = (song.localPath as NSString).deletingLastPathComponent
        try writePicture(folder + "/cover.jpg")
        let album = try XCTUnwrap(try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], of: SubsonicChild.self).coverArt)

        let small = try cover(library, fixture, [("id", album), ("size", "100")])
        XCTAssertEqual(small.contentType, "image/jpeg")
        let (codec, width, height) = try probe(small.bytes, in: fixture.folder)
        XCTAssertEqual(codec, "mjpeg")
        XCTAssertEqual([width, height], [100, 75])
        let cached = cachedFiles(library)
        XCTAssertEqual(cached.count, 1)

        // The second request reads the cached file: mark it, and the mark comes back.
        let marked = library.covers.folder.appendingPathComponent(cached[0]).path
        var bytes = small.bytes
        bytes[bytes.count - 3] ^= 0xFF
        try Data(bytes).write(to: URL(fileURLWithPath: marked))
        XCTAssertEqual(try cover(library, fixture, [("id", album), ("size", "100")]).bytes, bytes)

        // Without a size, or a size past the picture's, the picture as it is.
        let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder + "/cover.jpg")))
        XCTAssertEqual(try cover(library, fixture, [("id", album)]).bytes, original)
        XCTAssertEqual(try cover(library, fixture, [("id", album), ("size", "99999999999999999999")]).bytes, original)
        // A size below 1 is 1 pixel's worth: 1×1 (the smaller side rounds up to 1).
        let tiny = try cover(library, fixture, [("id", album), ("size", "-4")])
        XCTAssertEqual(try probe(tiny.bytes, in: fixture.folder).1, 1)

        // A new cover file is a new picture: the cache's key follows the files.
        try writePicture(folder + "/cover.jpg", width: 300, height: 600)
        let replaced = try cover(library, fixture, [("id", album), ("size", "100")])
        XCTAssertEqual(try probe(replaced.bytes, in: fixture.folder).1, 50)

        // The song's id and its singer's reach the same picture (the song has no picture of its own).
        XCTAssertEqual(try probe(try cover(library, fixture, [("id", SubsonicID.song(song.id).text), ("size", "60")]).bytes,
                                 in: fixture.folder).1, 30)
        XCTAssertEqual(try probe(try cover(library, fixture, [("id", SubsonicID.artist(song.singerId).text), ("size", "60")]).bytes,
                                 in: fixture.folder).1, 30)
        XCTAssertEqual(try probe(try cover(library, fixture, [("id", SubsonicID.folder("王菲/红豆").text), ("size", "60")]).bytes,
                                 in: fixture.folder).1, 30)
    }

    func testASongsOwnPictureComesBeforeItsFoldersAndAnAlbumsTheOtherWay() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "Blood Sweat & Tears")
        let folder = (song.localPath as NSString).deletingLastPathComponent
        try writePicture(folder + "/cover.jpg")
        try writePicture(fixture.folder.path("front.png"), width: 200, height: 100)
        let tagged = fixture.folder.path("tagged.mp3")
        try TestProcess.runChecked("ffmpeg", ["-v", "error", "-y", "-i", song.localPath, "-i", fixture.folder.path("front.png"),
                                              "-map", "0", "-map", "1", "-c", "copy", "-id3v2_version", "3",
                                              "-metadata:s:v", "comment=Cover (front)", tagged])
        try FileManager.default.removeItem(atPath: song.localPath)
        try FileManager.default.moveItem(atPath: tagged, toPath: song.localPath)

        let own = try cover(fixture.library, fixture, [("id", SubsonicID.song(song.id).text)])
        XCTAssertEqual(own.contentType, "image/png", "a PNG that fits is sent as it is")
        let (_, ownWidth, ownHeight) = try probe(own.bytes, in: fixture.folder)
        XCTAssertEqual([ownWidth, ownHeight], [200, 100])
        let resized = try cover(fixture.library, fixture, [("id", SubsonicID.song(song.id).text), ("size", "50")])
        XCTAssertEqual(resized.contentType, "image/jpeg")
        let (_, width, height) = try probe(resized.bytes, in: fixture.folder)
        XCTAssertEqual([width, height], [50, 25])
        let album = try XCTUnwrap(try fixture.answer("getSong", [("id", SubsonicID.song(song.id).text)], of: SubsonicChild.self).albumId)
        let (_, albumWidth, albumHeight) = try probe(try cover(fixture.library, fixture, [("id", album), ("size", "64")]).bytes,
                                                     in: fixture.folder)
        XCTAssertEqual([albumWidth, albumHeight], [64, 48])
    }

    func testTheCacheKeepsWithinItsCapacity() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "晴天")
        try writePicture((song.localPath as NSString).deletingLastPathComponent + "/folder.jpg", width: 800, height: 800)
        var settings = SubsonicSettings(cacheFolder: fixture.folder.url.appendingPathComponent("small-cache"))
        settings.coverCacheBytes = 40_000
        let library = SubsonicLibrary(host: fixture.host, accounts: fixture.library.accounts, settings: settings)
        let id = SubsonicID.song(song.id).text
        var sizes: [Int] = []
        for size in stride(from: 100, through: 600, by: 50) {
            sizes.append(try cover(library, fixture, [("id", id), ("size", "\(size)")]).bytes.count)
            let total = cachedFiles(library).reduce(0) { total, name in
                total + (FileStatus(path: library.covers.folder.appendingPathComponent(name).path)?.size ?? 0)
            }
            XCTAssertLessThanOrEqual(total, settings.coverCacheBytes)
        }
        XCTAssertGreaterThan(sizes.reduce(0, +), Int(settings.coverCacheBytes), "the pictures outgrow the cache")
        XCTAssertFalse(cachedFiles(library).isEmpty)
    }

    func testDamagedPicturesAndUnknownIdsAreNotFound() throws {
        let fixture = try BrowsingLibrary()
        let song = try fixture.song(titled: "Come Together")
        let folder = (song.localPath as NSString).deletingLastPathComponent
        try writePicture(folder + "/whole.jpg")
        let whole = try Data(contentsOf: URL(fileURLWithPath: folder + "/whole.jpg"))
        try whole.prefix(whole.count / 2).write(to: URL(fileURLWithPath: folder + "/cover.jpg"))
        try FileManager.default.removeItem(atPath: folder + "/whole.jpg")
        XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", SubsonicID.song(song.id).text), ("size", "100")]), 70)
        XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", SubsonicID.song(song.id).text)]), 70)
        try Data("GIF89a but not really".utf8).write(to: URL(fileURLWithPath: folder + "/cover.jpg"))
        XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", SubsonicID.song(song.id).text)]), 70)

        // No picture anywhere: the song at the top has neither a tag nor a cover file.
        XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", SubsonicID.song(try fixture.song(titled: "Alone").id).text)]), 70)
        for id in ["so-999999", "al-999999", "ar-999999", "ra-1", SubsonicID.folder("../..").text, SubsonicID.folder("/etc").text,
                   SubsonicID.folder("王菲/../../..").text, SubsonicID.playlist("x").text, "../../etc/passwd", "al-1%00"] {
            XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", id)]), 70, id)
        }
        XCTAssertEqual(fixture.errorCode("getCoverArt", []), 10)
        XCTAssertEqual(fixture.errorCode("getCoverArt", [("id", "al-1"), ("size", "big")]), 0)
    }
}
