import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands
#if canImport(Glibc)
import Glibc
#endif

/// A real host on a temporary library, on TCP port 0, whose music folder holds album/1.mp3 to
/// album/3.mp3 ("Song N" by "Artist", 3 s); `mpd` is stopped with it when a test starts real MPD.
class MusicFolderHostTestCase: XCTestCase {
    var folder: TemporaryFolder!
    var music: URL!
    var library: LibraryFolder!
    var host: PlayerHost!
    var server: ProtocolServer!
    var port = 0
    var mpd: RealMPD?

    override func setUpWithError() throws {
        folder = try TemporaryFolder("music-host")
        music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music.appendingPathComponent("album"), withIntermediateDirectories: true)
        for index in 1...3 {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index).mp3").path, seconds: 3,
                                      tags: .init(title: "Song \(index)", artist: "Artist", album: "Album", track: index))
        }
        library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        // As a host started on the folder scans it first (MPD's database), before any client adds from it.
        host.scanMusicFolderIfUnscanned()
        host.updates.wait()
        server = ProtocolServer(host: host, password: nil)
        port = try server.listen(host: "127.0.0.1", port: 0)
    }

    override func tearDown() {
        mpd?.stop()
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    func client() throws -> MPDClient { try MPDClient.connect(host: "127.0.0.1", port: port) }

    func value(_ pairs: [(key: String, value: String)], _ key: String) -> String? {
        pairs.first { $0.key == key }?.value
    }

    /// The host served again with other limits (and a password when given).
    func restartServer(limits: ServerLimits, password: String? = nil) throws {
        server.shutdown()
        server = ProtocolServer(host: host, password: password, limits: limits)
        port = try server.listen(host: "127.0.0.1", port: 0)
    }

    /// Occupies every thread of the heavy lane until the returned gate is opened (`release`), each
    /// holding a library reader as a search stuck in SQLite does.
    func occupyHeavyLane() -> DispatchSemaphore {
        let gate = DispatchSemaphore(value: 0)
        let started = DispatchSemaphore(value: 0)
        let database = host.database
        for _ in 0..<ProtocolServer.heavyThreads {
            server.heavyPool.submit { _ in
                _ = try? database.pool.read { _ in
                    started.signal()
                    gate.wait()
                }
            }
        }
        for _ in 0..<ProtocolServer.heavyThreads { started.wait() }
        return gate
    }

    func release(_ gate: DispatchSemaphore) {
        for _ in 0..<ProtocolServer.heavyThreads { gate.signal() }
    }

    /// A raw TCP connection to the host (or to another server's `port`), for bytes no `MPDClient` would
    /// send; closed by the caller.
    func rawConnection(port target: Int? = nil) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(target ?? port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, connected == 0 else { throw ServerError.connectionClosed }
        return fd
    }

    /// Everything the host sends on `fd` until it closes the connection (nil: still open after `timeout`).
    func readUntilClosed(_ fd: Int32, timeout: TimeInterval = 10) -> String? {
        var timeout = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count == 0 { return String(decoding: received, as: UTF8.self) }
            // ECONNRESET: closed with our bytes unread, which is closed too.
            if count < 0 { return errno == ECONNRESET ? String(decoding: received, as: UTF8.self) : nil }
            received += chunk[..<count]
        }
    }

    /// Writes all of `text` to `fd` (false when the host closed first).
    @discardableResult
    func write(_ text: String, to fd: Int32) -> Bool {
        let bytes = Array(text.utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { return false }
            sent += count
        }
        return true
    }

    /// Sends each line to real MPD (on the same music folder, its own playlist folder) and to this host:
    /// the answers must be the same.
    func compareWithRealMPD(_ script: [String], mpdConfig: String = "", file: StaticString = #filePath,
                            line: UInt = #line) throws {
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"), extraConfig: mpdConfig)
        mpd = real
        let theirs = try real.connect()
        let ours = try client()
        for request in script {
            XCTAssertEqual(RealMPD.answer(ours, request), RealMPD.answer(theirs, request), request, file: file, line: line)
        }
    }
}
