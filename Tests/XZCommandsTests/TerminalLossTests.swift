import Foundation
import XCTest
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// A prompt whose terminal goes away exits at once in every state, and an idle prompt spends nothing:
/// real `xzmusic` prompts on terminals the test owns (ptys), real hosts (`serve`), and sockets that
/// accept and never answer (a host stuck before its greeting, a lyrics server that never replies).
/// A terminal goes three ways: its master closed with the prompt as the terminal's session (the kernel
/// hangs it up and sends SIGHUP), closed for a prompt that has it only as its standard files (no signal:
/// only reads and writes fail), and SIGHUP alone.
final class TerminalLossTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("terminal-loss")
        // The library and its demo exist before processes race to open it.
        XCTAssertEqual(try xzmusic(["info", "#1"]).status, 0)
    }

    override var environment: [String: String] {
        var env = super.environment
        env["TERM"] = "xterm"
        return env
    }

    // MARK: Attached to another host

    func testAnAttachedPromptLeavesWithItsTerminalWhetherItsHostIsAliveGoneOrRestarting() throws {
        var host = try serve()
        let alive = try prompt(session: false)
        let gone = try prompt(session: true)
        let restarting = try prompt(session: false)
        let reattached = try prompt(session: false)
        let typed = try prompt(session: true)
        for prompt in [alive, gone, restarting, reattached, typed] { XCTAssertTrue(prompt.waitFor("Attached to the running"), prompt.output) }
        // The host's song and its lyric lines print above the prompt (the follower of the host at work).
        alive.type("play 晴天小调")
        XCTAssertTrue(alive.waitFor("▶ 晴天小调"), alive.output)
        XCTAssertTrue(alive.waitFor("♪ "), "lyric lines print: \(alive.output)")
        assertLeaves(alive, .closeTerminal, "attached to a running host, lyric lines printing")
        assertLeaves(typed, .endOfInput, "attached to a running host, lyric lines printing")

        stop(host)
        for prompt in [gone, restarting, reattached] { XCTAssertTrue(prompt.waitFor("the xzmusic host has stopped"), prompt.output) }
        assertLeaves(gone, .closeTerminal, "idle, its host gone")

        host = try serve()
        assertLeaves(restarting, .hangUp, "idle, a new host started")
        reattached.type("volume 33")
        XCTAssertTrue(reattached.waitFor("volume 33"), reattached.output)
        assertLeaves(reattached, .closeTerminal, "idle, attached again to a new host")
        stop(host)
    }

    func testAPromptInTheMiddleOfACommandLeavesWithItsTerminal() throws {
        try importSongWithoutLyrics()
        let lyricsServer = try SilentListener(tcp: ())
        defer { lyricsServer.stop() }
        let host = try serve()
        let alive = try prompt(session: false)
        let gone = try prompt(session: true)
        for prompt in [alive, gone] { XCTAssertTrue(prompt.waitFor("Attached to the running"), prompt.output) }

        alive.type("lyrics fetch --json --lyrics-server http://127.0.0.1:\(lyricsServer.port) Unsung")
        XCTAssertTrue(lyricsServer.waitForConnections(1), "the fetch asked the server: \(alive.output)")
        assertLeaves(alive, .closeTerminal, "waiting on a lyrics server, attached")

        stop(host)
        XCTAssertTrue(gone.waitFor("the xzmusic host has stopped"), gone.output)
        gone.type("lyrics fetch --json --lyrics-server http://127.0.0.1:\(lyricsServer.port) Unsung")
        XCTAssertTrue(lyricsServer.waitForConnections(2), "the fetch asked the server: \(gone.output)")
        assertLeaves(gone, .closeTerminal, "waiting on a lyrics server, its host gone")
    }

    func testAPromptAttachingToAHostThatNeverGreetsLeavesWithItsTerminal() throws {
        // The host's socket, as a host names it; then a host that is gone and another whose loop is stuck.
        var host = try serve()
        let socket = try XCTUnwrap(host.stdout.components(separatedBy: " on ").last?.trimmingCharacters(in: .whitespacesAndNewlines))
        let reattaching = try prompt(session: true)
        XCTAssertTrue(reattaching.waitFor("Attached to the running"), reattaching.output)
        stop(host)
        XCTAssertTrue(reattaching.waitFor("the xzmusic host has stopped"), reattaching.output)
        let stuck = try SilentListener(unixPath: socket)
        defer { stuck.stop() }

        let attaching = try prompt(session: false)
        XCTAssertTrue(stuck.waitForConnections(1), "the prompt knocked: \(attaching.output)")
        assertLeaves(attaching, .closeTerminal, "attaching to a host that never greets")

        reattaching.type("volume 30")
        XCTAssertTrue(stuck.waitForConnections(2), "the prompt knocked again: \(reattaching.output)")
        assertLeaves(reattaching, .closeTerminal, "attaching again, to a host that never greets")

        // The same prompt hangs up (SIGHUP only) while a real host restarts under it.
        stuck.stop()
        host = try serve()
        let restarting = try prompt(session: false)
        XCTAssertTrue(restarting.waitFor("Attached to the running"), restarting.output)
        stop(host)
        XCTAssertTrue(restarting.waitFor("the xzmusic host has stopped"), restarting.output)
        host = try serve()
        restarting.type("volume 31")
        assertLeaves(restarting, .hangUp, "just attached again to a restarted host")
        stop(host)
    }

    // MARK: Hosting

    func testAHostingPromptStopsItsHostAsOnQuitAndLeavesWithItsTerminal() throws {
        try importSongWithoutLyrics()
        let lyricsServer = try SilentListener(tcp: ())
        defer { lyricsServer.stop() }

        // Playing, lyric lines printing above the prompt, a client waiting in idle.
        let playing = try prompt(session: false)
        XCTAssertTrue(playing.waitFor("xzmusic> "), playing.output)
        playing.type("play 晴天小调")
        XCTAssertTrue(playing.waitFor("♪ "), "lyric lines print: \(playing.output)")
        let socket = try XCTUnwrap(hostSocket())
        let client = try XCTUnwrap(IdleClient(unixPath: socket), "a client connects to the prompt's host")
        let stateFile = temp.path("library/host.state")
        try? FileManager.default.removeItem(atPath: stateFile)
        assertLeaves(playing, .closeTerminal, "hosting, playing, lyric lines printing")
        XCTAssertTrue(client.seesTheEnd(within: 2), "the client's connection was closed")
        let state = try String(contentsOfFile: stateFile, encoding: .utf8)
        XCTAssertTrue(state.contains("qingtian"), "the state was saved with the queue: \(state)")
        XCTAssertFalse(FileManager.default.fileExists(atPath: socket), "the socket is gone")

        // A background job printing its progress, and the music playing again from the saved state.
        let background = try prompt(session: true)
        XCTAssertTrue(background.waitFor("xzmusic> "), background.output)
        background.type("play 晴天小调")
        background.type("lyrics fetch --lyrics-server http://127.0.0.1:\(lyricsServer.port) Unsung")
        XCTAssertTrue(background.waitFor("in the background"), background.output)
        XCTAssertTrue(lyricsServer.waitForConnections(1), background.output)
        XCTAssertTrue(background.waitFor("♪ "), "lyric lines print: \(background.output)")
        assertLeaves(background, .closeTerminal, "hosting, a lyrics fetch running in the background")

        let busy = try prompt(session: false)
        XCTAssertTrue(busy.waitFor("xzmusic> "), busy.output)
        busy.type("lyrics fetch --json --lyrics-server http://127.0.0.1:\(lyricsServer.port) Unsung")
        XCTAssertTrue(lyricsServer.waitForConnections(2), busy.output)
        assertLeaves(busy, .hangUp, "hosting, waiting on a lyrics server")
    }

    // MARK: Idle

    /// Over a minute at the prompt with nothing playing, a prompt attached to a host and a prompt that
    /// hosts use no more CPU than an idle `serve`; the prompts' own threads none.
    func testIdlePromptsSpendNoMoreThanAnIdleHost() throws {
        let host = try serve()
        let attached = try prompt(session: false)
        XCTAssertTrue(attached.waitFor("Attached to the running"), attached.output)
        let other = try TemporaryFolder("terminal-idle")
        var hostingEnvironment = environment
        hostingEnvironment["XZMUSIC_HOME"] = other.path("library")
        hostingEnvironment["XDG_RUNTIME_DIR"] = other.path("run")
        let hosting = try TerminalPrompt(binary: binary, environment: hostingEnvironment, session: false)
        XCTAssertTrue(hosting.waitFor("xzmusic> "), hosting.output)
        XCTAssertFalse(hosting.output.contains("Attached"), hosting.output)
        // Past the start-up work (the catalogue's first look, the demo's import).
        Thread.sleep(forTimeInterval: 2)

        let pids = ["serve": host.process.processIdentifier, "attached prompt": attached.pid, "hosting prompt": hosting.pid]
        let before = pids.mapValues(ThreadTicks.init(pid:))
        Thread.sleep(forTimeInterval: 60)
        var used: [String: ThreadTicks] = [:]
        for (name, pid) in pids { used[name] = ThreadTicks(pid: pid).since(before[name]!) }
        let report = used.sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.description)" }.joined(separator: "\n")
        print("CPU clock ticks in 60 s idle:\n\(report)")

        let serveTicks = used["serve"]!.total, attachedTicks = used["attached prompt"]!.total
        XCTAssertLessThanOrEqual(attachedTicks, 1, "an attached prompt waits without waking:\n\(report)")
        XCTAssertLessThanOrEqual(used["hosting prompt"]!.total, serveTicks + 2, "a hosting prompt is no busier than serve:\n\(report)")
        XCTAssertLessThanOrEqual(used["hosting prompt"]!.prompt, 1, "the prompt's own threads wait without waking:\n\(report)")
        for prompt in [attached, hosting] { assertLeaves(prompt, .closeTerminal, "idle for a minute") }
        stop(host)
    }

    // MARK: Helpers

    private func serve() throws -> RunningProcess {
        let host = try RunningProcess(binary, ["serve", "--no-tcp"], environment: environment)
        XCTAssertTrue(host.waitForOutput("hosting"), "host did not start: \(host.stderr)")
        return host
    }

    private func stop(_ host: RunningProcess) {
        host.signal(SIGTERM)
        XCTAssertEqual(host.finish(), 0)
    }

    private func prompt(session: Bool) throws -> TerminalPrompt {
        try TerminalPrompt(binary: binary, environment: environment, session: session)
    }

    /// A song with no lyrics anywhere, which `lyrics fetch` asks the server for.
    private func importSongWithoutLyrics() throws {
        let folder = temp.path("music")
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: "\(folder)/unsung.mp3", seconds: 1, tags: AudioFixtures.Tags(title: "Unsung", artist: "Nobody"))
        let imported = try xzmusic(["import", folder])
        XCTAssertEqual(imported.status, 0, imported.stderr)
    }

    /// The socket a hosting prompt listens on: the one file in the runtime folder's xzmusic folder.
    private func hostSocket() -> String? {
        let folder = temp.path("run/xzmusic")
        return (try? FileManager.default.contentsOfDirectory(atPath: folder))?.first { $0.hasSuffix(".sock") }
            .map { "\(folder)/\($0)" }
    }

    /// The prompt is gone within 1 s of losing its terminal (or of Ctrl-D), having used under 0.2 s of CPU since.
    private func assertLeaves(_ prompt: TerminalPrompt, _ way: TerminalPrompt.Loss, _ state: String,
                              file: StaticString = #filePath, line: UInt = #line) {
        let end = prompt.lose(way)
        XCTAssertLessThan(end.seconds, 1, "\(state): gone within 1 s of \(way); \(end.description)\n\(prompt.output)",
                          file: file, line: line)
        XCTAssertLessThan(end.cpuSeconds, 0.2, "\(state): CPU after \(way); \(end.description)", file: file, line: line)
        XCTAssertEqual(end.status, way == .endOfInput ? 0 : 128 + SIGHUP, "\(state): exit status; \(end.description)",
                       file: file, line: line)
    }
}

