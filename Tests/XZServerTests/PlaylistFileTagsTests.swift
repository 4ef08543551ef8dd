import XCTest
import XZProtocol
import XZTestSupport

/// What a playlist file says of its songs (an extended M3U's `#EXTINF`, a PLS's `TitleN`/`LengthN`, an
/// XSPF track's fields), on real MPD and this host over the same folder: the list's tags come before
/// the song's own and replace those of the same kind, in `listplaylistinfo` and in the queue `load` fills.
final class PlaylistFileTagsTests: MusicFolderHostTestCase {
    private func write(_ name: String, _ text: String) throws {
        let url = music.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try text.write(to: url, atomically: false, encoding: .utf8)
    }

    private func makeLists() throws {
        // Every way MPD's extm3u plugin reads an #EXTINF line: a name and length; -1 (a length of 0); a
        // length alone; 0 and no name (nothing); a line kept across a blank and a comment; seconds that
        // are no whole number or carry attributes (nothing); a stream; a file MPD does not hold.
        try write("lists/e.m3u", """
            #EXTM3U
            #EXTINF:5,Émilie Simon - Désert
            ../album/1.mp3
            #EXTINF:-1,Minus
            ../album/2.mp3
            #EXTINF:12,
            ../album/3.mp3
            #EXTINF:0,
            ../album/1.mp3
            #EXTINF:7,  Seven\u{1}Bell

            # a comment
            ../album/2.mp3
            #EXTINF:3.7,Fraction
            ../album/3.mp3
            #EXTINF:9 tvg-id="x",Attributes
            ../album/1.mp3
            #EXTINF:1,Stream
            http://127.0.0.1:9/stream.mp3
            #EXTINF:1,Missing
            ../nothere.mp3

            """)
        // No #EXTM3U first: a plain list, whose #EXTINF lines are comments.
        try write("lists/plain.m3u", "#EXTINF:5,No Header\n../album/1.mp3\n")
        try write("lists/r.pls", """
            [playlist]
            File1=../album/2.mp3
            Title1=PLS Title
            Length1=100
            File2=../album/1.mp3
            Length2=-1
            File3=../album/3.mp3
            Title3=Third
            Length3=0
            NumberOfEntries=3

            """)
        // Fields before the location are no tags; duration and annotation are none either (as MPD).
        try write("lists/x.xspf", """
            <?xml version="1.0" encoding="UTF-8"?>
            <playlist version="1" xmlns="http://xspf.org/ns/0/"><trackList>
            <track><title>Before</title><location>../album/1.mp3</location><title>X Title</title><creator>One</creator>\
            <creator>Two</creator><album>X Album</album><annotation>Note</annotation><trackNum>7</trackNum>\
            <duration>99000</duration></track>
            <track><location>../album/2.mp3</location><title></title><album>  spaced  </album></track>
            </trackList></playlist>

            """)
    }

    func testAListsTagsComeFirstAndReplaceTheSongsAsOnMPD() throws {
        try makeLists()
        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        let ours = try client()
        _ = try ours.run("update")
        host.updates.wait()
        let theirs = try real.connect()
        let script = [
            "listplaylistinfo lists/e.m3u", "listplaylistinfo lists/plain.m3u", "listplaylistinfo lists/r.pls",
            "listplaylistinfo lists/x.xspf", "listplaylist lists/e.m3u",
            "clear", "load lists/r.pls", "load lists/x.xspf", "load lists/e.m3u 0:5", "playlistinfo",
            // Found by the tags they are listed with.
            "playlistfind name Minus", "playlistsearch title \"pls title\"", "playlistfind artist Two",
            "playlistfind title \"Song 2\"", "playlistsearch any spaced",
            // The queue keeps the list's tags; saved, a playlist holds the songs, which list as themselves.
            "save kept", "listplaylistinfo kept", "rm kept",
        ]
        for request in script {
            XCTAssertEqual(RealMPD.answer(ours, request), RealMPD.answer(theirs, request), request)
        }
        // Not vacuous: the lists' tags are there.
        let listed = RealMPD.answer(ours, "listplaylistinfo lists/e.m3u")
        XCTAssertEqual(Array(listed.prefix(2)), ["file: album/1.mp3", "Name: Émilie Simon - Désert"])
        XCTAssertTrue(listed.contains("Name: Seven Bell"), "a control character is a space")
        XCTAssertTrue(RealMPD.answer(ours, "playlistinfo").contains("Title: PLS Title"))
        XCTAssertEqual(RealMPD.answer(ours, "playlistfind name Minus").first, "file: album/2.mp3")
        XCTAssertEqual(RealMPD.answer(ours, "playlistfind title \"PLS Title\"").first, "file: album/2.mp3")
    }
}
