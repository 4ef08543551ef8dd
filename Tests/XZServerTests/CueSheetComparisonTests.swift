import Foundation
import XCTest
import XZProtocol
@testable import XZServer
import XZTestSupport

/// A CD rip (a FLAC image and its CUE sheet) served by real MPD and by this host from the same folder:
/// listings, searches, the queue and the player's times of its tracks must be the same.
final class CueSheetComparisonTests: MusicFolderHostTestCase {
    private func startBoth() throws -> (ours: MPDClient, theirs: MPDClient) {
        try CueFixtures.makeRip(in: music.appendingPathComponent("Rip"))
        try Data([0xFF, 0xD8, 0xFF, 0xE0, 0, 0x10] + Array("JFIF".utf8) + [0]).write(to: music.appendingPathComponent("Rip/cover.jpg"))
        try FileManager.default.createDirectory(at: music.appendingPathComponent("Emb"), withIntermediateDirectories: true)
        try CueFixtures.makeEmbedded(at: music.appendingPathComponent("Emb/emb.flac").path)
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        return (ours, try real.connect())
    }

    /// The answer's lines less what only one server can know (times of day, ids, the bitrate).
    private func answer(_ client: MPDClient, _ line: String) -> [String] {
        do {
            try client.sendLine(line)
            let hidden: Set<String> = ["Last-Modified", "Id", "songid", "nextsongid", "uptime", "playtime", "db_update",
                                       "bitrate", "audio", "elapsed", "time", "playlist", "playlistlength", "db_playtime"]
            return try client.readResponse().filter { !hidden.contains($0.key) || $0.key == "playlist" && !line.hasPrefix("status") }
                .map { "\($0.key): \($0.value)" }
        } catch let error as MPDError {
            return ["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"]
        } catch {
            return ["\(error)"]
        }
    }

    private func compare(_ script: [String], _ ours: MPDClient, _ theirs: MPDClient, line: UInt = #line) {
        for request in script {
            XCTAssertEqual(Self.records(answer(ours, request)), Self.records(answer(theirs, request)), request, line: line)
        }
    }

    /// The lines of each record (from its `file:`, `directory:` or `playlist:` line), those of a whole file
    /// in one order: MPD sends a file's tags in the file's order, which is the song records' concern. A CUE
    /// track's record (it has a `Range:`) is compared as it is: the sheet's tags in its order, Track as written.
    private static func records(_ lines: [String]) -> [String] {
        var result: [String] = [], record: [String] = []
        func flush() {
            guard !record.isEmpty else { return }
            let track = record.contains { $0.hasPrefix("Range: ") }
            result += track ? record : [record[0]] + record.dropFirst().sorted()
            record = []
        }
        for line in lines {
            if ["file:", "directory:", "playlist:"].contains(where: line.hasPrefix) { flush() }
            record.append(line)
        }
        flush()
        return result
    }

    func testTracksAreListedFoundAndQueuedAsMPDDoes() throws {
        let (ours, theirs) = try startBoth()
        compare([
            "lsinfo", "lsinfo Rip", "lsinfo \"Rip/image.cue\"", "lsinfo \"Rip/image.cue/track0002\"",
            "listall Rip", "listallinfo Rip", "listall \"Rip/image.cue\"",
            "find \"(base \\\"Rip\\\")\"", "find file \"Rip/image.cue/track0001\"", "search title Second",
            "find album \"The Album\"", "search file image", "list album", "list artist", "list genre",
            "count album \"The Album\"", "find file \"Rip/image.flac\"",
            "add \"Rip/image.cue\"", "add \"Rip/image.cue/track0002\"", "addid \"Rip/image.cue/track0001\" 0",
            "playlistinfo", "playlistfind title Third", "playlistsearch album \"the album\"",
            "sticker set song \"Rip/image.cue/track0002\" rating 5", "sticker get song \"Rip/image.cue/track0002\" rating",
            "sticker find song Rip rating", "albumart \"Rip/image.cue/track0001\" 0",
            "albumart \"Rip/image.flac\" 0",
            // A folder holding a sheet queues the sheet's tracks, not its image.
            "clear", "add Rip", "playlist", "listall",
            // The sheet as a playlist: its tracks named by the image, each a part of it.
            "listplaylist \"Rip/image.cue\"", "listplaylistinfo \"Rip/image.cue\"", "clear",
            "load \"Rip/image.cue\" 1:3", "playlistinfo", "load \"Rip/image.cue\"", "playlist", "playlistfind title First",
        ], ours, theirs)
    }

