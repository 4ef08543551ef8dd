import Foundation
import XCTest
import XZCatalogue
@testable import XZDownloader
import XZTestSupport

/// Open catalogues against servers answering in the shapes the Internet Archive, Jamendo and ccMixter document.
final class CatalogueSourceTests: XCTestCase {
    /// An Internet Archive with one item of two MP3s (and their FLAC originals), `metadataFor` giving each file's checksums.
    static func archive(_ body: Data, checksums: @escaping @Sendable (String) -> (md5: String, sha1: String))
        -> TestHTTPServer.Handler {
        return { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            switch request.path.removingPercentEncoding ?? request.path {
            case "/advancedsearch.php":
                guard request.query["output"] == "json", request.query["q"]?.contains("netlabel tones") == true else {
                    return .text(400, "bad query")
                }
                return .json(200, ["responseHeader": ["status": 0, "QTime": 3],
                                   "response": ["numFound": 1, "start": 0, "docs": [["identifier": "tones_ep"]]]])
            case "/metadata/tones_ep":
                func file(_ name: String, _ title: String, track: String) -> [String: Any] {
                    let sums = checksums(name)
                    return ["name": name, "source": "derivative", "format": "VBR MP3", "title": title, "creator": "Sine Band",
                            "track": track, "length": "2.01", "size": String(body.count), "md5": sums.md5, "sha1": sums.sha1]
                }
                return .json(200, [
                    "metadata": ["identifier": "tones_ep", "title": "Tones EP", "creator": "Sine Band", "date": "2009-04-01",
                                 "licenseurl": "https://creativecommons.org/licenses/by-nc-sa/3.0/"],
                    "files": [file("01 A Tone.mp3", "A Tone", track: "01"), file("02 B Tone.mp3", "B Tone", track: "2/2"),
                              ["name": "01 A Tone.flac", "format": "Flac", "size": "999"],
                              ["name": "tones_ep_meta.xml", "format": "Metadata"]],
                ])
            case "/download/tones_ep/01 A Tone.mp3", "/download/tones_ep/02 B Tone.mp3":
                return TestHTTPServer.file(body, request: request)
            default:
                return .text(404, "not found")
            }
        }
    }

    func testArchiveSearchAddsSongsThatDownloadVerifiedByMD5AndSHA1() async throws {
        let body = try MP3Bodies.small()
        let sums = try Self.digests(body)
        let fixture = try DownloadFixture("archive", handler: Self.archive(body) { _ in sums })
        fixture.settings.archiveURL = fixture.server.base
        let searcher = CatalogueSearcher(settings: fixture.settings)
        let songs = try await searcher.search(source: "archive", query: "netlabel tones", limit: 10)
        await searcher.shutdown()

        XCTAssertEqual(songs.map(\.id), ["tones_ep/01 A Tone.mp3", "tones_ep/02 B Tone.mp3"])
        XCTAssertEqual(songs.map(\.track), [1, 2])
        XCTAssertEqual(songs[0].title, "A Tone")
        XCTAssertEqual(songs[0].singer, "Sine Band")
        XCTAssertEqual(songs[0].album, "Tones EP")
        XCTAssertEqual(songs[0].year, 2009)
        XCTAssertEqual(songs[0].durationMs, 2010)
        XCTAssertEqual(songs[0].size, Int64(body.count))
        XCTAssertEqual(songs[0].md5, sums.md5)
        XCTAssertEqual(songs[0].sha1, sums.sha1)
        XCTAssertEqual(songs[0].licence, "https://creativecommons.org/licenses/by-nc-sa/3.0/")
        XCTAssertEqual(songs[0].page, fixture.server.url("/details/tones_ep"))
        XCTAssertEqual(songs[0].audioURL, fixture.server.url("/download/tones_ep/01%20A%20Tone.mp3"))

        let summary = try fixture.database.addCatalogueSongs(songs)
        XCTAssertEqual(summary.added, 2)
        let origin = try fixture.database.songOrigin(songKey: "src:archive:tones_ep/01 A Tone.mp3")
        XCTAssertEqual(origin?.licence, "https://creativecommons.org/licenses/by-nc-sa/3.0/")
        XCTAssertEqual(origin?.md5, sums.md5)
        XCTAssertEqual(origin?.id, songs[0].id, "the song as the catalogue offered it")
        XCTAssertEqual(origin?.title, songs[0].title)
        XCTAssertEqual(origin?.audioURL, songs[0].audioURL)
        // Adding again updates the same songs.
        XCTAssertEqual(try fixture.database.addCatalogueSongs(songs).added, 0)

        let tasks = try await fixture.download(["archive:tones_ep/01 A Tone.mp3", "archive:tones_ep/02 B Tone.mp3"])
        XCTAssertEqual(fixture.task(.audio, of: "archive:tones_ep/01 A Tone.mp3", in: tasks)?.state, .done)
        XCTAssertEqual(fixture.songFiles(), ["songs/Sine Band/Tones EP/01 A Tone.mp3", "songs/Sine Band/Tones EP/02 B Tone.mp3"])
    }