/// `xzmusic` on a pseudo-terminal the test holds the master of. `session`: the prompt's own session,
/// with the terminal as its controlling terminal, as in a terminal window (closing it sends SIGHUP);
/// otherwise the terminal is only its standard input and output.
final class TerminalPrompt {
    let pid: pid_t
    private var master: Int32
    private var read = Data()
    private var reaped = false

    enum Loss: CustomStringConvertible {
        /// The master closed (the terminal hangs up), SIGHUP alone, or Ctrl-D typed (which quits).
        case closeTerminal, hangUp, endOfInput
        var description: String {
            switch self {
            case .closeTerminal: "closing its terminal"
            case .hangUp: "SIGHUP"
            case .endOfInput: "Ctrl-D"
            }
        }
    }

    struct End: CustomStringConvertible {
        var seconds: Double
        var cpuSeconds: Double
        var status: Int32?
        var description: String {
            String(format: "ended after %.3f s, %.3f s of CPU, ", seconds, cpuSeconds) + (status.map { "exit status \($0)" } ?? "killed")
        }
    }

    init(binary: String, environment: [String: String], session: Bool) throws {
        // posix_openpt, unlockpt and ptsname by their Linux ioctls (TIOCSPTLCK, TIOCGPTN), which Swift's Glibc shows.
        master = open("/dev/ptmx", O_RDWR | O_NOCTTY | O_CLOEXEC)
        var unlock: Int32 = 0, number: UInt32 = 0
        guard master >= 0, ioctl(master, 0x4004_5431, &unlock) == 0, ioctl(master, 0x8004_5430, &number) == 0 else {
            throw TestFailure("no pseudo-terminal: \(String(cString: strerror(errno)))")
        }
        let name = "/dev/pts/\(number)"
        var size = winsize(ws_row: 40, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        _ = ioctl(master, UInt(TIOCSWINSZ), &size)
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        // Opened after setsid (the spawn's attribute), the terminal becomes the session's controlling one.
        posix_spawn_file_actions_addopen(&actions, 0, name, O_RDWR | (session ? 0 : O_NOCTTY), 0)
        posix_spawn_file_actions_adddup2(&actions, 0, 1)
        posix_spawn_file_actions_adddup2(&actions, 0, 2)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test runner ignores SIGPIPE and may block signals: the prompt starts as from a shell.
        var defaults = sigset_t(), none = sigset_t()
        sigfillset(&defaults)
        sigemptyset(&none)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK | (session ? 0x80 /* POSIX_SPAWN_SETSID */ : 0)))
        let arguments = [strdup(binary)] + [nil]
        let variables = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { (arguments + variables).forEach { free($0) } }
        var child: pid_t = 0
        let result = posix_spawn(&child, binary, &actions, &attributes, arguments, variables)
        guard result == 0 else { throw TestFailure("cannot start \(binary): \(String(cString: strerror(result)))") }
        pid = child
    }

    deinit {
        if !reaped {
            kill(pid, SIGKILL)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
        }
        if master >= 0 { close(master) }
    }

    /// What the prompt printed so far, escape sequences and all.
    var output: String {
        drain(waiting: 0)
        return String(decoding: read, as: UTF8.self)
    }

    /// Types a line and Enter.
    func type(_ line: String) {
        let bytes = Array((line + "\r").utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// True once the prompt has printed `text`; reading also keeps the terminal from filling up.
    func waitFor(_ text: String, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if String(decoding: read, as: UTF8.self).contains(text) { return true }
            drain(waiting: 50)
        }
        return String(decoding: read, as: UTF8.self).contains(text)
    }

    private func drain(waiting milliseconds: Int32) {
        guard master >= 0 else { return }
        var wait = milliseconds
        while true {
            var fd = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&fd, 1, wait) > 0, fd.revents & Int16(POLLIN) != 0 else { return }
            var chunk = [UInt8](repeating: 0, count: 4096)
            let count = chunk.withUnsafeMutableBytes { Glibc.read(master, $0.baseAddress, $0.count) }
            guard count > 0 else { return }
            read.append(contentsOf: chunk[..<count])
            wait = 0
        }
    }

    /// Takes the terminal away and waits (3 s at most, then kills) for the prompt to end; how long that
    /// took and the CPU it used meanwhile.
    func lose(_ way: Loss) -> End {
        drain(waiting: 0)
        let before = ThreadTicks(pid: pid).total
        let start = DispatchTime.now()
        switch way {
        case .closeTerminal:
            close(master)
            master = -1
        case .hangUp:
            kill(pid, SIGHUP)
        case .endOfInput:
            var byte: UInt8 = 4
            _ = write(master, &byte, 1)
        }
        var status: Int32 = 0
        var usage = rusage()
        var seconds: Double { Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9 }
        while wait4(pid, &status, WNOHANG, &usage) == 0 {
            if seconds > 3 {
                let used = Double(ThreadTicks(pid: pid).total - before) / ThreadTicks.perSecond
                kill(pid, SIGKILL)
                wait4(pid, &status, 0, &usage)
                reaped = true
                return End(seconds: seconds, cpuSeconds: used, status: nil)
            }
            usleep(5000)
        }
        let elapsed = seconds
        reaped = true
        let total = Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let exited = status & 0x7f == 0
        return End(seconds: elapsed, cpuSeconds: max(0, total - Double(before) / ThreadTicks.perSecond),
                   status: exited ? (status >> 8) & 0xff : nil)
    }
}

