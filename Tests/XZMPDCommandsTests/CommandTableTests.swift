import XCTest
import XZCatalogue
import XZHostCore
@testable import XZMPDCommands
import XZProtocol
import XZTestSupport

/// The command table itself: one row per name, and rows that say they change nothing really change nothing.
final class CommandTableTests: XCTestCase {
    func testEveryNameHasOneRow() {
        var seen: [String: Int] = [:]
        for command in MPDCommands.allCommands { seen[command.name, default: 0] += 1 }
        XCTAssertEqual(seen.filter { $0.value > 1 }.keys.sorted(), [], "names given more than once")
        XCTAssertEqual(MPDCommands.table.count, MPDCommands.allCommands.count)
    }

    /// The protocol fuzzer starts from these: a row without samples would be fuzzed only by chance.
    func testEveryRowHasSampleArgumentsItAccepts() {
        for command in MPDCommands.allCommands {
            let samples = MPDCommands.sampleArguments[command.name] ?? []
            XCTAssertFalse(samples.isEmpty, "\(command.name) has no sample arguments")
            for arguments in samples {
                XCTAssertTrue(command.arguments.contains(arguments.count), "\(command.name) \(arguments): wrong count")
            }
        }
        XCTAssertEqual(Set(MPDCommands.sampleArguments.keys).subtracting(MPDCommands.table.keys), [],
                       "samples of no command")
    }

    func testOnlyConnectionCommandsRunBeforeThePassword() {
        let open = MPDCommands.allCommands.filter { $0.access == .beforePassword }.map(\.name).sorted()
        XCTAssertEqual(open, ["commands", "notcommands", "password", "ping"])
    }

    /// Each row's sample arguments, with the album host's names in place of the placeholders.
    private let samples: [String: [[String]]] = MPDCommands.sampleArguments.mapValues { rows in
        let names = ["{song}": "album/1.mp3", "{folder}": "album", "{catalogue}": "album/2.mp3", "{playlist}": "mix"]
        return rows.map { row in
            row.map { argument in names.reduce(argument) { $0.replacingOccurrences(of: $1.key, with: $1.value) } }
        }
    }

    func testReadOnlyCommandsChangeNothing() throws {
        let folder = try TemporaryFolder("command-table")
        let host = try makeAlbumHost(in: folder)
        defer { host.shutdown() }
        let service = MPDService(host: host)
        var setup = ClientSession(peer: .local, passwordRequired: false)
        for line in ["update", "add album", "save mix", "play 1", "pause 1", "sticker set song album/1.mp3 rating 4"] {
            let answer = String(decoding: setup.receive(line: line, service: service).bytes, as: UTF8.self)
            XCTAssertTrue(answer.hasSuffix("OK\n"), "\(line): \(answer)")
            host.updates.wait()
        }

        XCTAssertTrue(eventually { host.snapshot().state == .paused })
        // The player's events about the setup reach observers off its thread; let them pass first.
        Thread.sleep(forTimeInterval: 0.5)

        let readOnly = MPDCommands.allCommands.filter { $0.access != .changesState }.map(\.name)
        XCTAssertEqual(readOnly.filter { samples[$0] == nil }, [], "read-only commands with no sample arguments")

        struct State: Equatable {
            var player: String
            var catalogueVersion: Int64
            var playlists: [String]
            var sticker: String?
        }
        func state() throws -> State {
            let status = host.snapshot()
            let playlists = try host.playlists.list().map(\.name)
            return State(player: "\(status.state) \(status.currentId ?? -1) \(status.queueVersion) \(status.volume) "
                             + "\(status.repeats) \(status.single) \(status.shuffle) \(status.consume) \(host.isOutputEnabled)",
                         catalogueVersion: try host.database.catalogueVersion(),
                         playlists: try playlists.map { "\($0): \(try host.playlists.read($0).count)" },
                         sticker: try StickerValue.rating(of: "album/1.mp3", service: service))
        }
        let heard = Heard()
        let token = host.observeChanges { heard.add($0) }
        defer { host.stopObserving(token) }
        let before = try state()
        for name in readOnly {
            for arguments in samples[name] ?? [] {
                var session = ClientSession(peer: .local, passwordRequired: false)
                let line = ([name] + arguments.map(MPDRequest.quote)).joined(separator: " ")
                let answer = String(decoding: session.receive(line: line, service: service).bytes, as: UTF8.self)
                XCTAssertFalse(answer.hasPrefix("ACK [5@0]"), "\(line): \(answer)")
                XCTAssertEqual(try state(), before, "\(line) changed the host")
            }
        }
        XCTAssertEqual(heard.all, [], "observers heard of changes")
    }

    private final class Heard: @unchecked Sendable {
        private let lock = NSLock()
        private var changes: HostChanges = []
        func add(_ heard: HostChanges) { lock.withLock { changes.formUnion(heard) } }
        var all: HostChanges { lock.withLock { changes } }
    }
}

/// A sticker's value as a client reads it.
private enum StickerValue {
    static func rating(of uri: String, service: MPDService) throws -> String? {
        var session = ClientSession(peer: .local, passwordRequired: false)
        let answer = String(decoding: session.receive(line: "sticker get song \(uri) rating", service: service).bytes,
                            as: UTF8.self)
        return answer.split(separator: "\n").first { $0.hasPrefix("sticker: ") }.map(String.init)
    }
}
