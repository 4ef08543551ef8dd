import Foundation
import XCTest
import XZSystem
@testable import XZServer
import XZTestSupport

/// State changes of different clients run one at a time, as on MPD's one thread: many real clients at
/// once doing commands that read the queue and act on what they read lose nothing and hit nothing else.
final class StateChangeOrderTests: MusicFolderHostTestCase {
    /// Runs `work` on its own connection for each of `count` clients at once; returns the ACKs they got.
    private func concurrently(_ count: Int, _ work: @escaping @Sendable (Int, MPDClient) throws -> Void) throws -> [String] {
        let port = self.port
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: count) { index in
            do {
                let client = try MPDClient.connect(host: "127.0.0.1", port: port)
                defer { client.disconnect() }
                try work(index, client)
            } catch {
                failures.withLock { $0.append("\(error)") }
            }
        }
        return failures.withLock { $0 }
    }

    func testDeletesPrioritiesMovesAndVolumeStepsOfManyClientsAllLand() throws {
        let setup = try client()
        _ = try setup.run("update")
        host.updates.wait()
        _ = try setup.run("setvol", "0")
        // 60 entries: 30 to delete, 30 to give a priority, from different clients at once.
        var ids: [String] = []
        for index in 0..<60 { ids.append(try XCTUnwrap(value(try setup.run("addid", "album/\(index % 3 + 1).mp3"), "Id"))) }
        let doomed = Array(ids[0..<30].shuffled()), kept = Array(ids[30..<60].shuffled())
        let failures = try concurrently(9) { index, client in
            switch index % 3 {
            case 0:
                for id in doomed[(index / 3 * 10)..<(index / 3 * 10 + 10)] { _ = try client.run("deleteid", id) }
            case 1:
                for id in kept[(index / 3 * 10)..<(index / 3 * 10 + 10)] {
                    _ = try client.run("prioid", "7", id)
                    // Moved to the front and back again: each move names the entry by its id.
                    _ = try client.run("moveid", id, "0")
                    _ = try client.run("swapid", id, id)
                }
            default:
                for _ in 0..<10 { _ = try client.run("volume", "+1") }
            }
        }
        XCTAssertEqual(failures, [])
        let queue = try setup.run("playlistinfo")
        let left = queue.filter { $0.key == "Id" }.map(\.value)
        XCTAssertEqual(Set(left), Set(kept), "each deleteid removed its own entry")
        XCTAssertEqual(left.count, 30)
        XCTAssertEqual(queue.filter { $0.key == "Prio" }.map(\.value), Array(repeating: "7", count: 30),
                       "each prioid set its own entry's priority")
        XCTAssertEqual(value(try setup.run("status"), "volume"), "30", "no volume step lost")
    }
}