    /// A file with a sheet in its tags is one song, and a playlist listed after it.
    func testAFileWithAnEmbeddedSheetIsASongAndAPlaylist() throws {
        let (ours, theirs) = try startBoth()
        compare(["lsinfo Emb", "lsinfo \"Emb/emb.flac\"", "listall Emb", "listallinfo Emb", "find \"(base \\\"Emb\\\")\"",
                 "search title embedded"], ours, theirs)
    }

    /// The sheet in a file's tags is that file's playlist, as MPD's embedded-cue plugin reads it: its tracks are
    /// parts of the file with the sheet's tags over the file's; a stored playlist naming the file lists the song.
    func testAFileWithAnEmbeddedSheetLoadsAndListsItsTracks() throws {
        let (ours, theirs) = try startBoth()
        compare(["listplaylist \"Emb/emb.flac\"", "listplaylistinfo \"Emb/emb.flac\"", "load \"Emb/emb.flac\" 1:2",
                 "playlistinfo", "load \"Emb/emb.flac\"", "playlist", "status", "playlistfind title Embedded",
                 "clear", "add \"Emb/emb.flac\"", "save withemb", "listplaylistinfo withemb", "rm withemb",
                 "listplaylistinfo \"Emb/nothing.flac\"", "load \"Rip/image.flac\""], ours, theirs)
    }

    /// The image, which the catalogue does not hold while its sheet's tracks stand for it, is queued with its
    /// file's own tags and format, as MPD lists it from its database; never a title made from its name.
    func testAnImageInTheQueueHasItsFilesTagsAndFormat() throws {
        let (ours, theirs) = try startBoth()
        compare(["add \"Rip/image.flac\"", "playlistinfo", "playlistfind composer Comp", "playlistsearch title image",
                 "save withimage", "listplaylistinfo withimage", "rm withimage"], ours, theirs)
        XCTAssertFalse(answer(ours, "playlistinfo").contains("Title: image"))
    }

    /// In a folder, its songs come first, then its sheets as playlists, then its folders (the sheets' among them).
    func testAFolderListsSongsThenSheetsThenFolders() throws {
        let (ours, theirs) = try startBoth()
        let rip = music.appendingPathComponent("Rip")
        try FileManager.default.createDirectory(at: rip.appendingPathComponent("Sub"), withIntermediateDirectories: true)
        for copy in ["loose.flac", "Sub/a.flac"] {
            try FileManager.default.copyItem(at: rip.appendingPathComponent("image.flac"), to: rip.appendingPathComponent(copy))
        }
        for client in [ours, theirs] { _ = try client.run("update") }
        host.updates.wait()
        XCTAssertTrue(eventually { (try? theirs.run("status"))?.contains { $0.key == "updating_db" } == false })
        compare(["lsinfo Rip", "listall Rip", "listallinfo Rip", "listall", "add Rip", "playlist"], ours, theirs)
    }

    /// MPD's cue parser makes a track's tags in the sheet's order (the album's lines, Track as written, the
    /// track's lines, `REM NAME` of any tag, no SONGWRITER), then adds the image's of other kinds; `stats` and
    /// `count … group` count each track as long as its image, `count` with a filter as long as itself; the
    /// image, listed nowhere, can be added; a playlist naming a track loads it.
    func testTrackTagsTotalsAndTheImageAreAsMPDHasThem() throws {
        try CueFixtures.makeRip(in: music.appendingPathComponent("Odd"), sheet: """
            TITLE "Odd Album"
            REM DATE 2004
            PERFORMER "Odd Band"
            REM GENRE "Folk"
            SONGWRITER "Nobody"
            FILE "image.flac" WAVE
              TRACK 1 AUDIO
                PERFORMER "Singer"
                TITLE "Uno"
                REM COMPOSER "Writer"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE "Dos"
                SONGWRITER "Ignored"
                INDEX 01 00:04:00
              TRACK 003 AUDIO
                INDEX 01 00:07:00

            """)
        // A playlist beside it naming a track, which is no file.
        try "image.cue/track0002\n".write(to: music.appendingPathComponent("Odd/list.m3u"), atomically: true, encoding: .utf8)
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        let theirs = try real.connect()
        compare(["listplaylistinfo \"Odd/list.m3u\"", "load \"Odd/list.m3u\"", "playlistinfo", "clear",
                 "lsinfo \"Odd/image.cue\"", "find album \"Odd Album\"", "listplaylistinfo \"Odd/image.cue\"",
                 "add \"Odd/image.cue\"", "playlistinfo", "playlistfind album \"Odd Album\"",
                 "add \"Odd/image.flac\"", "command_list_begin\nadd \"Odd/image.flac\"\ncommand_list_end", "playlist"],
                ours, theirs)
        for client in [ours, theirs] {
            XCTAssertEqual(try client.run("listplaylist \"Odd/list.m3u\"").map(\.value), ["Odd/image.cue/track0002"])
        }
        // Totals, which the other comparisons leave out.
        for request in ["stats", "count group artist", "count group album", "count album \"Odd Album\"", "count artist Singer"] {
            func totals(_ client: MPDClient) throws -> [String] {
                try client.run(request).filter { !["uptime", "db_update", "playtime"].contains($0.key) || request.hasPrefix("count") }
                    .map { "\($0.key): \($0.value)" }
            }
            XCTAssertEqual(try totals(ours), try totals(theirs), request)
        }
    }

