import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore

/// `crossfade`, `mixrampdb` and `mixrampdelay` against real MPD: the same requests, the same `status`
/// lines and ACKs, and `options` for idle clients.
final class CrossfadeComparisonTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var mpd: RealMPD?
    private var host: PlayerHost?
    private var server: ProtocolServer?

    override func tearDown() {
        mpd?.stop()
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    func testSettingsAndStatusAgreeWithMPD() throws {
        folder = try TemporaryFolder("crossfade-compare")
        let music = folder.url.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                              musicDirectory: music) { _ in }
        self.host = host
        let server = ProtocolServer(host: host, password: nil)
        self.server = server
        let port = try server.listen(host: "127.0.0.1", port: 0)
        let theirs = try real.connect(), ours = try MPDClient.connect(host: "127.0.0.1", port: port)

        let script = [
            "status", "crossfade 3", "status", "mixrampdb -17", "status", "mixrampdelay 2", "status",
            "mixrampdelay nan", "status", "mixrampdb -17.5", "mixrampdelay 1.5", "status", "mixrampdb 0.1", "status",
            "mixrampdelay -1", "status", "crossfade 0", "status",
            "crossfade 2.5", "crossfade -1", "crossfade abc", "crossfade 99999999999", "mixrampdb abc",
            "mixrampdelay x",
        ]
        for line in script {
            XCTAssertEqual(RealMPD.answer(ours, line), RealMPD.answer(theirs, line), line)
        }
        // The player keeps what was set as plain values, for a state file.
        let kept = host.snapshot().crossfade
        XCTAssertEqual(kept.seconds, 0)
        XCTAssertEqual(kept.mixRampDB, Double(Float(0.1)))
        XCTAssertEqual(kept.mixRampDelay, -1)

        // Each change wakes an idle client with `options`, as MPD.
        for (label, port) in [("mpd", real.port), ("ours", port)] {
            let watcher = try MPDClient.connect(host: "127.0.0.1", port: port)
            let setter = try MPDClient.connect(host: "127.0.0.1", port: port)
            for change in ["crossfade 4", "mixrampdb -12", "mixrampdelay 3", "mixrampdelay nan"] {
                try watcher.sendLine("idle options")
                _ = try setter.run(MPDRequest(name: String(change.split(separator: " ")[0]),
                                              arguments: [String(change.split(separator: " ")[1])]))
                let changed = try watcher.readResponse().map { "\($0.key): \($0.value)" }
                XCTAssertEqual(changed, ["changed: options"], "\(label): \(change)")
            }
        }
    }
}