/// CPU clock ticks (user + system) of a process, per thread (named `NAME TID`).
struct ThreadTicks: CustomStringConvertible {
    static let perSecond = Double(sysconf(Int32(_SC_CLK_TCK)))
    var byThread: [String: Int] = [:]
    private var pid: pid_t = 0

    init(pid: pid_t) {
        self.pid = pid
        let folder = "/proc/\(pid)/task"
        for tid in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let stat = try? String(contentsOfFile: "\(folder)/\(tid)/stat", encoding: .utf8),
                  let open = stat.firstIndex(of: "("), let close = stat.lastIndex(of: ")") else { continue }
            let name = String(stat[stat.index(after: open)..<close])
            let fields = stat[stat.index(close, offsetBy: 2)...].split(separator: " ")
            guard fields.count > 12, let user = Int(fields[11]), let system = Int(fields[12]) else { continue }
            byThread["\(name) \(tid)", default: 0] += user + system
        }
    }

    private init(pid: pid_t, byThread: [String: Int]) {
        self.pid = pid
        self.byThread = byThread
    }

    var total: Int { byThread.values.reduce(0, +) }

    /// The threads of the prompt itself: the main thread (the line editor), the terminal watch, the
    /// signal thread, the followers of another host.
    var prompt: Int {
        byThread.filter { $0.key.hasSuffix(" \(pid)") || $0.key.hasPrefix("xz-") }.values.reduce(0, +)
    }

    func since(_ earlier: ThreadTicks) -> ThreadTicks {
        ThreadTicks(pid: pid, byThread: byThread.merging(earlier.byThread.mapValues { -$0 }, uniquingKeysWith: +))
    }

    var description: String {
        "\(total) ticks (" + byThread.filter { $0.value != 0 }.sorted { $0.value > $1.value }
            .map { "\($0.key): \($0.value)" }.joined(separator: ", ") + ")"
    }
}

