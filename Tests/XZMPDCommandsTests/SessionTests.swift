import XCTest
import XZAudio
import XZCatalogue
import XZPlaybackValues
@testable import XZMPDCommands
import XZHostCore
import XZProtocol
import XZTestSupport

/// A real host (null output, a temporary library with generated MP3s) driven through `ClientSession`
/// as the transport would, without sockets.
final class SessionTests: XCTestCase {
    var folder: TemporaryFolder!
    var host: PlayerHost!
    var service: MPDService!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("protocol")
        host = try makeAlbumHost(in: folder, artist: "Band\nOK")
        service = MPDService(host: host)
    }

    override func tearDown() {
        host.shutdown()
        host = nil
        service = nil
        folder = nil
    }

    /// Sends `line` and returns the response text.
    @discardableResult
    func send(_ line: String, _ session: inout ClientSession, password: String? = nil) -> String {
        let service = password == nil ? service! : MPDService(host: host, password: password)
        return String(decoding: session.receive(line: line, service: service).bytes, as: UTF8.self)
    }

    func fields(_ text: String) -> [String: String] {
        var result: [String: String] = [:]
        for line in text.split(separator: "\n") {
            guard let colon = line.range(of: ": ") else { continue }
            result[String(line[..<colon.lowerBound])] = String(line[colon.upperBound...])
        }
        return result
    }

    func waitFor(_ what: String, timeout: TimeInterval = 5, _ condition: () -> Bool) {
        XCTAssertTrue(eventually(timeout: timeout, condition), what)
    }

    func testStatusFollowsEveryControlCommand() {
        var session = ClientSession(peer: .network, passwordRequired: false)
        XCTAssertEqual(fields(send("status", &session))["state"], "stop")
        XCTAssertTrue(send("add album", &session).hasSuffix("OK\n"))
        var status = fields(send("status", &session))
        XCTAssertEqual(status["playlistlength"], "3")
        XCTAssertNil(status["song"])
        send("play 1", &session)
        waitFor("playing") { fields(send("status", &session))["audio"] != nil }
        status = fields(send("status", &session))
        XCTAssertEqual(status["state"], "play")
        XCTAssertEqual(status["song"], "1")
        XCTAssertEqual(status["nextsong"], "2")
        XCTAssertEqual(status["audio"], "44100:16:2")
        XCTAssertEqual(status["duration"].map { Double($0)! }.map { ($0 * 10).rounded() / 10 }, 3.0)
        let current = fields(send("currentsong", &session))
        XCTAssertEqual(current["file"], "album/2.mp3")
        XCTAssertEqual(current["Title"], "Two")
        XCTAssertEqual(current["Artist"], "Band OK", "a newline in a tag cannot start a protocol line")
        XCTAssertEqual(current["Pos"], "1")

        send("pause 1", &session)
        XCTAssertEqual(fields(send("status", &session))["state"], "pause")
        send("seekcur 2", &session)
        waitFor("seeked") { fields(send("status", &session))["elapsed"]?.hasPrefix("2.") == true }
        send("next", &session)
        waitFor("next song") { fields(send("status", &session))["song"] == "2" }
        send("stop", &session)
        status = fields(send("status", &session))
        XCTAssertEqual(status["state"], "stop")
        XCTAssertEqual(status["song"], "2", "stop keeps the current song")
        send("setvol 40", &session)
        send("repeat 1", &session)
        send("random 1", &session)
        send("single oneshot", &session)
        send("consume 1", &session)
        status = fields(send("status", &session))
        XCTAssertEqual([status["volume"], status["repeat"], status["random"], status["single"], status["consume"]],
                       ["40", "1", "1", "oneshot", "1"])
        XCTAssertEqual(fields(send("getvol", &session))["volume"], "40")
    }

    /// `decoders` lists the real plug-ins; `replay_gain_mode` reaches the player and `replay_gain_status` reads it.
    func testDecodersAndReplayGainMode() {
        var session = ClientSession(peer: .network, passwordRequired: false)
        let decoders = send("decoders", &session)
        for line in ["plugin: mpg123", "plugin: flac", "plugin: vorbis", "plugin: opus", "plugin: ffmpeg",
                     "suffix: flac", "suffix: opus", "suffix: m4a", "mime_type: audio/flac"] {
            XCTAssertTrue(decoders.contains(line + "\n"), line)
        }
        XCTAssertEqual(fields(send("replay_gain_status", &session))["replay_gain_mode"], "off")
        XCTAssertEqual(send("replay_gain_mode album", &session), "OK\n")
        XCTAssertEqual(host.snapshot().replayGainMode, .album)
        XCTAssertEqual(fields(send("replay_gain_status", &session))["replay_gain_mode"], "album")
        XCTAssertEqual(send("replay_gain_mode loud", &session), "ACK [2@0] {replay_gain_mode} Unrecognized replay gain mode\n")
        XCTAssertEqual(host.snapshot().replayGainMode, .album)
    }

    func testQueueCommandsKeepIdsAndVersions() {
        var session = ClientSession(peer: .network, passwordRequired: false)
        let first = fields(send("addid album/1.mp3", &session))["Id"]
        let second = fields(send("addid album/2.mp3 0", &session))["Id"]
        XCTAssertNotNil(first)
        XCTAssertNotEqual(first, second)
        let version = Int(fields(send("status", &session))["playlist"]!)!
        send("add album/3.mp3", &session)
        let changes = send("plchangesposid \(version)", &session)
        XCTAssertEqual(changes, "cpos: 2\nId: \(Int(second!)! + 1)\nOK\n", "only the new entry changed")
        XCTAssertEqual(send("playlistinfo 0", &session).contains("file: album/2.mp3\n"), true)
        send("move 0 2", &session)
        XCTAssertEqual(fields(send("playlistinfo 2", &session))["Id"], second)
        send("swapid \(first!) \(second!)", &session)
        XCTAssertEqual(fields(send("playlistid \(first!)", &session))["Pos"], "2")
        send("prioid 200 \(first!)", &session)
        XCTAssertEqual(fields(send("playlistid \(first!)", &session))["Prio"], "200")
        XCTAssertTrue(send("playlistfind Title Three", &session).contains("Title: Three\n"))
        XCTAssertTrue(send("playlistsearch title thr", &session).contains("Title: Three\n"))
        send("delete 0:2", &session)
        XCTAssertEqual(fields(send("status", &session))["playlistlength"], "1")
        XCTAssertEqual(send("deleteid 999", &session), "ACK [50@0] {deleteid} No such song\n")
        XCTAssertEqual(send("delete 5", &session), "ACK [2@0] {delete} Bad song index\n")
        send("clear", &session)
        XCTAssertEqual(fields(send("status", &session))["playlistlength"], "0")
    }

    func testPathsStayInsideTheirFolders() {
        var network = ClientSession(peer: .network, passwordRequired: false)
        XCTAssertEqual(send("add ../library/library.sqlite", &network), "ACK [50@0] {add} Malformed URI\n")
        let absolute = folder.url.appendingPathComponent("music/album/1.mp3").path
        XCTAssertEqual(send("add \(absolute)", &network), "ACK [4@0] {add} Access denied\n")
        var local = ClientSession(peer: .local, passwordRequired: false)
        XCTAssertEqual(send("add \"\(absolute)\"", &local), "OK\n")
        XCTAssertEqual(send("add missing.mp3", &local), "ACK [50@0] {add} No such directory\n")
    }

    func testEveryCatalogueSongHasANameNetworkClientsMayAdd() throws {
        let elsewhere = folder.url.appendingPathComponent("elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: elsewhere.appendingPathComponent("far.mp3").path, seconds: 1, tags: .init(title: "Far"))
        _ = try host.database.importFolder(at: elsewhere)
        let feed = folder.url.appendingPathComponent("feed.jsonl")
        try #"{"title": "Online", "singer": "Somebody", "audio_url": "https://example.invalid/online.mp3"}"#
            .write(to: feed, atomically: true, encoding: .utf8)
        _ = try host.database.importFeed(at: feed)

        var local = ClientSession(peer: .local, passwordRequired: false)
        send("add \"\(elsewhere.path)/far.mp3\"", &local)
        let uri = try XCTUnwrap(fields(send("playlistinfo 0", &local))["file"])
        XCTAssertEqual(uri, "xzmusic-catalogue" + elsewhere.path + "/far.mp3")
        var network = ClientSession(peer: .network, passwordRequired: false)
        XCTAssertEqual(send("add \"\(uri)\"", &network), "OK\n")
        XCTAssertEqual(fields(send("playlistinfo 1", &network))["Title"], "Far")
        let uncatalogued = "xzmusic-catalogue" + folder.url.appendingPathComponent("library/library.sqlite").path
        XCTAssertEqual(send("add \"\(uncatalogued)\"", &network), "ACK [50@0] {add} No such song\n",
                       "the catalogue name reaches catalogue songs only")
        // This host has no downloader: URLs are refused.
        let online = send("add https://example.invalid/online.mp3", &network)
        XCTAssertEqual(online, "ACK [50@0] {add} Unsupported URI scheme: only files play on this host\n")
    }

    /// On a host that streams, a catalogue song that is not offline is queued by its URL as that song, and any
    /// other URL as itself.
    func testURLsAreQueuedOnAHostThatStreams() throws {
        let feed = folder.url.appendingPathComponent("feed.jsonl")
        try #"{"title": "Online", "singer": "Somebody", "audio_url": "https://example.invalid/online.mp3"}"#
            .write(to: feed, atomically: true, encoding: .utf8)
        _ = try host.database.importFeed(at: feed)
        let streaming = PlayerHost(folder: host.folder, database: host.database, output: .null, seed: 7,
                                   streams: { _ in throw PlaybackError.streamFailed("not in this test") }) { _ in }
        defer { streaming.shutdown() }
        var session = ClientSession(peer: .network, passwordRequired: false)
        func run(_ line: String) -> String {
            String(decoding: session.receive(line: line, service: MPDService(host: streaming)).bytes, as: UTF8.self)
        }
        XCTAssertEqual(run("add https://example.invalid/online.mp3"), "OK\n")
        XCTAssertEqual(run("add http://radio.example.invalid/live/stream.mp3"), "OK\n")
        let queue = streaming.snapshot().queue
        XCTAssertEqual(queue.map(\.path), ["https://example.invalid/online.mp3", "http://radio.example.invalid/live/stream.mp3"])
        XCTAssertEqual(queue.first?.title, "Online")
        XCTAssertNotNil(queue.first?.songKey, "the catalogue song, not a bare URL")
        XCTAssertEqual(queue.last?.title, "", "untitled until the stream says its title, as MPD lists it")
        XCTAssertEqual(streaming.uri(of: queue[0]), "https://example.invalid/online.mp3")
    }

    /// urlhandlers names what plays: file:// for a Unix-socket client (as MPD, which lists it only for local
    /// clients), http(s):// only on a host that streams.
    func testURLHandlersAreWhatPlays() {
        let streaming = PlayerHost(folder: host.folder, database: host.database, output: .null, seed: 7,
                                   streams: { _ in throw PlaybackError.streamFailed("not in this test") }) { _ in }
        defer { streaming.shutdown() }
        func handlers(_ host: PlayerHost, _ peer: ClientSession.Peer) -> String {
            var session = ClientSession(peer: peer, passwordRequired: false)
            return String(decoding: session.receive(line: "urlhandlers", service: MPDService(host: host)).bytes, as: UTF8.self)
        }
        XCTAssertEqual(handlers(streaming, .network), "handler: http://\nhandler: https://\nOK\n")
        XCTAssertEqual(handlers(streaming, .local), "handler: file://\nhandler: http://\nhandler: https://\nOK\n")
        XCTAssertEqual(handlers(host, .network), "OK\n")
        XCTAssertEqual(handlers(host, .local), "handler: file://\nOK\n")
    }

    /// On a host that streams, find and search list the catalogue songs that are not offline, named by their
    /// URL and after every file; adding them queues them to play as they download. Folder listings hold
    /// only files, and a host that cannot stream lists none of them.
    func testSongsNotOfflineAreFoundByTheirURLOnAHostThatStreams() throws {
        let feed = folder.url.appendingPathComponent("online.jsonl")
        try [#"{"source_id": "qt", "title": "晴天", "singer": "周杰伦", "album": "叶惠美", "audio_url": "https://example.invalid/qt.mp3"}"#,
             #"{"source_id": "none", "title": "晴天 (no audio)", "singer": "周杰伦"}"#]
            .joined(separator: "\n").write(to: feed, atomically: true, encoding: .utf8)
        _ = try host.database.importFeed(at: feed)
        let streaming = PlayerHost(folder: host.folder, database: host.database, output: .null, seed: 7,
                                   streams: { _ in throw PlaybackError.streamFailed("not in this test") }) { _ in }
        defer { streaming.shutdown() }
        func run(_ line: String, on target: PlayerHost) -> String {
            var session = ClientSession(peer: .network, passwordRequired: false)
            return String(decoding: session.receive(line: line, service: MPDService(host: target)).bytes, as: UTF8.self)
        }
        func files(_ line: String, on target: PlayerHost) -> [String] {
            run(line, on: target).split(separator: "\n").filter { $0.hasPrefix("file: ") }.map { String($0.dropFirst(6)) }
        }
        XCTAssertEqual(files("search any zjl", on: streaming), ["https://example.invalid/qt.mp3"], "pinyin initials, by URL")
        XCTAssertEqual(files("find \"(file == 'https://example.invalid/qt.mp3')\"", on: streaming),
                       ["https://example.invalid/qt.mp3"])
        XCTAssertTrue(run("find title 晴天", on: streaming).contains("Title: 晴天\nAlbum: 叶惠美\n"))
        XCTAssertEqual(fields(run("count artist 周杰伦", on: streaming))["songs"], "1", "the song with no audio is not listed")
        XCTAssertEqual(files("search any zjl", on: host), [], "a host that cannot stream lists files only")
        XCTAssertFalse(run("lsinfo", on: streaming).contains("https"), "no folder is made of a URL")

        XCTAssertEqual(run("searchadd any zjl", on: streaming), "OK\n")
        let queued = streaming.snapshot().queue
        XCTAssertEqual(queued.map(\.path), ["https://example.invalid/qt.mp3"])
        XCTAssertNotNil(queued.first?.songKey, "the catalogue song")
    }

    /// A stream waiting for its bytes is `play` to MPD clients, with one extra line our own commands read.
    func testBufferingIsPlayWithAnExtraLine() throws {
        let waiting = GrowingFile(path: folder.url.appendingPathComponent("never.part").path)
        let streaming = PlayerHost(folder: host.folder, database: host.database, output: .null, seed: 7,
                                   streams: { _ in waiting }) { _ in }
        defer { streaming.shutdown() }
        var session = ClientSession(peer: .network, passwordRequired: false)
        func run(_ line: String) -> String {
            String(decoding: session.receive(line: line, service: MPDService(host: streaming)).bytes, as: UTF8.self)
        }
        XCTAssertEqual(run("add http://radio.example.invalid/live.mp3"), "OK\n")
        XCTAssertEqual(run("play 0"), "OK\n")
        let deadline = Date().addingTimeInterval(5)
        while !streaming.snapshot().isBuffering, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        let status = fields(run("status"))
        XCTAssertEqual(status["state"], "play")
        XCTAssertEqual(status["buffering"], "1")
        XCTAssertEqual(streaming.snapshot().stateText, "buffering")
        waiting.fail("gone")
    }

    /// A list's `clear` and the adds after it are one change of the queue; the adds have the whole queue's
    /// room, and a refused add leaves the queue cleared and holding what fitted, as MPD's.
    func testAListsClearAndItsAddsAreOneChange() {
        host.maxQueueLength = 2
        var session = ClientSession(peer: .network, passwordRequired: false)
        for line in ["command_list_begin", "add album/1.mp3", "add album/2.mp3", "command_list_end"] { send(line, &session) }
        let version = Int(fields(send("status", &session))["playlist"] ?? "") ?? -1
        for line in ["command_list_begin", "clear", "add album/3.mp3", "add album/1.mp3"] { send(line, &session) }
        XCTAssertEqual(send("command_list_end", &session), "OK\n")
        let titles = { (text: String) in text.split(separator: "\n").filter { $0.hasPrefix("Title: ") } }
        XCTAssertEqual(titles(send("playlistinfo", &session)), ["Title: Three", "Title: One"])
        XCTAssertEqual(Int(fields(send("status", &session))["playlist"] ?? ""), version + 2, "one clear, one insert")

        for line in ["command_list_begin", "clear", "add album/2.mp3", "add album/3.mp3", "add album/1.mp3"] { send(line, &session) }
        XCTAssertEqual(send("command_list_end", &session), "ACK [51@3] {add} Playlist is too large\n")
        XCTAssertEqual(titles(send("playlistinfo", &session)), ["Title: Two", "Title: Three"])

        for line in ["command_list_begin", "clear", "status"] { send(line, &session) }
        XCTAssertEqual(fields(send("command_list_end", &session))["playlistlength"], "0", "cleared before the next command")
    }

    func testCommandListsStopAtTheFirstError() {
        var session = ClientSession(peer: .network, passwordRequired: false)
        for line in ["command_list_ok_begin", "add album/1.mp3", "ping", "setvol 300", "add album/2.mp3"] {
            XCTAssertEqual(send(line, &session), "")
        }
        XCTAssertEqual(send("command_list_end", &session),
                       "list_OK\nlist_OK\nACK [2@2] {setvol} Number too large: 300\n")
        XCTAssertEqual(fields(send("status", &session))["playlistlength"], "1", "commands after the error did not run")
        send("command_list_begin", &session)
        send("add album/2.mp3", &session)
        XCTAssertEqual(send("command_list_end", &session), "OK\n")
        XCTAssertEqual(send("command_list_end", &session), "ACK [2@0] {command_list_end} Not in command list\n")
    }

    func testUnknownCommandsAndBadArguments() {
        var session = ClientSession(peer: .network, passwordRequired: false)
        XCTAssertEqual(send("frobnicate", &session), "ACK [5@0] {} unknown command \"frobnicate\"\n")
        XCTAssertEqual(send("setvol loud", &session), "ACK [2@0] {setvol} Integer expected: loud\n")
        XCTAssertEqual(send("repeat 2", &session), "ACK [2@0] {repeat} Boolean (0/1) expected: 2\n")
        XCTAssertEqual(send("play 1 2", &session), "ACK [2@0] {play} too many arguments for \"play\"\n")
        XCTAssertEqual(send("add \"unterminated", &session), "ACK [5@0] {} Missing closing '\"'\n")
        XCTAssertEqual(send("ping", &session), "OK\n", "the session goes on after errors")
    }

    func testPasswordGuardsEverythingButTheGreetingCommands() {
        var session = ClientSession(peer: .network, passwordRequired: true)
        XCTAssertEqual(send("status", &session, password: "s3cret"), "ACK [4@0] {status} you don't have permission for \"status\"\n")
        XCTAssertEqual(send("ping", &session, password: "s3cret"), "OK\n")
        XCTAssertTrue(send("commands", &session, password: "s3cret").contains("command: password\n"))
        XCTAssertFalse(send("commands", &session, password: "s3cret").contains("command: status\n"))
        XCTAssertEqual(send("password wrong", &session, password: "s3cret"), "ACK [3@0] {password} incorrect password\n")
        XCTAssertEqual(send("password s3cret", &session, password: "s3cret"), "OK\n")
        XCTAssertTrue(send("status", &session, password: "s3cret").hasSuffix("OK\n"))
    }

    /// Wrong passwords are counted per connection and per client address: a new connection from an
    /// address that guessed waits longer still, another address does not, and the right password is
    /// answered as late as the address's last guess was, then clears its address's count. The Unix socket's clients
    /// are one address.
    func testWrongPasswordsAreCountedPerAddressOverItsConnections() {
        let service = MPDService(host: host, password: "s3cret")
        func answer(_ line: String, _ session: inout ClientSession) -> ClientSession.Output {
            session.receive(line: line, service: service)
        }
        var guesser = ClientSession(peer: .network, passwordRequired: true, address: "192.0.2.7")
        XCTAssertEqual((1...3).map { _ in answer("password wrong", &guesser).delay },
                       [.milliseconds(250), .milliseconds(500), .seconds(1)])
        var again = ClientSession(peer: .network, passwordRequired: true, address: "192.0.2.7")
        let fourth = answer("password wrong", &again)
        XCTAssertEqual(fourth.delay, .seconds(2), "the address's fourth guess, on its connection's first")
        XCTAssertFalse(fourth.close, "a connection is dropped after its own guesses")
        var other = ClientSession(peer: .network, passwordRequired: true, address: "192.0.2.8")
        XCTAssertEqual(answer("password wrong", &other).delay, .milliseconds(250))

        var right = ClientSession(peer: .network, passwordRequired: true, address: "192.0.2.7")
        XCTAssertEqual(answer("password s3cret", &right), ClientSession.Output(bytes: Array("OK\n".utf8), delay: .seconds(2)),
                       "taken, and answered as late as the address's last guess")
        XCTAssertEqual(String(decoding: answer("status", &right).bytes, as: UTF8.self).suffix(3), "OK\n")
        XCTAssertEqual(service.credentials.delay(for: "192.0.2.7"), .zero, "the right password clears the count")
        var afterwards = ClientSession(peer: .network, passwordRequired: true, address: "192.0.2.7")
        XCTAssertEqual(answer("password wrong", &afterwards).delay, .milliseconds(250))
        XCTAssertEqual(answer("password s3cret", &afterwards).delay, .milliseconds(250))

        var local = ClientSession(peer: .local, passwordRequired: true, address: "192.0.2.9")
        XCTAssertEqual(local.address, ClientSession(peer: .local, passwordRequired: true).address)
        _ = answer("password wrong", &local)
        var otherLocal = ClientSession(peer: .local, passwordRequired: true)
        XCTAssertEqual(answer("password wrong", &otherLocal).delay, .milliseconds(500), "one local address")
    }

    func testIdleWakesForChangesFromAnotherClient() {
        var watcher = ClientSession(peer: .network, passwordRequired: false)
        var actor = ClientSession(peer: .network, passwordRequired: false)
        final class Inbox: @unchecked Sendable {
            let lock = NSLock()
            var items: [HostChanges] = []
        }
        let inbox = Inbox()
        let token = host.observeChanges { changes in
            inbox.lock.lock(); inbox.items.append(changes); inbox.lock.unlock()
        }
        defer { host.stopObserving(token) }
        XCTAssertEqual(send("idle playlist mixer", &watcher), "", "nothing pending: the client waits")
        func drain() -> HostChanges {
            inbox.lock.lock()
            defer { inbox.items = []; inbox.lock.unlock() }
            return inbox.items.reduce(into: HostChanges()) { $0.formUnion($1) }
        }
        // The player tells what changed off its audio thread, a moment after the command.
        func heardSoon() -> HostChanges {
            var heard = HostChanges()
            _ = eventually { heard.formUnion(drain()); return !heard.isEmpty }
            return heard
        }
        send("setvol 10", &actor)
        let heard = heardSoon()
        XCTAssertEqual(heard, .volume)
        XCTAssertEqual(watcher.notify(heard).map { String(decoding: $0, as: UTF8.self) }, "changed: mixer\nOK\n")
        XCTAssertFalse(watcher.isIdle)
        send("random 1", &actor)
        XCTAssertNil(watcher.notify(heardSoon()))
        XCTAssertEqual(send("idle", &watcher), "changed: options\nOK\n", "a change while not idle is kept for the next idle")
        XCTAssertEqual(send("idle player", &watcher), "")
        XCTAssertEqual(send("noidle", &watcher), "OK\n")
        XCTAssertEqual(send("noidle", &watcher), "", "noidle outside idle has no answer")
        XCTAssertEqual(send("idle bogus", &watcher), "ACK [2@0] {idle} Unrecognized idle event: bogus\n")
    }

    /// As MPD's Client::IdleNotify: an idle that returns drops the changes it did not report.
    func testIdleDropsTheChangesItDidNotReport() {
        var watcher = ClientSession(peer: .network, passwordRequired: false)
        XCTAssertEqual(send("idle playlist", &watcher), "")
        XCTAssertNil(watcher.notify(.volume), "mixer is not waited for")
        XCTAssertEqual(watcher.notify(.queue).map { String(decoding: $0, as: UTF8.self) }, "changed: playlist\nOK\n")
        XCTAssertEqual(send("idle", &watcher), "", "the mixer change went with the idle that returned")
        XCTAssertEqual(send("noidle", &watcher), "OK\n")
    }
}
