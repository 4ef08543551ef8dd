import Foundation
import XCTest
import XZMPDCommands
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

    /// The same race at a rate no network allows: sessions of the host's command table on threads of
    /// their own, each deleting or giving a priority to its own entries of a long queue by id.
    func testInProcessClientsRacingOnALongQueueEachHitTheirOwnEntries() throws {
        let service = server.service
        var setup = ClientSession(peer: .network, passwordRequired: false)
        var list = "command_list_begin\n"
        for index in 0..<1_200 { list += "add album/\(index % 3 + 1).mp3\n" }
        for line in (list + "command_list_end").split(separator: "\n") { _ = setup.receive(line: String(line), service: service) }
        let ids = host.snapshot().entries.map { String($0.id) }
        XCTAssertEqual(ids.count, 1_200)
        let doomed = Array(ids[0..<600].shuffled()), kept = Array(ids[600...].shuffled())
        let failures = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { index in
            var session = ClientSession(peer: .network, passwordRequired: false)
            let mine = (index % 2 == 0 ? doomed : kept)[(index / 2 * 150)..<(index / 2 * 150 + 150)]
            for id in mine {
                let line = index % 2 == 0 ? "deleteid \(id)" : "prioid 9 \(id)"
                let answer = String(decoding: session.receive(line: line, service: service).bytes, as: UTF8.self)
                if answer != "OK\n" { failures.withLock { $0.append("\(line): \(answer)") } }
            }
        }
        XCTAssertEqual(failures.withLock { $0 }, [])
        let entries = host.snapshot().entries
        XCTAssertEqual(Set(entries.map { String($0.id) }), Set(kept), "each deleteid removed its own entry")
        XCTAssertEqual(entries.filter { $0.priority != 9 }.count, 0, "each prioid set its own entry's priority")
    }
}