/// A listening socket that accepts and never says a word: a host whose loop is stuck before its greeting,
/// or a server that never answers.
final class SilentListener: @unchecked Sendable {
    private let listener: Int32
    private let lock = NSLock()
    private var accepted: [Int32] = []
    private var stopped = false
    private(set) var port = 0
    private let path: String?

    init(unixPath: String) throws {
        path = unixPath
        unlink(unixPath)
        listener = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: Array(unixPath.utf8).prefix(raw.count - 1))
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw TestFailure("cannot listen on \(unixPath)") }
        start()
    }

    init(tcp: Void) throws {
        path = nil
        listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(listener, pointer, length) == 0 && listen(listener, 16) == 0 && getsockname(listener, pointer, &length) == 0
            }
        }
        guard bound else { throw TestFailure("cannot listen on 127.0.0.1") }
        port = Int(UInt16(bigEndian: address.sin_port))
        start()
    }

    private func start() {
        Thread.detachNewThread { [self] in
            while true {
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                lock.lock()
                accepted.append(connection)
                lock.unlock()
            }
        }
    }

    /// True once `count` connections came (in all).
    func waitForConnections(_ count: Int, timeout: TimeInterval = 20) -> Bool {
        eventually(timeout: timeout) { lock.lock(); defer { lock.unlock() }; return accepted.count >= count }
    }

    func stop() {
        lock.lock()
        defer { lock.unlock() }
        guard !stopped else { return }
        stopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        accepted.forEach { close($0) }
        if let path { unlink(path) }
    }
}

