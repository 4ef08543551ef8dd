import Foundation
import XCTest
import XZCatalogue
import XZHostCore
import XZHostAssembly
import XZServer
import XZSystem
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Real MPD 0.23 (null output, software mixer) and this host as `serve` starts it, on one music folder
/// holding every case an MPD user's folder holds (`EveryCaseMusicFolder`) and a loopback radio station
/// (`LoopbackRadio`): one script of requests, each request that changes nothing sent again by a client
/// that half-closes its connection (`printf 'stats\n' | nc -q 1 host 6600`), the answers diffed line by
/// line less what only one server can know (`normalised`). Prints the comparison as a table and fails on
/// each difference but those kept on purpose (`keptDifferences`).
/// Alone: `scripts/run-tests.sh --filter MusicFolderComparisonTests`.
final class MusicFolderComparisonTests: MusicFolderHostTestCase {
    private var radio: LoopbackRadio?
    private var ours: LibraryHost?

    /// Differences this host keeps on purpose, by case, each with its reason.
    static let keptDifferences: [String: String] = [
        // MPD runs getfingerprint in the background and drops its answer when the client's input has
        // ended; a request read before the end of input is answered here.
        "half-closed: getfingerprint tagged/01-emilie.flac": "MPD drops a background command's answer",
        "half-closed: getfingerprint tagged/02-duet.flac": "MPD drops a background command's answer",
    ]

    /// Not MusicFolderHostTestCase's: this host is started (in the test, as `serve` starts it) only once
    /// the folder is made, so its first start sees the finished folder as MPD's does.
    override func setUpWithError() throws {
        for tool in ["mpd", "mpc"] + EveryCaseMusicFolder.tools where (try? TestProcess.which(tool)) == nil {
            throw XCTSkip("\(tool) is not installed: the comparison with real MPD needs it")
        }
    }

    override func tearDown() async throws {
        await ours?.stop()
        ours = nil
        host = nil
        radio?.stop()
    }

    // MARK: The script

    /// The part of the MPD protocol a case is about (records, the rules of commands, CUE sheets, radio,
    /// playlists and ignore files in the folder, fingerprints), so that a difference says where to look.
    enum Area: String, Sendable {
        case records, rules, cue, radio, folderlists, fingerprint
    }

    /// How a step's `elapsed` is compared: hidden (it moves while the song plays), in whole seconds (right
    /// after a seek in a playing song), or exactly (paused).
    enum Times: Sendable { case hidden, wholeSeconds, exact }

    struct Step: Sendable {
        enum Kind: Sendable {
            /// Changes nothing: also sent by a half-closed client.
            case read
            /// Changes the server: sent once. `addid` keeps its Id under `id`, which later requests name as `$id`.
            case change(id: String?)
            /// Asked again (for at most `pollSeconds`) until the answer holds, on each server.
            case poll(@Sendable ([String]) -> Bool)
            /// The request, then `idle` from another client that connected just before it.
            case idleOfAnother
            /// The request's lines sent at once by a half-closed client.
            case halfClosedBatch
        }

        var request: String
        var area: Area
        var kind: Kind
        var times = Times.hidden
        /// Asked again on a new connection while the answer does not come: Debian's MPD 0.23.12 leaves
        /// about one `getfingerprint` in five unanswered for ever (later 0.23 releases answer each).
        var askedAgainWhenSilent = false
    }

    static let pollSeconds = 4.0

