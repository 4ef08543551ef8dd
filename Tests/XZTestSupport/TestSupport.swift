import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The repository root, found from this file's path.
package enum TestPaths {
    /// Symlinks resolved, so a side package that links to this folder still finds the real repository.
    package static let repositoryRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// Where SwiftPM put the built products (the `xzmusic` executable among them).
    package static var products: URL {
        Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
            ?? Bundle.main.bundleURL
    }
}

/// A test precondition that did not hold, in words.
package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// A fresh folder for one test, removed on deinit. XCTest keeps every test case alive until the process
/// ends, so a folder a test case holds would outlive its test: every folder is made inside the process's
/// `TestTemporaryRoot`, which goes at exit.
package final class TemporaryFolder: Sendable {
    package let url: URL

    package init(_ label: String = "test") throws {
        // A short unique name: sockets made inside must stay within the 108 bytes of a Unix socket path.
        var template = Array(try TestTemporaryRoot.url().appendingPathComponent("\(label)-XXXXXX").path.utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer in mkdtemp(buffer.baseAddress!).map { String(cString: $0) } }
        guard let made else {
            throw TestFailure("cannot make a temporary folder for \(label): \(String(cString: strerror(errno)))")
        }
        url = URL(fileURLWithPath: made)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    package func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

/// One folder per test process under the system temporary directory (`xzmusic-tests-PID`), removed at
/// exit; a run that was killed leaves its folder, and the next run removes it.
package enum TestTemporaryRoot {
    static let prefix = "xzmusic-tests-"
    private static let made: Result<URL, Error> = Result {
        let temporary = FileManager.default.temporaryDirectory
        removeFoldersOfEndedRuns(in: temporary)
        let root = temporary.appendingPathComponent("\(prefix)\(getpid())")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        atexit { TestTemporaryRoot.remove() }
        return root
    }

    package static func url() throws -> URL { try made.get() }

    private static func remove() {
        if case .success(let root) = made { try? FileManager.default.removeItem(at: root) }
    }

    private static func removeFoldersOfEndedRuns(in temporary: URL) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix(prefix) {
            guard let pid = pid_t(name.dropFirst(prefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            try? FileManager.default.removeItem(at: temporary.appendingPathComponent(name))
        }
    }
}

package struct ProcessResult {
    package let status: Int32
    package let stdout: String
    package let stderr: String
    package let stdoutData: Data
}

package enum TestProcess {
    /// Runs a program to its end; stdin from `input`, output captured.
    @discardableResult
    package static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
                           environment: [String: String]? = nil, currentDirectory: URL? = nil) throws -> ProcessResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable.hasPrefix("/") ? executable : try which(executable))
        process.arguments = arguments
        if let environment { process.environment = environment }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe(), err = Pipe(), inPipe = Pipe()
        process.standardOutput = out
        process.standardError = err
        process.standardInput = inPipe
        try process.run()
        // Read both pipes concurrently so a chatty child never blocks on a full pipe.
        final class Box: @unchecked Sendable { var data = Data() }
        let outBox = Box(), errBox = Box()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) { outBox.data = out.fileHandleForReading.readDataToEndOfFile() }
        DispatchQueue.global().async(group: group) { errBox.data = err.fileHandleForReading.readDataToEndOfFile() }
        if let input { inPipe.fileHandleForWriting.write(input) }
        try? inPipe.fileHandleForWriting.close()
        process.waitUntilExit()
        group.wait()
        let outData = outBox.data, errData = errBox.data
        return ProcessResult(status: process.terminationStatus,
                             stdout: String(decoding: outData, as: UTF8.self),
                             stderr: String(decoding: errData, as: UTF8.self), stdoutData: outData)
    }

    /// `run`, but a non-zero exit status throws a TestFailure with the command line and its stderr.
    @discardableResult
    package static func runChecked(_ executable: String, _ arguments: [String], input: Data? = nil,
                                  environment: [String: String]? = nil, currentDirectory: URL? = nil) throws -> ProcessResult {
        let result = try run(executable, arguments, input: input, environment: environment, currentDirectory: currentDirectory)
        guard result.status == 0 else {
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result
    }

    package static func which(_ name: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NSError(domain: "TestProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) not on PATH"])
    }
}