    func testAFileWhoseMD5OrSHA1DiffersIsRefusedAndNotKept() async throws {
        let body = try MP3Bodies.small()
        let sums = try Self.digests(body)
        // The first file's MD5 is wrong, the second's SHA-1: each check alone must refuse its file.
        let fixture = try DownloadFixture("archive-corrupt", handler: Self.archive(body) { name in
            name.hasPrefix("01") ? (String(repeating: "0", count: 32), sums.sha1) : (sums.md5, String(repeating: "f", count: 40))
        })
        fixture.settings.archiveURL = fixture.server.base
        let searcher = CatalogueSearcher(settings: fixture.settings)
        let songs = try await searcher.search(source: "archive", query: "netlabel tones", limit: 10)
        await searcher.shutdown()
        _ = try fixture.database.addCatalogueSongs(songs)

        let tasks = try await fixture.download(["archive:tones_ep/01 A Tone.mp3", "archive:tones_ep/02 B Tone.mp3"])
        let first = fixture.task(.audio, of: "archive:tones_ep/01 A Tone.mp3", in: tasks)
        let second = fixture.task(.audio, of: "archive:tones_ep/02 B Tone.mp3", in: tasks)
        XCTAssertEqual(first?.state, .failed)
        XCTAssertEqual(second?.state, .failed)
        XCTAssertTrue(first?.lastError?.hasPrefix("MD5 ") == true, first?.lastError ?? "")
        XCTAssertTrue(second?.lastError?.hasPrefix("SHA-1 ") == true, second?.lastError ?? "")
        XCTAssertEqual(fixture.songFiles(), [])
        XCTAssertEqual(fixture.partFiles(), [])
        XCTAssertEqual(try fixture.song("archive:tones_ep/01 A Tone.mp3").localPath, "")
    }

    func testJamendoTrackWithoutDownloadPermissionIsForOnlinePlayOnly() async throws {
        let body = try MP3Bodies.small()
        let fixture = try DownloadFixture("jamendo") { request, _ in
            if let lyrics = lyricsNotFound(request) { return lyrics }
            switch request.path {
            case "/v3.0/tracks/":
                guard request.query["client_id"] == "test-client", request.query["search"] == "calm piano" else {
                    return .json(200, ["headers": ["status": "failed", "code": 5, "error_message": "Invalid client id",
                                                   "warnings": "", "results_count": 0], "results": []])
                }
                func track(_ id: String, _ name: String, allowed: Bool) -> [String: Any] {
                    ["id": id, "name": name, "duration": 2, "artist_id": "7", "artist_name": "Pianist", "album_name": "Calm",
                     "album_id": "9", "position": Int(id)! % 10, "releasedate": "2012-05-06",
                     "audio": "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "")/stream/\(id).mp3",
                     "audiodownload": "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "")/download/\(id).mp3",
                     "audiodownload_allowed": allowed, "license_ccurl": "http://creativecommons.org/licenses/by-nd/3.0/",
                     "shareurl": "https://www.jamendo.com/track/\(id)"]
                }
                return .json(200, ["headers": ["status": "success", "code": 0, "error_message": "", "warnings": "",
                                               "results_count": 2],
                                   "results": [track("101", "Open", allowed: true), track("102", "Closed", allowed: false)]])
            case "/download/101.mp3", "/stream/102.mp3", "/download/102.mp3":
                return TestHTTPServer.file(body, request: request)
            default:
                return .text(404, "not found")
            }
        }
        fixture.settings.jamendoURL = fixture.server.base
        var noClient = fixture.settings
        noClient.jamendoClientID = ""
        let unconfigured = CatalogueSearcher(settings: noClient)
        do {
            _ = try await unconfigured.search(source: "jamendo", query: "calm piano", limit: 5)
            XCTFail("searched Jamendo without a client id")
        } catch let error as DownloadError {
            XCTAssertEqual(error, .catalogueSource)
            XCTAssertTrue(error.description.contains("jamendo_client_id"), error.description)
        }
        await unconfigured.shutdown()
        XCTAssertEqual(fixture.server.requests(path: "/v3.0/tracks/").count, 0)

        fixture.settings.jamendoClientID = "test-client"
        let searcher = CatalogueSearcher(settings: fixture.settings)
        let songs = try await searcher.search(source: "jamendo", query: "calm piano", limit: 5)
        await searcher.shutdown()
        XCTAssertEqual(songs.map(\.id), ["101", "102"])
        XCTAssertEqual(songs.map(\.downloadAllowed), [true, false])
        XCTAssertEqual(songs[0].audioURL, fixture.server.url("/download/101.mp3"))
        XCTAssertEqual(songs[1].audioURL, fixture.server.url("/stream/102.mp3"))
        XCTAssertEqual(songs[1].licence, "http://creativecommons.org/licenses/by-nd/3.0/")
        XCTAssertEqual(songs[1].year, 2012)

        _ = try fixture.database.addCatalogueSongs(songs)
        let tasks = try await fixture.download(["jamendo:101", "jamendo:102"])
        XCTAssertEqual(fixture.task(.audio, of: "jamendo:101", in: tasks)?.state, .done)
        let refused = fixture.task(.audio, of: "jamendo:102", in: tasks)
        XCTAssertEqual(refused?.state, .failed)
        XCTAssertTrue(refused?.lastError?.contains("online only") == true, refused?.lastError ?? "")
        XCTAssertEqual(fixture.server.requests(path: "/download/102.mp3").count, 0)
        XCTAssertEqual(fixture.songFiles(), ["songs/Pianist/Calm/01 Open.mp3"])
    }

