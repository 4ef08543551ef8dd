import Foundation
import XZSystem
import XZTestSupport

/// The music folder's watch: a 500-file album copied into the folder a host serves, timed from the last
/// write of the copy to the `changed: database` an idle client gets once every file is in the catalogue.
extension ServerBenchmark {
    static let albumSize = 500

    /// Seconds from the copy's last write to the idle answer after which the host lists all the album's
    /// songs (a copy that pauses may be seen in more than one update; the last one counts). The copy is
    /// removed again afterwards, and the host is left to drop its songs.
    func albumCopyToIdle(port: Int, music: URL) throws -> Double {
        let album = try makeAlbum()
        let target = music.appendingPathComponent("Watched Album \(UUID().uuidString.prefix(8))")
        let before = try songCount(port: port)
        let idle = try ProtocolConnection(port: port)
        let answered = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<UInt64, any Error>?>(nil)
        Thread.detachNewThread {
            do {
                let check = try ProtocolConnection(port: port)
                while true {
                    _ = try idle.text("idle database")
                    let now = DispatchTime.now().uptimeNanoseconds
                    if try songCount(port: port, connection: check) >= before + Self.albumSize {
                        outcome.withLock { $0 = .success(now) }
                        break
                    }
                }
            } catch {
                outcome.withLock { $0 = .failure(error) }
            }
            answered.signal()
        }
        // The idle request has reached the host before the first file lands.
        Thread.sleep(forTimeInterval: 0.2)
        try FileManager.default.createDirectory(at: target, withIntermediateDirectories: false)
        for name in try FileManager.default.contentsOfDirectory(atPath: album.path).sorted() where name.hasSuffix(".mp3") {
            try FileManager.default.copyItem(at: album.appendingPathComponent(name), to: target.appendingPathComponent(name))
        }
        let lastWrite = DispatchTime.now().uptimeNanoseconds
        defer { try? FileManager.default.removeItem(at: target) }
        guard answered.wait(timeout: .now() + 60) == .success else {
            throw benchFailure("no changed: database with the whole album 60 s after the copy")
        }
        let idleAnswered = try outcome.withLock { $0 }!.get()
        try FileManager.default.removeItem(at: target)
        // The next run counts from the catalogue without this album.
        let deadline = Date(timeIntervalSinceNow: 60)
        while try songCount(port: port) != before {
            guard Date() < deadline else { throw benchFailure("the removed album's songs still listed after 60 s") }
            Thread.sleep(forTimeInterval: 0.1)
        }
        return idleAnswered > lastWrite ? Double(idleAnswered - lastWrite) / 1e9 : 0
    }

    /// Only the album copy row, on a host of its own over an empty music folder.
    func albumCopyOnly() throws {
        let state = folder.appendingPathComponent("watch")
        try? FileManager.default.removeItem(at: state)
        let runtime = state.appendingPathComponent("runtime")
        let music = state.appendingPathComponent("music")
        try FileManager.default.createDirectory(at: runtime, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        try FileManager.default.createDirectory(at: music, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: state.appendingPathComponent("xzmusic"), withIntermediateDirectories: true)
        try "music_directory = \(music.path)\n".write(to: state.appendingPathComponent("xzmusic/config"),
                                                       atomically: true, encoding: .utf8)
        let environment = ProcessInfo.processInfo.environment.merging(
            ["XDG_RUNTIME_DIR": runtime.path, "XDG_CONFIG_HOME": state.path, "XZMUSIC_DEMO": ""]) { $1 }
        let port = try freeLoopbackPort()
        let host = try RunningProcess(xzmusic, ["serve", "--output", "null", "--port", "\(port)", "--library",
                                                state.appendingPathComponent("library").path], environment: environment)
        defer {
            host.signal(SIGTERM)
            _ = host.finish(timeout: 10)
        }
        guard host.waitForOutput("xzmusic: hosting", timeout: 30) else { throw benchFailure("xzmusic serve did not start") }
        printAlbumCopyRow(try (0..<3).map { _ in try albumCopyToIdle(port: port, music: music) })
    }

    func printAlbumCopyRow(_ runs: [Double]) {
        let figures = runs.map { String(format: "%.2f", $0) }.joined(separator: ", ")
        print("\(Self.albumSize)-file album copied in, last write to changed: database with all its songs, s: "
            + "\(figures)  (goal < 2 s) \(runs.allSatisfy { $0 < 2 } ? "met" : "MISSED")")
    }

    private func songCount(port: Int, connection: ProtocolConnection? = nil) throws -> Int {
        let stats = try (connection ?? ProtocolConnection(port: port)).text("stats")
        let line = stats.split(separator: "\n").first { $0.hasPrefix("songs: ") }
        return line.flatMap { Int($0.dropFirst(7)) } ?? 0
    }

    /// `albumSize` tagged MP3 files of a few seconds each, made once with sox and lame and kept under
    /// bench-data between runs.
    private func makeAlbum() throws -> URL {
        let album = folder.appendingPathComponent("album-\(Self.albumSize)")
        let done = folder.appendingPathComponent("album-\(Self.albumSize).done")
        if FileManager.default.fileExists(atPath: done.path) { return album }
        try? FileManager.default.removeItem(at: album)
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let encoded = folder.appendingPathComponent("album-unit.mp3").path
        try AudioFixtures.makeMP3(at: encoded, seconds: 3, lameOptions: ["-b", "128"])
        let audio = try Data(contentsOf: URL(fileURLWithPath: encoded))
        for track in 1...Self.albumSize {
            var data = Data(ID3v23.tag([("TIT2", "Watched \(track)"), ("TPE1", "Copy Band"), ("TALB", "Watched Album"),
                                        ("TRCK", "\(track)/\(Self.albumSize)")]))
            data.append(audio)
            try data.write(to: album.appendingPathComponent(String(format: "%03d Watched %d.mp3", track, track)))
        }
        try Data().write(to: done)
        return album
    }
}