/// MP3 files made at test time with sox and lame.
package enum AudioFixtures {
    package struct Tags {
        package var title: String?
        package var artist: String?
        package var album: String?
        package var track: Int?
        package var year: Int?
        package init(title: String? = nil, artist: String? = nil, album: String? = nil, track: Int? = nil, year: Int? = nil) {
            self.title = title; self.artist = artist; self.album = album; self.track = track; self.year = year
        }
    }

    /// A sine tone of `seconds` encoded by lame with `lameOptions`; ID3v2 tags (UTF-16) when given.
    @discardableResult
    package static func makeMP3(at path: String, seconds: Double = 2, frequency: Int = 440, rate: Int = 44_100,
                               channels: Int = 2, tags: Tags? = nil, lameOptions: [String] = ["-b", "128"]) throws -> String {
        let wav = path + ".wav"
        defer { try? FileManager.default.removeItem(atPath: wav) }
        try TestProcess.runChecked("sox", ["-n", "-r", "\(rate)", "-c", "\(channels)", "-b", "16", wav,
                                           "synth", "\(seconds)", "sine", "\(frequency)", "vol", "0.5"])
        var arguments = ["--quiet"] + lameOptions
        if let tags {
            arguments += ["--id3v2-only", "--id3v2-utf16"]
            if let v = tags.title { arguments += ["--tt", v] }
            if let v = tags.artist { arguments += ["--ta", v] }
            if let v = tags.album { arguments += ["--tl", v] }
            if let v = tags.track { arguments += ["--tn", "\(v)"] }
            if let v = tags.year { arguments += ["--ty", "\(v)"] }
        }
        try TestProcess.runChecked("lame", arguments + [wav, path])
        return path
    }
}

/// Builds ID3 tags byte by byte, for cases lame cannot write (USLT, Latin-1 GBK, v2.4 dates and value
/// lists, pictures).
package enum ID3Builder {
    package enum Encoding: UInt8 { case latin1 = 0, utf16 = 1, utf8 = 3 }

    package static func text(_ id: String, _ encoding: Encoding, _ payload: [UInt8]) -> (String, [UInt8]) {
        (id, [encoding.rawValue] + payload)
    }

    /// UTF-16 with a little-endian BOM, as most taggers write it.
    package static func utf16(_ s: String) -> [UInt8] {
        [0xFF, 0xFE] + s.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    package static func lyrics(_ text: String, language: String = "eng") -> (String, [UInt8]) {
        // encoding, language, empty description (UTF-16: BOM + 00 00), text
        ("USLT", [Encoding.utf16.rawValue] + Array(language.utf8) + [0xFF, 0xFE, 0, 0] + utf16(text))
    }

    package static func tag(version: UInt8, frames: [(String, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (id, data) in frames {
            body += Array(id.utf8)
            body += version == 4 ? synchsafe(data.count) : bigEndian(data.count)
            body += [0, 0]
            body += data
        }
        return Array("ID3".utf8) + [version, 0, 0] + synchsafe(body.count) + body
    }

    package static func v1(title: [UInt8], artist: [UInt8], album: [UInt8], year: String, track: UInt8) -> [UInt8] {
        func field(_ b: [UInt8], _ n: Int) -> [UInt8] { Array(b.prefix(n)) + [UInt8](repeating: 0, count: max(0, n - b.count)) }
        return Array("TAG".utf8) + field(title, 30) + field(artist, 30) + field(album, 30)
            + field(Array(year.utf8), 4) + field([], 28) + [0, track] + [255]
    }

    package static func synchsafe(_ n: Int) -> [UInt8] {
        [UInt8((n >> 21) & 0x7F), UInt8((n >> 14) & 0x7F), UInt8((n >> 7) & 0x7F), UInt8(n & 0x7F)]
    }

    package static func bigEndian(_ n: Int) -> [UInt8] {
        [UInt8((n >> 24) & 0xFF), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)]
    }


    /// A text frame holding several values, NUL-separated (ID3v2.4 value lists), in UTF-8.
    package static func list(_ id: String, _ values: [String]) -> (String, [UInt8]) {
        (id, [Encoding.utf8.rawValue] + Array(values.joined(separator: "\0").utf8))
    }

    /// An APIC frame: UTF-8, MIME type, picture type (3 = front cover), empty description, the bytes.
    package static func picture(mimeType: String, type: UInt8 = 3, data: [UInt8]) -> (String, [UInt8]) {
        ("APIC", [Encoding.utf8.rawValue] + Array(mimeType.utf8) + [0, type, 0] + data)
    }

    /// An MP3 made by `AudioFixtures.makeMP3` without tags, then given this ID3v2 tag in front.
    @discardableResult
    package static func makeTaggedMP3(at path: String, seconds: Double = 1, version: UInt8 = 4,
                                     frames: [(String, [UInt8])]) throws -> String {
        try AudioFixtures.makeMP3(at: path, seconds: seconds)
        let audio = try Data(contentsOf: URL(fileURLWithPath: path))
        try (Data(tag(version: version, frames: frames)) + audio).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Polls `condition` until it holds or `timeout` passes; whether it held.
package func eventually(timeout: TimeInterval = 5, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while try !condition() {
        guard Date() < deadline else { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
    return true
}
