import XCTest
import XZCatalogue
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands

/// Playlist files beside the music (.m3u, .pls, .xspf) and `.mpdignore` files, on real MPD and this
/// host over the same folder: listings, loads by path and the lines that point elsewhere answer the same.
final class FolderPlaylistsTests: MusicFolderHostTestCase {
    /// Sub/a.mp3, Sub/Deep/b.mp3, Sub/skip.mp3 and Ign/c.mp3 beside album/; playlists in Sub and at the
    /// top; `.mpdignore` files leaving out Ign (at the top) and Sub/skip.mp3.
    private func makeFolder() throws {
        let manager = FileManager.default
        for (name, title) in [("Sub/a.mp3", "A"), ("Sub/Deep/b.mp3", "B"), ("Sub/skip.mp3", "Skip"), ("Ign/c.mp3", "C")] {
            let url = music.appendingPathComponent(name)
            try manager.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try AudioFixtures.makeMP3(at: url.path, seconds: 3, tags: .init(title: title, artist: "Other", album: "Sub", track: 1))
        }
        let root = music.path
        try write("Sub/list.m3u", """
            #EXTM3U
            ../album/1.mp3
            album/2.mp3
            \(root)/album/3.mp3
            a.mp3
            ./Deep/b.mp3
            nothere.mp3
            file://\(root)/album/1.mp3
            /etc/passwd
            ../../../outside.mp3
            ../Ign/c.mp3

            # a comment
            """)
        try write("Sub/list.pls", "[playlist]\nNumberOfEntries=3\nFile1=a.mp3\nFile2=../album/2.mp3\nFile3=Deep/b.mp3\n")
        try write("Sub/list.xspf", """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>
            <track><location>a.mp3</location></track>
            <track><location>file://\(root)/album/2.mp3</location></track>
            <track><title>no location</title></track>
            </trackList></playlist>
            """)
        try write("top.m3u", "album/1.mp3\nSub/a.mp3\nhttp://127.0.0.1:9/stream.mp3\n")
        try write("Sub/notes.txt", "not a playlist\n")
        // Folders holding playlist files and no songs are folders too, in their place among the others.
        for name in ["Only/Deeper", "Sub/OnlyDeep"] {
            try FileManager.default.createDirectory(at: music.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        try write("Only/Deeper/x.m3u", "../../album/1.mp3\n")
        try write("Sub/OnlyDeep/y.m3u8", "../a.mp3\n")
        try write(".mpdignore", "Ign\n")
        try write("Sub/.mpdignore", "skip* # a '#' after a pattern is part of it\n  # a comment\n\tski?.mp3  \n")
    }

    private func write(_ name: String, _ text: String) throws {
        try text.write(to: music.appendingPathComponent(name), atomically: false, encoding: .utf8)
    }

    private func compare(_ script: [String], _ ours: MPDClient, _ theirs: MPDClient, file: StaticString = #filePath, line: UInt = #line) {
        for request in script {
            XCTAssertEqual(RealMPD.answer(ours, request), RealMPD.answer(theirs, request), request, file: file, line: line)
        }
    }

    func testListingsAndLoadsByPathAnswerAsMPD() throws {
        try makeFolder()
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        let theirs = try real.connect()
        compare([
            "lsinfo", "lsinfo Sub", "lsinfo Sub/Deep", "lsinfo Ign", "lsinfo Sub/list.m3u", "lsinfo Only", "lsinfo Only/Deeper",
            "listall Only", "listallinfo Sub/OnlyDeep", "load Only/Deeper/x.m3u", "listall", "listall Sub",
            "listallinfo", "listallinfo Sub", "listplaylist Sub/list.m3u", "listplaylistinfo Sub/list.m3u",
            "listplaylist Sub/list.pls", "listplaylistinfo Sub/list.pls", "listplaylist Sub/list.xspf", "listplaylist top.m3u",
            "listplaylist top", "listplaylist Sub/nope.m3u", "listplaylist ../top.m3u", "listplaylist Sub/notes.txt",
            "listplaylist Sub", "listplaylists", "clear", "load Sub/list.m3u", "playlist", "clear", "load Sub/list.pls 1:3",
            "playlist", "load Sub/list.xspf 0:1 0", "playlist", "load Sub/nope.m3u", "playlistadd Sub/list.m3u album/1.mp3",
            "rm Sub/list.m3u", "save Sub/x.m3u", "rename Sub/list.m3u y", "find file Sub/skip.mp3", "search title C",
        ], ours, theirs)
        // A changed .mpdignore counts from the next update on.
        try write("Sub/.mpdignore", "Deep\n")
        try FileManager.default.removeItem(at: music.appendingPathComponent(".mpdignore"))
        try FileManager.default.removeItem(at: music.appendingPathComponent("Sub/list.pls"))
        _ = try ours.run("update")
        host.updates.wait()
        try TestProcess.runChecked("mpc", ["-p", "\(real.port)", "update", "--wait"])
        compare(["lsinfo", "lsinfo Sub", "listall", "lsinfo Sub/Deep", "listplaylist Sub/list.pls"], ours, theirs)
    }

    func testTheWatchKeepsPlaylistsAndIgnoredNamesCurrent() throws {
        try makeFolder()
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        XCTAssertEqual(try ours.run("lsinfo", "Sub").filter { $0.key == "playlist" }.map(\.value),
                       ["Sub/list.m3u", "Sub/list.pls", "Sub/list.xspf"])
        host.watchLibrary(LibraryWatchSettings())
        // The watch is set up on its own thread: changes made before it looks are not its to see.
        Thread.sleep(forTimeInterval: 1)
        try write("Sub/new.m3u8", "a.mp3\n")
        try FileManager.default.removeItem(at: music.appendingPathComponent("Sub/list.pls"))
        try write("Sub/.mpdignore", "Deep\n")
        try FileManager.default.removeItem(at: music.appendingPathComponent(".mpdignore"))
        // Both changes land in the catalogue once the watch's batch has been imported.
        let deadline = Date(timeIntervalSinceNow: 20)
        var playlists: [String] = [], files: [String] = []
        repeat {
            Thread.sleep(forTimeInterval: 0.2)
            host.updates.wait()
            let listing = try ours.run("listall")
            playlists = listing.filter { $0.key == "playlist" }.map(\.value)
            files = listing.filter { $0.key == "file" }.map(\.value)
        } while (playlists.contains("Sub/list.pls") || files.contains("Sub/Deep/b.mp3") || !files.contains("Ign/c.mp3"))
            && Date() < deadline
        XCTAssertEqual(playlists, ["top.m3u", "Only/Deeper/x.m3u", "Sub/list.m3u", "Sub/list.xspf", "Sub/new.m3u8",
                                   "Sub/OnlyDeep/y.m3u8"])
        XCTAssertEqual(files.sorted(), ["Ign/c.mp3", "Sub/a.mp3", "Sub/skip.mp3", "album/1.mp3", "album/2.mp3", "album/3.mp3"])
    }
}
