import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands

/// MPD's player rules and its less common commands, run as the same scripted session on real MPD and on
/// this host over the same folder, while the songs play (3 s each, 6 s for long/6.mp3): the answers must
/// be the same, less what only one side can know (times, ids, versions, formats).
final class PlayerRulesComparisonTests: MusicFolderHostTestCase {
    private var real: RealMPD!

    /// Adds long/6.mp3 and the `mixed` folder, then starts real MPD and updates this host's catalogue.
    private func startBoth(mixedNames: [String] = []) throws -> (ours: MPDClient, theirs: MPDClient) {
        try FileManager.default.createDirectory(at: music.appendingPathComponent("long"), withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: music.appendingPathComponent("long/6.mp3").path, seconds: 6,
                                  tags: .init(title: "Long", artist: "Artist", album: "Long", track: 1))
        for name in mixedNames {
            let url = music.appendingPathComponent("mixed/\(name)")
            try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: music.appendingPathComponent("album/1.mp3"), to: url)
        }
        real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        return (ours, try real.connect())
    }

    /// The answer's lines less those only one server can know; the ACK as one line.
    private func answer(_ client: MPDClient, _ line: String, ids: [String]) -> (lines: [String], id: String?) {
        var request = line
        // "$N" stands for the Id the Nth addid of the script got on this server.
        for (index, id) in ids.enumerated().reversed() { request = request.replacingOccurrences(of: "$\(index)", with: id) }
        do {
            try client.sendLine(request)
            let pairs = try client.readResponse()
            let hidden: Set<String> = ["Format", "duration", "bitrate", "audio", "elapsed", "time", "Last-Modified",
                                       "playlist", "uptime", "playtime", "db_update", "Id", "songid", "nextsongid"]
            return (pairs.filter { !hidden.contains($0.key) }.map { "\($0.key): \($0.value)" },
                    line.hasPrefix("addid") ? pairs.first { $0.key == "Id" }?.value : nil)
        } catch let error as MPDError {
            return (["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"], nil)
        } catch {
            return (["\(error)"], nil)
        }
    }

    /// Sends each line to both; "sleep S" waits S seconds while both play.
    private func compare(_ script: [String], _ ours: MPDClient, _ theirs: MPDClient,
                         file: StaticString = #filePath, line: UInt = #line) {
        var ourIds: [String] = [], theirIds: [String] = []
        for request in script {
            if request.hasPrefix("sleep ") {
                Thread.sleep(forTimeInterval: Double(request.dropFirst(6)) ?? 0)
                continue
            }
            let (ourLines, ourId) = answer(ours, request, ids: ourIds)
            let (theirLines, theirId) = answer(theirs, request, ids: theirIds)
            XCTAssertEqual(ourLines, theirLines, request, file: file, line: line)
            if let ourId, let theirId {
                ourIds.append(ourId)
                theirIds.append(theirId)
            }
        }
    }

    func testNextPreviousAndRelativePositionsAgree() throws {
        let (ours, theirs) = try startBoth()
        compare([
            "status", "next", "previous", "addid album/1.mp3 +0", "add album/1.mp3 -0", "addid album/1.mp3 0",
            "add long/6.mp3", "status",
            // More than 3 s into a song, previous still goes to the song before.
            "play 1", "seek 1 4", "sleep 0.3", "previous", "sleep 0.3", "status", "currentsong",
            // At the first song it starts that song again.
            "previous", "sleep 0.3", "status",
            "addid album/2.mp3 +0", "playlist", "stop", "next", "previous", "status",
        ], ours, theirs)
    }

    func testSingleModeStopsAtTheNextSongPaused() throws {
        let (ours, theirs) = try startBoth()
        compare([
            "add album", "single 1", "play 0", "sleep 3.7", "status", "currentsong",
            // Oneshot after the last song: stopped, no current song, single off again.
            "single oneshot", "play 2", "sleep 3.7", "status", "currentsong",
            // With consume, the finished song leaves the queue and the next waits paused.
            "single 1", "consume 1", "play 0", "sleep 3.7", "status", "playlist",
            // Single with repeat plays the song again.
            "consume 0", "repeat 1", "play 1", "sleep 3.7", "status",
        ], ours, theirs)
    }

    func testConsumeRemovesOnlyWhatFinishedOrWasSkipped() throws {
        let (ours, theirs) = try startBoth()
        compare([
            "add album", "consume 1", "play 0", "play 2", "playlist", "previous", "playlist",
            "stop", "play 0", "stop", "playlist",
            "play 1", "sleep 3.7", "playlist", "status",
            "next", "playlist", "status",
        ], ours, theirs)
    }

    func testIdleDropsWhatItDidNotReport() throws {
        let (ours, theirs) = try startBoth()
        for client in [ours, theirs] {
            for line in ["setvol 50", "repeat 1", "add album/1.mp3"] {
                try client.sendLine(line)
                _ = try client.readResponse()
            }
        }
        compare(["idle mixer"], ours, theirs)
        // The options and queue changes went with that idle: a new one waits until noidle.
        for client in [ours, theirs] { try client.sendLine("idle options playlist") }
        Thread.sleep(forTimeInterval: 0.3)
        compare(["noidle"], ours, theirs)
    }

    /// A folder's songs and subfolders as MPD orders them, ICU's root collation: Latin without regard to
    /// case or accents (punctuation before digits before letters), then Hangul, kana, Han.
    func testFolderOrderFollowsMPDsCollation() throws {
        let names = ["별", "あ", "漢", "b", "A", "a", "ア", "가", "z", "中", "Émile", "_x", "01", "a b", "a-b", "a_b"]
        let (ours, theirs) = try startBoth(mixedNames: names.map { "\($0).mp3" } + names.map { "d\($0)/x.mp3" })
        compare(["lsinfo mixed", "listall mixed", "add mixed", "playlist", "find base mixed", "listallinfo mixed"],
                ours, theirs)
    }

    func testSavingAnEmptyQueueWritesAnEmptyPlaylist() throws {
        let (ours, theirs) = try startBoth()
        compare(["save empty", "listplaylist empty", "listplaylistinfo empty", "save empty", "load empty", "status",
                 "rm empty"], ours, theirs)
    }

    func testURLHandlersAreSchemesMPDAlsoLists() throws {
        let (ours, theirs) = try startBoth()
        // This host has no stream opener: over TCP nothing it plays is named by a URL scheme.
        let handlers = try ours.run("urlhandlers").map(\.value)
        XCTAssertEqual(handlers, [], "file:// only over the local socket")
        let theirHandlers = Set(try theirs.run("urlhandlers").map(\.value))
        XCTAssertTrue(Set(handlers).isSubset(of: theirHandlers), "\(theirHandlers)")
    }

    func testMountsOutputAttributesAndTagEditsAnswerAsMPD() throws {
        let (ours, theirs) = try startBoth()
        compare([
            "listmounts", "mount foo /tmp", "mount foo/bar /tmp", "mount \"\" /tmp", "unmount foo", "unmount \"\"",
            "unmount foo/bar",
            "outputset 0 foo bar", "outputset 1 foo bar", "outputset 0 dop 1", "outputset x a b", "outputset 0 a",
            "addid album/1.mp3", "addtagid $0 artist Foo", "addtagid $0 frob Foo", "addtagid 999 artist Foo",
            "cleartagid $0", "cleartagid $0 artist", "cleartagid 999", "cleartagid $0 frob",
            "addtagid abc artist x", "cleartagid 999 frob",
        ], ours, theirs)
    }

    /// MPD edits tags of remote songs only: every file, the music folder's or one a local client names by its
    /// path or `file://` URI, answers `Cannot edit tags of local file` (permission, ACK 4), never "No such song".
    func testTagEditsOfLocalFilesAnswerAsMPDOverTheLocalSocket() throws {
        let elsewhere = folder.path("elsewhere.mp3")
        try FileManager.default.copyItem(atPath: music.appendingPathComponent("album/2.mp3").path, toPath: elsewhere)
        let theirSocket = folder.path("mpd.sock"), ourSocket = folder.path("host.sock")
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"),
                               extraConfig: "bind_to_address \"\(theirSocket)\"")
        mpd = real
        try server.listen(unixPath: ourSocket)
        let ours = try XCTUnwrap(MPDClient.connect(unixPath: ourSocket))
        let theirs = try XCTUnwrap(MPDClient.connect(unixPath: theirSocket))
        compare([
            "addid album/1.mp3", "addid \"\(elsewhere)\"", "addid \"file://\(elsewhere)\"",
            "addtagid $0 artist Foo", "addtagid $1 artist Foo", "addtagid $2 title Foo",
            "cleartagid $0", "cleartagid $1", "cleartagid $2 artist", "play 1", "addtagid $1 artist Foo", "cleartagid $1",
            "playlistid $1",
        ], ours, theirs)
    }

    func testSongRangesAgreeWithMPD() throws {
        let (ours, theirs) = try startBoth()
        compare([
            "addid album/1.mp3", "addid album/2.mp3", "addid album/3.mp3",
            "rangeid $0 0.5:1.5", "rangeid $1 1:", "rangeid $2 :1", "playlistinfo", "rangeid $2 :", "playlistid $2",
            "rangeid 999 0:1", "rangeid $0 abc", "rangeid $0 2:1", "rangeid $0 1.5:1.5", "rangeid $0 -1:1",
            "rangeid $0 0.5", "rangeid $0 9:", "rangeid abc 0:1", "rangeid $1 0.5:9", "playlistid $1",
            // The part plays and ends where it says: 1 s of the first song, then the second.
            "rangeid $0 1:2", "play 0", "rangeid $0 0:1", "sleep 1.6", "status", "currentsong",
        ], ours, theirs)
    }

    /// In a part of a song, status times and seeks count from the part's start, on both.
    func testTimesInASongPartCountFromItsStart() throws {
        let (ours, theirs) = try startBoth()
        for client in [ours, theirs] {
            let id = try XCTUnwrap(try client.run("addid", "album/3.mp3").first { $0.key == "Id" }?.value)
            for (name, arguments) in [("rangeid", [id, "0.5:1.8"]), ("play", ["0"]), ("pause", ["1"]), ("seekcur", ["0.2"])] {
                _ = try client.run(MPDRequest(name: name, arguments: arguments))
            }
        }
        Thread.sleep(forTimeInterval: 0.3)
        for client in [ours, theirs] {
            let status = Dictionary(try client.run("status").map { ($0.key, $0.value) }) { first, _ in first }
            XCTAssertEqual([status["state"], status["time"], status["elapsed"], status["duration"]],
                           ["pause", "0:1", "0.200", "1.300"])
        }
    }

    /// Two clients of each server: one subscribes, the other sends; the first hears of it in idle.
    func testClientMessagesPassBetweenConnections() throws {
        let (ours, theirs) = try startBoth()
        let ourSecond = try client(), theirSecond = try real.connect()
        compare(["channels", "subscribe chan", "subscribe chan", "subscribe \"bad chan\"", "subscribe \"\"",
                 "subscribe other", "channels", "sendmessage nobody hi", "sendmessage \"bad chan\" hi",
                 "unsubscribe \"bad chan\"", "sendmessage chan"], ours, theirs)
        compare(["channels", "sendmessage chan hello", "sendmessage chan \"second one\"", "sendmessage other x",
                 "readmessages"], ourSecond, theirSecond)
        compare(["idle message", "readmessages", "readmessages", "unsubscribe chan", "unsubscribe chan"], ours, theirs)
        // The second client hears of the subscriptions in idle, and its own messages wait for it too.
        compare(["idle subscription", "channels", "subscribe mine", "sendmessage mine self", "idle message",
                 "readmessages", "sendmessage chan gone"], ourSecond, theirSecond)
        // A closed connection's subscriptions go with it.
        for server in [try client(), try real.connect()] {
            _ = try server.run("subscribe", "leaving")
            server.disconnect()
        }
        XCTAssertTrue(eventually { (try? ours.run("channels").map(\.value).contains("leaving")) == false })
        compare(["channels"], ours, theirs)
    }

    /// A seek is answered once the player is there: `status` right after shows the new place, and a
    /// relative seek counts from it (paused, so the place stays).
    func testSeeksAnswerOnceThePlayerIsThere() throws {
        let (ours, theirs) = try startBoth()
        for client in [ours, theirs] {
            for line in ["add long/6.mp3", "add album/1.mp3", "play 0", "pause 1"] {
                try client.sendLine(line)
                _ = try client.readResponse()
            }
        }
        for script in [["seekcur 3"], ["seekcur +1.5", "seekcur -1"], ["seek 1 2"], ["seekid 999 1"], ["seekcur x"]] {
            var answers: [[String]] = []
            for client in [ours, theirs] {
                var lines: [String] = []
                for line in script { lines += RealMPD.answer(client, line) }
                let status = try client.run("status")
                lines += status.filter { ["state", "song", "elapsed", "time"].contains($0.key) }.map { "\($0.key): \($0.value)" }
                answers.append(lines)
            }
            XCTAssertEqual(answers[0], answers[1], "\(script)")
        }
    }

    /// Adds of what the database does not hold (a junk file in the music folder, a missing one, a folder
    /// of junk) and of positions there is no current song for are refused as MPD refuses them, the
    /// position first; an error stays in `status` until a song starts.
    func testAddsOfWhatTheDatabaseLacksAndErrorsAnswerAsMPD() throws {
        try FileManager.default.createDirectory(at: music.appendingPathComponent("Broken"), withIntermediateDirectories: true)
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }).write(to: music.appendingPathComponent("Broken/junk.ogg"))
        try FileManager.default.copyItem(at: music.appendingPathComponent("album/1.mp3"), to: music.appendingPathComponent("album/gone.mp3"))
        let (ours, theirs) = try startBoth()
        try FileManager.default.removeItem(at: music.appendingPathComponent("album/gone.mp3"))
        compare([
            "add Broken/junk.ogg", "addid Broken/junk.ogg", "add Broken", "addid Broken", "add nothere.mp3",
            "addid nothere.mp3", "addid Broken/junk.ogg +0", "add Broken/junk.ogg -1", "addid nothere.mp3 +0",
            "addid album/1.mp3 +0", "add Broken/junk.ogg 99", "addid nothere.mp3 99", "findadd file Broken/junk.ogg",
            "findadd file album/1.mp3 position +0", "load nolist 0:1 +0", "addid Broken/junk.ogg 0", "playlist",
        ], ours, theirs)
        // The error of a song that cannot play stays through stop, clear and add, and goes when a song starts.
        func errorStory(_ client: MPDClient) -> [String] {
            var lines: [String] = []
            for line in ["stop", "clear", "add album/gone.mp3", "play 0", "sleep", "status", "stop", "status", "clear", "add album/2.mp3",
                         "status", "play", "status", "clear", "add album/gone.mp3", "add album/3.mp3", "play 0",
                         "settled"] {
                if line == "sleep" {
                    Thread.sleep(forTimeInterval: 0.5)
                    continue
                }
                // The player moves past a song that fails, and the error goes once the next song plays (MPD's
                // too), however long that takes on a busy machine.
                if line == "settled" {
                    _ = eventually(timeout: 10) {
                        let status = RealMPD.answer(client, "status")
                        return status.contains("song: 1") && !status.contains { $0.hasPrefix("error") }
                    }
                    lines += RealMPD.answer(client, "status").filter { $0.hasPrefix("state") || $0.hasPrefix("song:") || $0.hasPrefix("error") }
                        .map { $0.hasPrefix("error") ? "error" : $0 }
                    continue
                }
                lines += RealMPD.answer(client, line).filter { $0.hasPrefix("state") || $0.hasPrefix("song:") || $0.hasPrefix("error") }
                    .map { $0.hasPrefix("error") ? "error" : $0 }
            }
            return lines
        }
        let ourStory = errorStory(ours)
        // Real MPD starved of CPU sometimes stops at the failed song instead of moving past it (its decoder
        // thread races the play command); the reference is the story it tells when it is not starved.
        var theirStory = errorStory(theirs)
        for _ in 0..<2 where theirStory != ourStory { theirStory = errorStory(theirs) }
        XCTAssertEqual(ourStory, theirStory)
    }

    /// Outputs and partitions answer as MPD's, and switching the output wakes idle clients as MPD's does.
    func testOutputsAndPartitionsAnswerAsMPD() throws {
        let (ours, theirs) = try startBoth()
        compare(["outputs", "listpartitions", "partition default", "partition other", "partition \"\"",
                 "partition default extra"], ours, theirs)
        let ourSecond = try client(), theirSecond = try real.connect()
        for change in ["disableoutput 0", "disableoutput 0", "enableoutput 0", "toggleoutput 0", "toggleoutput 0",
                       "enableoutput 0"] {
            for (first, second) in [(ours, ourSecond), (theirs, theirSecond)] {
                try first.sendLine("idle output mixer")
                Thread.sleep(forTimeInterval: 0.1)
                try second.sendLine(change)
                _ = try second.readResponse()
            }
            Thread.sleep(forTimeInterval: 0.3)
            for client in [ours, theirs] { try client.sendLine("noidle") }
            XCTAssertEqual(try ours.readResponse().map(\.value), try theirs.readResponse().map(\.value), change)
        }
        compare(["outputs"], ours, theirs)
    }
}
