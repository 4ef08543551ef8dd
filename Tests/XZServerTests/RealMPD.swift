import Foundation
import XCTest
import XZProtocol
@testable import XZServer
import XZTestSupport
import XZHostCore
import XZMPDCommands
#if canImport(Glibc)
import Glibc
#endif

/// Debian's real MPD (null output, software mixer) on a folder of the test's, with its database
/// updated, its playlist folder and sticker file where the test says.
final class RealMPD {
    let process: RunningProcess
    let port: Int

    /// `launcher`: a program that runs MPD (its path and arguments following), as a wrapper of the test's.
    init(folder: TemporaryFolder, music: URL, playlists: String, label: String = "mpd", extraConfig: String = "",
         launcher: String? = nil) throws {
        port = try Self.freePort()
        try FileManager.default.createDirectory(atPath: playlists, withIntermediateDirectories: true)
        let config = """
            music_directory "\(music.path)"
            playlist_directory "\(playlists)"
            db_file "\(folder.path("\(label).db"))"
            sticker_file "\(folder.path("\(label)-sticker.sql"))"
            pid_file "\(folder.path("\(label).pid"))"
            bind_to_address "127.0.0.1"
            port "\(port)"
            audio_output {
                type "null"
                name "Null Output"
                mixer_type "software"
            }
            \(extraConfig)
            """
        try config.write(toFile: folder.path("\(label).conf"), atomically: true, encoding: .utf8)
        let command = [try TestProcess.which("mpd"), "--no-daemon", folder.path("\(label).conf")]
        process = try RunningProcess(launcher ?? command[0], launcher == nil ? Array(command.dropFirst()) : command,
                                     environment: ProcessInfo.processInfo.environment)
        let deadline = Date(timeIntervalSinceNow: 10)
        while (try? MPDClient.connect(host: "127.0.0.1", port: port)) == nil, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
        }
        _ = try connect()
        try TestProcess.runChecked("mpc", ["-p", "\(port)", "update", "--wait"])
    }

    func connect() throws -> MPDClient {
        do {
            return try MPDClient.connect(host: "127.0.0.1", port: port)
        } catch {
            throw TestFailure("mpd did not start: \(process.stderr)")
        }
    }

    func stop() {
        process.signal(SIGTERM)
        _ = process.finish()
    }

    /// A port nobody listens on right now.
    static func freePort() throws -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Int32 in
                _ = bind(fd, pointer, length)
                return getsockname(fd, pointer, &length)
            }
        }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// The answer's lines, or its ACK as one line, less what only one server can know (times, ids, formats).
    static func answer(_ client: MPDClient, _ line: String) -> [String] {
        do {
            try client.sendLine(line)
            return try client.readResponse().map { "\($0.key): \($0.value)" }
                .filter { !["Format", "duration", "bitrate", "audio", "elapsed", "time", "Last-Modified", "uptime",
                            "playtime", "db_update", "Id", "songid", "nextsongid"]
                    .contains(String($0.prefix { $0 != ":" })) }
        } catch let error as MPDError {
            return ["ACK \(error.code.rawValue) {\(error.command ?? "")} \(error.message)"]
        } catch {
            return ["\(error)"]
        }
    }
}