    /// The steps, in order; `{radio}`, `{station}` and `{gone}` stand for the loopback station's URLs.
    static let script: [Step] = {
        func read(_ request: String, _ area: Area, times: Times = .hidden) -> Step {
            Step(request: request, area: area, kind: .read, times: times)
        }
        func change(_ request: String, _ area: Area, id: String? = nil) -> Step {
            Step(request: request, area: area, kind: .change(id: id))
        }
        func fingerprint(_ file: String) -> Step {
            Step(request: "getfingerprint \(file)", area: .fingerprint, kind: .read, askedAgainWhenSilent: true)
        }
        func poll(_ request: String, _ area: Area, until holds: @escaping @Sendable ([String]) -> Bool) -> Step {
            Step(request: request, area: area, kind: .poll(holds))
        }
        // Playing for half a second: a status right after `play` may lack the decoder's bitrate and format.
        let playing: @Sendable ([String]) -> Bool = { lines in
            lines.contains("state: play")
                && lines.contains { $0.hasPrefix("elapsed: ") && (Double($0.dropFirst(9)) ?? 0) >= 0.5 }
        }
        return [
            // The database.
            read("stats", .records), read("lsinfo", .folderlists), read("lsinfo tagged", .records),
            read("lsinfo untagged", .records), read("lsinfo cue", .cue), read("lsinfo cue/album.cue", .cue),
            read("lsinfo cue/embedded.flac", .cue), read("lsinfo lists", .folderlists), read("lsinfo hidden", .folderlists),
            read("lsinfo Broken", .rules), read("listall", .folderlists), read("listallinfo", .records),
            read("listall cue", .cue),
            read("find artist 周杰伦", .records), read("find artist \"\"", .records), read("search artist émilie", .records),
            read("search any 千里", .records), read("find \"(Artist == '费玉清')\"", .records),
            read("find date 2006-09-05", .records), read("find album \"Cue Album\"", .cue), read("search title middle", .cue),
            read("find \"(AlbumArtist == 'Embedded Artist')\"", .cue),
            read("list artist", .records), read("list albumartist", .records), read("list album group artist", .records),
            read("list date", .records), read("list genre", .records),
            read("count artist \"\"", .records), read("count group artist", .records), read("count album \"Cue Album\"", .cue),
            read("listplaylists", .folderlists), read("listplaylist lists/road.m3u", .folderlists),
            read("listplaylistinfo lists/road.m3u", .folderlists), read("listplaylistinfo lists/road.pls", .folderlists),
            read("listplaylistinfo lists/private.m3u", .folderlists), read("listplaylistinfo cue/album.cue", .cue),
            read("listplaylistinfo cue/embedded.flac", .cue),
            fingerprint("tagged/01-emilie.flac"), fingerprint("tagged/02-duet.flac"),

            // Adds of every kind, and the queue and a stored playlist they make.
            change("clear", .records), change("add tagged", .records), change("add \"untagged/no tags.mp3\"", .records),
            change("add cue/album.cue/track0002", .cue), change("load cue/album.cue", .cue),
            change("load cue/album.cue 2:3", .cue), change("load cue/embedded.flac", .cue), change("add cue/album.flac", .cue),
            change("load lists/road.m3u", .folderlists), change("load lists/road.pls", .folderlists),
            change("add Broken/junk.ogg", .rules), change("add hidden/secret.mp3", .folderlists),
            change("add tagged/skip-demo.mp3", .folderlists), change("add {radio}", .radio), change("load {station}", .radio),
            read("playlistinfo", .records), read("status", .records), read("playlistfind album \"Cue Album\"", .cue),
            change("save mix", .records), read("listplaylists", .records), read("listplaylist mix", .records),
            read("listplaylistinfo mix", .records), change("rm mix", .records),

            // The radio playing: its title and name in the current song.
            change("clear", .radio), change("addid {radio}", .radio, id: "radio"), change("playid $radio", .radio),
            poll("currentsong", .radio) { $0.contains { $0.hasPrefix("Title: ") } }, poll("status", .radio, until: playing),
            read("playlistid $radio", .radio), change("stop", .radio),

            // Tags edited on a file's song are MPD's error.
            change("addid tagged/02-duet.flac", .rules, id: "duet"), change("addtagid $duet artist Someone", .rules),
            change("cleartagid $duet", .rules), read("playlistid $duet", .records),

            // Seeks: done when answered, relative ones from where the last one went, in a cue track from its start.
            change("addid cue/embedded.flac", .rules, id: "embedded"), change("playid $embedded", .rules),
            poll("status", .rules, until: playing), change("seekcur 4", .rules),
            read("status", .rules, times: .wholeSeconds), change("pause 1", .rules), change("seekcur 2", .rules),
            change("seekcur +1.5", .rules), change("seekcur -1", .rules), read("status", .rules, times: .exact),
            change("addid cue/album.cue/track0002", .cue, id: "middle"), change("playid $middle", .cue),
            change("pause 1", .cue), change("seekcur 1", .cue), read("status", .cue, times: .exact),
            read("currentsong", .cue), change("stop", .cue),

            // A song that failed leaves its error until the next one plays.
            change("clear", .rules), change("addid {gone}", .rules, id: "gone"), change("playid $gone", .rules),
            poll("status", .rules) { $0.contains { $0.hasPrefix("error: ") } }, change("clear", .rules),
            change("add tagged/04-vorbis.ogg", .rules), change("play 0", .rules), poll("status", .rules, until: playing),
            change("stop", .rules),

            // addid at a position relative to the current song, with none.
            change("clear", .rules), change("addid tagged/nothere.flac +0", .rules),
            change("addid Broken/junk.ogg +0", .rules), change("addid tagged/01-emilie.flac +0", .rules),

            // Outputs and partitions.
            read("outputs", .rules), read("listpartitions", .rules),
            Step(request: "toggleoutput 0", area: .rules, kind: .idleOfAnother), read("outputs", .rules),
            change("toggleoutput 0", .rules),

            // Several requests from one client that ends its input at once.
            Step(request: "stats\nlsinfo cue\nstatus\ncurrentsong\nlistplaylists\nlistplaylistinfo lists/road.pls",
                 area: .records, kind: .halfClosedBatch),
        ]
    }()