    func testPlayingATrackCountsFromItsStart() throws {
        let (ours, theirs) = try startBoth()
        compare(["add \"Rip/image.cue\"", "play 1", "pause 1", "currentsong", "status"], ours, theirs)
        // Ours opens the song after `play` answers (its format then shows); a seek waits until it has.
        func loaded(_ song: String) -> Bool {
            eventually {
                let status = (try? ours.run("status")) ?? []
                return status.contains { $0.key == "song" && $0.value == song } && status.contains { $0.key == "audio" }
            }
        }
        XCTAssertTrue(loaded("1"))
        compare(["seekcur 1.5", "status", "play 2"], ours, theirs)
        // Track 3 plays once its elapsed time moves (before it opened, the time before its start shows 0).
        XCTAssertTrue(loaded("2") && eventually {
            ((try? ours.run("status"))?.first { $0.key == "elapsed" }.flatMap { Double($0.value) } ?? 0) > 0
        })
        compare(["pause 1", "seekcur 0.5", "currentsong", "status"], ours, theirs)
        // The elapsed time of a paused track counts from the track's start, its duration is the track's.
        for client in [ours, theirs] {
            let status = Dictionary(try client.run("status").map { ($0.key, $0.value) }) { first, _ in first }
            XCTAssertEqual([status["state"], status["song"], status["elapsed"], status["duration"], status["time"]],
                           ["pause", "2", "0.500", "2.560", "1:3"])
        }
    }

    /// A sheet whose tracks lie past its image's end is held to the image by one rule, beside the image or in
    /// it: a track starting after the end is no track, one ending after it ends with the image.
    func testTracksPastTheEndAreLeftOutOfASheetBesideOrInsideTheFile() throws {
        let sheet = """
            FILE "image.flac" WAVE
              TRACK 01 AUDIO
                TITLE "In"
                INDEX 01 00:00:00
              TRACK 02 AUDIO
                TITLE "Over"
                INDEX 01 00:02:30
              TRACK 03 AUDIO
                TITLE "Past"
                INDEX 01 07:00:00
              TRACK 04 AUDIO
                TITLE "Far Past"
                INDEX 01 14:00:00

            """
        try CueFixtures.makeRip(in: music.appendingPathComponent("Beside"), sheet: sheet)
        let inside = music.appendingPathComponent("Inside")
        try FileManager.default.createDirectory(at: inside, withIntermediateDirectories: true)
        try CueFixtures.makeFLAC(at: inside.appendingPathComponent("image.flac").path, seconds: 10)
        let sheetFile = folder.path("sheet.cue")
        try sheet.write(toFile: sheetFile, atomically: true, encoding: .utf8)
        try TestProcess.runChecked("metaflac", ["--set-tag-from-file=CUESHEET=\(sheetFile)", inside.appendingPathComponent("image.flac").path])
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        func parts(_ playlist: String) -> [String] {
            answer(ours, "listplaylistinfo \"\(playlist)\"").filter { $0.hasPrefix("Range: ") || $0.hasPrefix("Title: ") }
        }
        XCTAssertEqual(parts("Beside/image.cue"), ["Range: 0.000-2.400", "Title: In", "Range: 2.400-", "Title: Over"])
        XCTAssertEqual(parts("Inside/image.flac"), parts("Beside/image.cue"))
    }
}