    func testCCMixterNumbersWithLeadingZerosAreRead() async throws {
        // As ccMixter writes them: bare numbers such as 007 that strict JSON parsers refuse.
        let answer = #"""
        [{"upload_id": 061234, "upload_name": "Remix \"007\"", "user_name": "djsine", "user_real_name": "DJ Sine",
          "upload_date": "2014-02-03 10:00:00", "upload_num_scores": 007, "upload_score": -03,
          "license_url": "http://creativecommons.org/licenses/by/3.0/",
          "file_page_url": "http://ccmixter.org/files/djsine/61234",
          "files": [{"file_name": "djsine_-_Remix.zip", "download_url": "http://ccmixter.org/content/djsine/remix.zip",
                     "file_rawsize": 0100, "file_format_info": {"mime_type": "application/zip"}},
                    {"file_name": "djsine_-_Remix.mp3", "download_url": "http://ccmixter.org/content/djsine/remix.mp3",
                     "file_rawsize": 0031337, "file_format_info": {"mime_type": "audio/mpeg", "ps": "3:05", "sr": "44k"}}]}]
        """#
        XCTAssertThrowsError(try JSONSerialization.jsonObject(with: Data(answer.utf8)), "the sample must need lenient reading")
        let server = try TestHTTPServer { request, _ in
            request.path == "/api/query" && request.query["f"] == "json" && request.query["search"] == "remix"
                ? .text(200, answer, type: "application/json") : .text(404, "not found")
        }
        defer { server.stop() }
        var settings = DownloadSettings()
        settings.ccmixterURL = server.base
        let searcher = CatalogueSearcher(settings: settings)
        let songs = try await searcher.search(source: "ccmixter", query: "remix", limit: 5)
        await searcher.shutdown()
        XCTAssertEqual(songs.count, 1)
        XCTAssertEqual(songs.first?.id, "61234")
        XCTAssertEqual(songs.first?.title, "Remix \"007\"")
        XCTAssertEqual(songs.first?.singer, "DJ Sine")
        XCTAssertEqual(songs.first?.audioURL, "http://ccmixter.org/content/djsine/remix.mp3")
        XCTAssertEqual(songs.first?.size, 31337)
        XCTAssertEqual(songs.first?.durationMs, 185_000)
        XCTAssertEqual(songs.first?.year, 2014)
        XCTAssertEqual(songs.first?.licence, "http://creativecommons.org/licenses/by/3.0/")
        XCTAssertEqual(songs.first?.page, "http://ccmixter.org/files/djsine/61234")
    }

    func testASourceAnsweringHTMLIsOneLineAndChangesNothing() async throws {
        let server = try TestHTTPServer { _, _ in
            .text(200, "<!DOCTYPE html>\n<html><body>\n<h1>Down for maintenance</h1>\n</body></html>\n", type: "text/html")
        }
        defer { server.stop() }
        var settings = DownloadSettings()
        settings.archiveURL = server.base
        settings.ccmixterURL = server.base
        let searcher = CatalogueSearcher(settings: settings)
        for source in ["archive", "ccmixter"] {
            do {
                _ = try await searcher.search(source: source, query: "anything", limit: 5)
                XCTFail("\(source) took HTML for an answer")
            } catch let error as DownloadError {
                XCTAssertEqual(error, .catalogueSource)
                XCTAssertEqual(error.description, "\(source): 127.0.0.1 answered something other than JSON (text/html)")
            }
        }
        await searcher.shutdown()
    }

    func testASourceThatIsDownIsOneLine() async throws {
        let server = try TestHTTPServer { _, _ in .text(200, "[]") }
        let base = server.base
        server.stop()
        var settings = DownloadSettings()
        settings.archiveURL = base
        settings.retries = 5
        let searcher = CatalogueSearcher(settings: settings)
        do {
            _ = try await searcher.search(source: "archive", query: "anything", limit: 5)
            XCTFail("a closed port answered")
        } catch let error as DownloadError {
            XCTAssertEqual(error, .network)
            XCTAssertTrue(error.description.hasPrefix("archive: "), error.description)
            XCTAssertFalse(error.description.contains("\n"), error.description)
        }
        await searcher.shutdown()
    }

    func testUnknownSourceNamesTheKnownOnes() async throws {
        let searcher = CatalogueSearcher(settings: DownloadSettings())
        do {
            _ = try await searcher.search(source: "napster", query: "x", limit: 1)
            XCTFail("searched an unknown source")
        } catch let error as DownloadError {
            XCTAssertEqual(error.description, "no catalogue source \"napster\"; the sources are archive, jamendo, ccmixter")
        }
        await searcher.shutdown()
    }

    func testLastSearchIsRememberedPerSource() throws {
        let temporary = try TemporaryFolder("catalogue-last-search")
        let database = try LibraryFolder(url: temporary.url.appendingPathComponent("library")).open(seedingDemoFrom: nil)
        var song = CatalogueSong(source: "ccmixter", id: "5", title: "T", singer: "S", audioURL: "http://127.0.0.1/x.mp3")
        song.licence = "http://creativecommons.org/licenses/by/3.0/"
        try database.rememberCatalogueSearch([song])
        XCTAssertEqual(try database.lastCatalogueSearch(source: "ccmixter"), [song])
        XCTAssertEqual(try database.lastCatalogueSearch(source: "archive"), [])
        try database.rememberCatalogueSearch([])
        XCTAssertEqual(try database.lastCatalogueSearch(source: "ccmixter"), [])
    }

    func testConfigKeysSetTheSources() throws {
        let settings = try DownloadSettings.parse("""
            archive_url = http://127.0.0.1:8080/ia
            jamendo_url = http://127.0.0.1:8081
            jamendo_client_id = abc123
            ccmixter_url = https://mirror.example.org
            """)
        XCTAssertEqual(settings.archiveURL, "http://127.0.0.1:8080/ia")
        XCTAssertEqual(settings.jamendoURL, "http://127.0.0.1:8081")
        XCTAssertEqual(settings.jamendoClientID, "abc123")
        XCTAssertEqual(settings.ccmixterURL, "https://mirror.example.org")
        XCTAssertThrowsError(try DownloadSettings.parse("archive_url = ftp://archive.org"))
    }

    /// MD5 and SHA-1 as md5sum and sha1sum compute them.
    static func digests(_ data: Data) throws -> (md5: String, sha1: String) {
        let folder = try TemporaryFolder("catalogue-digest")
        let path = folder.path("body")
        try data.write(to: URL(fileURLWithPath: path))
        func run(_ tool: String) throws -> String {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = [tool, path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = pipe.fileHandleForReading.readDataToEndOfFile()
            process.waitUntilExit()
            return String(decoding: output, as: UTF8.self).split(separator: " ").first.map(String.init) ?? ""
        }
        return (try run("md5sum"), try run("sha1sum"))
    }
}