    // MARK: The comparison

    struct Row {
        var area: Area
        var label: String
        var mpd: [String]
        var ours: [String]
        var same: Bool { mpd == ours }
    }

    /// A client of one server under comparison (its own socket, so an answer that never comes is a line
    /// of the table after `answerSeconds`, not a stuck test), and the Ids its `addid`s got.
    final class Server {
        static let answerSeconds = 10
        static let silence = "<no answer"
        let port: Int
        private let connect: () throws -> Int32
        private var fd: Int32 = -1
        private var buffer: [UInt8] = []
        var ids: [String: String] = [:]

        /// `connect` opens a TCP connection to `port`.
        init(port: Int, connect: @escaping () throws -> Int32) throws {
            self.port = port
            self.connect = connect
            try reconnect()
        }

        deinit { if fd >= 0 { close(fd) } }

        private func reconnect() throws {
            if fd >= 0 { close(fd) }
            buffer = []
            fd = try connect()
            setPatience(Self.answerSeconds)
            guard let greeting = readLine(), greeting.hasPrefix("OK MPD ") else {
                throw TestFailure("no greeting on port \(port)")
            }
        }

        /// The next line, or nil when the connection ended or stayed silent for `answerSeconds`.
        private func readLine() -> String? {
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                if let newline = buffer.firstIndex(of: 0x0A) {
                    defer { buffer.removeSubrange(...newline) }
                    return String(decoding: buffer[..<newline], as: UTF8.self)
                }
                let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return nil }
                buffer += chunk[..<count]
            }
        }

        /// The request with `$name` standing for the Id this server's `addid` kept under that name.
        func resolve(_ request: String) -> String {
            // Longest names first, so `$ab` is not read as `$a` followed by `b`.
            ids.keys.sorted { $0.count > $1.count }
                .reduce(request) { $0.replacingOccurrences(of: "$\($1)", with: ids[$1] ?? "") }
        }

        func send(_ line: String) {
            let bytes = Array((resolve(line) + "\n").utf8)
            _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }

        /// The answer's lines as sent, less the closing `OK`. A connection that ends or stays silent is a
        /// line of the answer, and a new connection for the next request.
        func readAnswer() -> [String] {
            var lines: [String] = []
            while let line = readLine() {
                if line == "OK" { return lines }
                lines.append(line)
                if line.hasPrefix("ACK ") { return lines }
            }
            lines.append("\(Self.silence): the connection ended or stayed silent>")
            try? reconnect()
            return lines
        }

        func ask(_ request: String) -> [String] {
            send(request)
            return readAnswer()
        }

        /// `ask`, asked again (up to `tries` times, waiting `seconds` each) while no answer comes.
        func askAgainWhenSilent(_ request: String, tries: Int = 5, seconds: Int = 2) -> [String] {
            setPatience(seconds)
            defer { setPatience(Self.answerSeconds) }
            var answer = ask(request)
            for _ in 1..<tries where answer.last?.hasPrefix(Self.silence) ?? false {
                setPatience(seconds)
                answer = ask(request)
            }
            return answer
        }

        private func setPatience(_ seconds: Int) {
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
    }

    /// Everything a server sends after its greeting to a client that sends `text` and ends its input.
    private func halfClosed(_ server: Server, _ text: String) -> [String] {
        guard let fd = try? rawConnection(port: server.port) else { return ["<cannot connect>"] }
        defer { close(fd) }
        write(server.resolve(text) + "\n", to: fd)
        shutdown(fd, Int32(SHUT_WR))
        guard let received = readUntilClosed(fd, timeout: 3) else { return ["<still open after 3 s>"] }
        return Array(received.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).dropFirst())
            .filter { !$0.isEmpty }
    }

    /// `idle` from a client that connected before `request` was sent (then `noidle`, for a server that
    /// heard of nothing).
    private func idleOfAnother(_ server: Server, after request: String) -> [String] {
        guard let other = try? Server(port: server.port, connect: { try self.rawConnection(port: server.port) }) else {
            return ["<cannot connect>"]
        }
        _ = server.ask(request)
        Thread.sleep(forTimeInterval: 0.3)
        other.send("idle")
        Thread.sleep(forTimeInterval: 0.2)
        other.send("noidle")
        return other.readAnswer()
    }

    /// The lines less what only one server can know: each value below becomes `…` (its line stays, so a
    /// missing one still shows). Times and mtimes (`Last-Modified`, `uptime`, `db_update`, a status'
    /// `elapsed`, `time` and `bitrate`, the stats' `playtime`), ids (`Id`, `songid`, `nextsongid`,
    /// `updating_db`), the queue's version (a status' `playlist`), and the text of a player's `error`
    /// (decoders word them their own way; that there is one is compared).
    /// What a lossy file's decoder makes of it: the sample format of its `Format` and of a status'
    /// `audio` (MPD's mad decodes MP3 to 24 bits, Opus to 16; this host's decoders to 16 or float), and
    /// the milliseconds of its `duration` (MPD counts the encoder's delay and padding, which neither
    /// plays; this host leaves them out). `Time`, rate and channels are still compared.
    static func normalised(_ lines: [String], request: String, times: Times) -> [String] {
        let hidden: Set<String> = ["Last-Modified", "uptime", "db_update", "time", "bitrate", "Id", "songid",
                                   "nextsongid", "updating_db", "error"]
        var lossy = false
        return lines.map { line in
            guard let colon = line.range(of: ": ") else { return line }
            let key = String(line[..<colon.lowerBound]), value = line[colon.upperBound...]
            if key == "file" {
                lossy = value.contains("://")
                    || lossyExtensions.contains(URL(fileURLWithPath: String(value)).pathExtension.lowercased())
            }
            let masked = hidden.contains(key)
                || (key == "playtime" && request.contains("stats"))
                || (key == "playlist" && !value.isEmpty && value.allSatisfy(\.isNumber))
                || (key == "elapsed" && times == .hidden)
            if masked { return "\(key): …" }
            if key == "elapsed", times == .wholeSeconds { return "elapsed: \(value.prefix { $0 != "." })…" }
            if key == "audio" || (key == "Format" && lossy) {
                let parts = value.split(separator: ":")
                return parts.count == 3 ? "\(key): \(parts[0]):…:\(parts[2])" : line
            }
            if key == "duration", lossy { return "duration: \(value.prefix { $0 != "." })…" }
            return line
        }
    }

    static let lossyExtensions: Set<String> = ["mp3", "ogg", "oga", "opus", "m4a", "mp4", "aac"]

    private func run(_ step: Step, _ theirs: Server, _ mine: Server, radio: LoopbackRadio) -> [Row] {
        let request = step.request.replacingOccurrences(of: "{radio}", with: radio.stream)
            .replacingOccurrences(of: "{station}", with: radio.playlist).replacingOccurrences(of: "{gone}", with: radio.gone)
        let label = step.request
        func row(_ label: String, _ answer: (Server) -> [String]) -> Row {
            let mpdAnswer = answer(theirs), ourAnswer = answer(mine)
            return Row(area: step.area, label: label,
                       mpd: Self.normalised(mpdAnswer, request: request, times: step.times),
                       ours: Self.normalised(ourAnswer, request: request, times: step.times))
        }
        switch step.kind {
        case .read:
            return [row(label) { step.askedAgainWhenSilent ? $0.askAgainWhenSilent(request) : $0.ask(request) },
                    row("half-closed: \(label)") { self.halfClosed($0, request) }]
        case .change(let id):
            return [row(label) { server in
                let answer = server.ask(request)
                if let id {
                    server.ids[id] = answer.first { $0.hasPrefix("Id: ") }.map { String($0.dropFirst(4)) } ?? "none"
                }
                return answer
            }]
        case .poll(let holds):
            return [row("\(label) (once it holds)") { server in
                let deadline = Date(timeIntervalSinceNow: Self.pollSeconds)
                var answer = server.ask(request)
                while !holds(answer), Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.1)
                    answer = server.ask(request)
                }
                return answer
            }]
        case .idleOfAnother:
            return [row("\(label), then idle of another client") { self.idleOfAnother($0, after: request) }]
        case .halfClosedBatch:
            return [row("half-closed: \(label.replacingOccurrences(of: "\n", with: "; "))") { self.halfClosed($0, request) }]
        }
    }

    func testEveryCaseOfAnMPDUsersFolderAnswersAsMPDAnswers() async throws {
        folder = try TemporaryFolder("every-case")
        music = folder.url.appendingPathComponent("music")
        let radio = try LoopbackRadio(scratch: folder.url)
        self.radio = radio
        try EveryCaseMusicFolder.make(at: music, scratch: folder.url, radio: radio.stream)

        let real = try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"))
        mpd = real
        library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        let configuration = try HostConfiguration(config: ConfigFile(parsing: """
            music_directory = \(music.path)
            bind_to_address = 127.0.0.1
            port = 0

            """), output: .null)
        let started = try await LibraryHost.start(configuration, library: library, database: try library.open(seedingDemoFrom: nil),
                                                  listening: .socketAndTCP)
        ours = started
        host = started.host
        port = try XCTUnwrap(started.tcpPort)
        let theirs = try Server(port: real.port) { try self.rawConnection(port: real.port) }
        let mine = try Server(port: port) { try self.rawConnection() }

        // MPD reads its folder when it starts without a database; so must this host, before any `update`.
        var rows: [Row] = []
        _ = eventually(timeout: 10) { !mine.ask("status").contains { $0.hasPrefix("updating_db") } }
        rows.append(Row(area: .rules, label: "stats (first start, no update)",
                        mpd: Self.normalised(theirs.ask("stats"), request: "stats", times: .hidden),
                        ours: Self.normalised(mine.ask("stats"), request: "stats", times: .hidden)))
        _ = mine.ask("update")
        started.host.updates.wait()

        for step in Self.script { rows += run(step, theirs, mine, radio: radio) }
        // Line by line: one write of the whole table can be cut short on its way through `swift test`.
        for line in Self.table(rows).split(separator: "\n", omittingEmptySubsequences: false) { print(line) }

        // The folder holds what the cases are about: on MPD, answers that are not empty.
        func mpdAnswer(_ label: String) -> [String] { rows.first { $0.label == label }?.mpd ?? [] }
        XCTAssertEqual(mpdAnswer("lsinfo cue/album.cue").filter { $0.hasPrefix("file: ") }.count, 3, "the CUE image's tracks")
        XCTAssertTrue(mpdAnswer("currentsong (once it holds)").contains("Title: \(LoopbackRadio.title)"), "the radio's title")
        XCTAssertTrue(mpdAnswer("listplaylistinfo lists/road.m3u").contains("file: tagged/01-emilie.flac"))
        XCTAssertTrue(mpdAnswer("getfingerprint tagged/01-emilie.flac").first?.hasPrefix("chromaprint: ") ?? false)
        XCTAssertTrue(mpdAnswer("list artist").contains("Artist: "), "the untagged song")

        for row in rows where !row.same && Self.keptDifferences[row.label] == nil {
            XCTFail("[\(row.area.rawValue)] \(row.label): the answer differs from MPD's (see the table)")
        }
    }

    // MARK: The table

    /// The comparison as a Markdown table (area, case, MPD's answer, ours, same or not), then each
    /// difference line by line (`-` MPD's only, `+` ours only).
    static func table(_ rows: [Row]) -> String {
        func cell(_ text: String, _ limit: Int = 60) -> String {
            let flat = text.replacingOccurrences(of: "|", with: "\\|")
            return flat.count > limit ? String(flat.prefix(limit - 1)) + "…" : flat
        }
        func summary(_ lines: [String]) -> String {
            lines.isEmpty ? "(nothing)" : lines.count == 1 ? "`\(cell(lines[0]))`" : "\(lines.count) lines"
        }
        let different = rows.filter { !$0.same }
        let kept = different.filter { keptDifferences[$0.label] != nil }
        var text = "MusicFolderComparisonTests: \(rows.count) cases, \(rows.count - different.count) the same as MPD, "
            + "\(different.count) different (\(kept.count) kept on purpose)\n\n"
            + "| area | case | MPD | ours | |\n|---|---|---|---|---|\n"
        for row in rows {
            let verdict = row.same ? "same" : keptDifferences[row.label].map { "kept: \($0)" } ?? "**different**"
            var theirs = summary(row.mpd), mine = row.same ? "same" : summary(row.ours)
            if !row.same, row.mpd.count > 1 || row.ours.count > 1 {
                let difference = row.ours.difference(from: row.mpd)
                if let removed = difference.removals.first, case .remove(_, let line, _) = removed { theirs += ", `\(cell(line, 50))`" }
                if let inserted = difference.insertions.first, case .insert(_, let line, _) = inserted { mine += ", `\(cell(line, 50))`" }
            }
            text += "| \(row.area.rawValue) | `\(cell(row.label, 80))` | \(theirs) | \(mine) | \(verdict) |\n"
        }
        for row in different {
            text += "\n--- \(row.label)\n" + diff(row.mpd, row.ours, limit: 40).joined(separator: "\n") + "\n"
        }
        return text
    }

    /// The lines only MPD sent (`-`) and only this host sent (`+`), in order, each run of them under the
    /// record or folder (`@`) they are in; at most `limit` lines.
    static func diff(_ mpd: [String], _ ours: [String], limit: Int) -> [String] {
        var removed = Set<Int>(), inserted = Set<Int>()
        for change in ours.difference(from: mpd) {
            switch change {
            case .remove(let offset, _, _): removed.insert(offset)
            case .insert(let offset, _, _): inserted.insert(offset)
            }
        }
        var out: [String] = [], context = "", shownContext = ""
        var i = 0, j = 0
        func show(_ line: String) {
            if context != shownContext, !context.isEmpty { out.append("@ \(context)") }
            shownContext = context
            out.append(line)
        }
        while (i < mpd.count || j < ours.count) && out.count < limit {
            if i < mpd.count, removed.contains(i) {
                show("- \(mpd[i])")
                i += 1
            } else if j < ours.count, inserted.contains(j) {
                show("+ \(ours[j])")
                j += 1
            } else {
                if i < mpd.count, ["file: ", "directory: ", "playlist: "].contains(where: mpd[i].hasPrefix), !mpd[i].hasSuffix("…") {
                    context = mpd[i]
                }
                i += 1
                j += 1
            }
        }
        return out
    }
}
