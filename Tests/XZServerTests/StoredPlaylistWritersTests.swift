import Foundation
import XCTest
import XZCatalogue
import XZProtocol
import XZServer
import XZSystem
import XZTestSupport

/// Many writers of one stored playlist at once — MPD clients of the host over TCP and `xzmusic playlist
/// add` processes beside it — and every acknowledged song is in the file afterwards.
final class StoredPlaylistWritersTests: MusicFolderHostTestCase {
    func testEveryAcknowledgedAddOfEveryClientAndProgramLands() throws {
        let clients = 4, addsPerClient = 200, programs = 2, runsPerProgram = 8
        let binary = TestPaths.products.appendingPathComponent("xzmusic").path
        var environment = ProcessInfo.processInfo.environment
        environment["XZMUSIC_HOME"] = library.url.path
        environment["XDG_RUNTIME_DIR"] = folder.path("run")
        environment["XDG_CONFIG_HOME"] = folder.path("config")
        environment["NO_COLOR"] = "1"
        let song = music.appendingPathComponent("album/2.mp3").path

        let acknowledged = Mutex(0)
        let failures = Mutex<[String]>([])
        let port = port, programEnvironment = environment
        DispatchQueue.concurrentPerform(iterations: clients + programs) { worker in
            if worker < clients {
                guard let client = try? MPDClient.connect(host: "127.0.0.1", port: port) else {
                    return failures.withLock { $0.append("client \(worker) cannot connect") }
                }
                for _ in 0..<addsPerClient {
                    do {
                        _ = try client.run("playlistadd", "shared", "album/1.mp3")
                        acknowledged.withLock { $0 += 1 }
                    } catch {
                        failures.withLock { $0.append("client \(worker): \(error)") }
                    }
                }
            } else {
                for _ in 0..<runsPerProgram {
                    do {
                        let result = try TestProcess.run(binary, ["playlist", "add", "shared", song], environment: programEnvironment)
                        if result.status == 0 {
                            acknowledged.withLock { $0 += 1 }
                        } else {
                            failures.withLock { $0.append("xzmusic: \(result.stderr)") }
                        }
                    } catch {
                        failures.withLock { $0.append("xzmusic: \(error)") }
                    }
                }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let total = clients * addsPerClient + programs * runsPerProgram
        XCTAssertEqual(acknowledged.withLock { $0 }, total)

        // The file itself, and the host's answer, hold every song: the clients' and the programs'.
        let entries = M3U.parse(try Data(contentsOf: library.url.appendingPathComponent("playlists/shared.m3u")))
        XCTAssertEqual(entries.count, total)
        XCTAssertEqual(entries.filter { $0.location == "album/1.mp3" }.count, clients * addsPerClient)
        XCTAssertEqual(entries.filter { $0.location.hasSuffix("album/2.mp3") }.count, programs * runsPerProgram)
        XCTAssertEqual(try client().run("listplaylist", "shared").count, total)

        // No temporary file is left beside it.
        let left = try FileManager.default.contentsOfDirectory(atPath: library.url.appendingPathComponent("playlists").path)
        XCTAssertEqual(left, ["shared.m3u"])
    }
}
