import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The repository root and the shared corpora beside it, found from this file's path.
public enum TestPaths {
    /// Symlinks resolved, so a side package that links to this folder still finds the real repository.
    public static let repositoryRoot = URL(fileURLWithPath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let corpora = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
    /// Where SwiftPM put the built products (the `xzmusic` executable among them).
    public static var products: URL {
        Bundle.allBundles.first { $0.bundlePath.hasSuffix(".xctest") }?.bundleURL.deletingLastPathComponent()
            ?? Bundle.main.bundleURL
    }

    /// `url` when it is an existing folder (a corpus, say); otherwise a TestFailure naming it.
    public static func requireDirectory(_ url: URL) throws -> URL {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDir), isDir.boolValue else {
            throw TestFailure("corpus folder missing: \(url.path)")
        }
        return url
    }
}

/// A test precondition that did not hold, in words.
public struct TestFailure: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// A fresh folder under the system temporary directory, removed on deinit.
public final class TemporaryFolder {
    public let url: URL

    public init(_ label: String = "test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("xzmusic-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }
}

public struct ProcessResult {
    public let status: Int32
    public let stdout: String
    public let stderr: String
    public let stdoutData: Data
}

public enum TestProcess {
    /// Runs a program to its end; stdin from `input`, output captured.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], input: Data? = nil,
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
    public static func runChecked(_ executable: String, _ arguments: [String], input: Data? = nil,
                                  environment: [String: String]? = nil, currentDirectory: URL? = nil) throws -> ProcessResult {
        let result = try run(executable, arguments, input: input, environment: environment, currentDirectory: currentDirectory)
        guard result.status == 0 else {
            throw TestFailure("\(executable) \(arguments.joined(separator: " ")) exited \(result.status): \(result.stderr)")
        }
        return result
    }

    public static func which(_ name: String) throws -> String {
        for dir in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = "\(dir)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        throw NSError(domain: "TestProcess", code: 1, userInfo: [NSLocalizedDescriptionKey: "\(name) not on PATH"])
    }
}

/// MP3 files made at test time with sox and lame.
public enum AudioFixtures {
    public struct Tags {
        public var title: String?
        public var artist: String?
        public var album: String?
        public var track: Int?
        public var year: Int?
        public init(title: String? = nil, artist: String? = nil, album: String? = nil, track: Int? = nil, year: Int? = nil) {
            self.title = title; self.artist = artist; self.album = album; self.track = track; self.year = year
        }
    }

    /// A sine tone of `seconds` encoded by lame with `lameOptions`; ID3v2 tags (UTF-16) when given.
    @discardableResult
    public static func makeMP3(at path: String, seconds: Double = 2, frequency: Int = 440, rate: Int = 44_100,
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
