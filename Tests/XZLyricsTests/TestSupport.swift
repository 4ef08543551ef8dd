import Foundation
import XCTest
@testable import XZLyrics
import XZTestSupport
import XZCorpusTestSupport

struct FixtureError: Error, CustomStringConvertible {
    let description: String
}

/// Files of the public LRC corpora, read in place; a missing one skips the test.
enum Corpus {
    /// `path` is "corpus-folder/file inside it".
    static func bytes(_ path: String) throws -> [UInt8] {
        let parts = path.split(separator: "/", maxSplits: 1).map(String.init)
        let url = try Corpora.require(parts[0], files: [parts[1]]).appendingPathComponent(parts[1])
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw FixtureError(description: "unreadable fixture \(url.path)")
        }
        return [UInt8](data)
    }

    static func json(_ path: String) throws -> [String: Any] {
        let data = Data(try bytes(path))
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw FixtureError(description: "\(path) is not a JSON object")
        }
        return object
    }
}

/// Fixture seconds to milliseconds (their decimals are exact to the millisecond).
func ms(_ seconds: Any?) -> Int? {
    if let n = seconds as? NSNumber { return Int((n.doubleValue * 1000).rounded()) }
    return nil
}

func ms(_ seconds: Double) -> Int { Int((seconds * 1000).rounded()) }

/// [min, sec, ms] triples of the lrcparser_python fixture.
func ms(triple: Any?) -> Int? {
    guard let parts = triple as? [Int], parts.count == 3 else { return nil }
    return parts[0] * 60_000 + parts[1] * 1000 + parts[2]
}

/// (time, text) pairs, for compact comparisons.
func pairs(_ doc: LRCDocument) -> [Pair] {
    doc.lines.map { Pair($0.timeMs, $0.text) }
}

struct Pair: Equatable, CustomStringConvertible {
    let ms: Int
    let text: String
    init(_ ms: Int, _ text: String) { self.ms = ms; self.text = text }
    var description: String { "(\(ms), \(text.debugDescription))" }
}

func trimmed(_ s: String) -> String { s.trimmingCharacters(in: .whitespacesAndNewlines) }

/// Runs `body`, fails when it takes longer than `limit` seconds (only to catch quadratic blow-ups).
func assertFinishes<T>(within limit: Double, _ what: String, file: StaticString = #filePath, line: UInt = #line,
                       _ body: () -> T) -> T {
    let start = DispatchTime.now().uptimeNanoseconds
    let result = body()
    let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    XCTAssertLessThan(seconds, limit, "\(what) took \(seconds) s", file: file, line: line)
    return result
}

/// Converts with the system iconv, as a separate process, so the test does not trust the code under test.
func iconv(_ text: String, to encoding: String) throws -> [UInt8] {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["iconv", "-f", "UTF-8", "-t", encoding]
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    input.fileHandleForWriting.write(Data(text.utf8))
    try input.fileHandleForWriting.close()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw FixtureError(description: "iconv to \(encoding) failed with status \(process.terminationStatus)")
    }
    return [UInt8](data)
}