/// A protocol client waiting in `idle` on a host's Unix socket.
final class IdleClient {
    private let fd: Int32

    init?(unixPath: String) {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in raw.copyBytes(from: Array(unixPath.utf8).prefix(raw.count - 1)) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard connected == 0, Self.readLine(fd, timeout: 5)?.hasPrefix("OK MPD") == true else {
            close(fd)
            return nil
        }
        _ = "idle\n".withCString { send(fd, $0, 5, Int32(MSG_NOSIGNAL)) }
    }

    deinit { close(fd) }

    /// True when the host closed the connection within `seconds` (an `idle` answer first is allowed).
    func seesTheEnd(within seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var chunk = [UInt8](repeating: 0, count: 4096)
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            let count = recv(fd, &chunk, chunk.count, 0)
            if count <= 0 { return true }
        }
        return false
    }

    private static func readLine(_ fd: Int32, timeout: TimeInterval) -> String? {
        var line: [UInt8] = []
        let deadline = Date(timeIntervalSinceNow: timeout)
        var byte: UInt8 = 0
        while Date() < deadline {
            var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 100) > 0 else { continue }
            guard recv(fd, &byte, 1, 0) == 1 else { return nil }
            if byte == 0x0A { return String(decoding: line, as: UTF8.self) }
            line.append(byte)
        }
        return nil
    }
}
