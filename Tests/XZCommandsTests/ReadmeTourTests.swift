import Foundation
import XCTest
import XZTestSupport

/// The README's short tour, read from the README itself and typed into one prompt on a fresh demo
/// library: every command of it must answer something, and no answer may be an error.
final class ReadmeTourTests: LibraryProcessTestCase {
    override func setUpWithError() throws {
        temp = try TemporaryFolder("tour")
    }

    override func tearDown() {
        temp = nil
    }

    /// The commands of the tour block, in order: each `xzmusic> ` line without its comment, split at
    /// ` | ` into the commands it shows side by side.
    static func tourCommands(_ readme: String) throws -> [String] {
        guard let heading = readme.range(of: "\n## A short tour\n"),
              let open = readme.range(of: "```text\n", range: heading.upperBound..<readme.endIndex),
              let close = readme.range(of: "\n```", range: open.upperBound..<readme.endIndex)
        else { throw TestFailure("README has no tour block under \"## A short tour\"") }
        return readme[open.upperBound..<close.lowerBound].split(separator: "\n").flatMap { line -> [String] in
            guard line.hasPrefix("xzmusic> ") else { return [] }
            return pieces(String(line.dropFirst("xzmusic> ".count)))
        }
    }

    /// `text` up to a ` #` comment, cut at `|`; quotes protect both.
    private static func pieces(_ text: String) -> [String] {
        var pieces: [String] = [], current = "", quote: Character? = nil, previous: Character = " "
        for character in text {
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "#" && previous.isWhitespace {
                break
            } else if character == "|" {
                pieces.append(current)
                current = ""
                previous = character
                continue
            }
            current.append(character)
            previous = character
        }
        pieces.append(current)
        return pieces.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func testTheTourBlockIsRead() throws {
        let readme = "intro\n## A short tour\n\n```text\n$ make run\nxzmusic> search zjl   # initials\n"
            + "                     # more comment\nxzmusic> find \"(Genre == 'Pop')\" # exact\n"
            + "xzmusic> pause | next\nxzmusic> add \"a | b\"\n```\n```text\nxzmusic> not this\n```\n"
        XCTAssertEqual(try Self.tourCommands(readme),
                       ["search zjl", "find \"(Genre == 'Pop')\"", "pause", "next", "add \"a | b\""])
    }

    func testEveryTourCommandAnswersOnAFreshDemo() throws {
        let readme = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        let commands = try Self.tourCommands(readme).filter { $0 != "quit" }
        XCTAssertGreaterThan(commands.count, 20)
        // `import ~/Music` scans the home's Music folder: a home of the test's own with one song in it.
        let home = temp.url.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home.appendingPathComponent("Music"), withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: home.appendingPathComponent("Music/tour.mp3").path, seconds: 1,
                                  tags: .init(title: "Tour Song", artist: "Tour Singer"))
        var environment = self.environment
        environment["HOME"] = home.path
        // `catalogue search archive …` asks an Internet Archive of the test's own, on loopback.
        let archive = try TestHTTPServer(handler: Self.archive)
        defer { archive.stop() }
        try FileManager.default.createDirectory(atPath: temp.path("config/xzmusic"), withIntermediateDirectories: true)
        try "archive_url = \(archive.base)\n".write(toFile: temp.path("config/xzmusic/config"), atomically: true, encoding: .utf8)

        // After each command an unknown word, whose error line marks where that command's answer ends.
        let prompt = try RunningProcess(binary, [], environment: environment)
        defer { if prompt.process.isRunning { prompt.signal(SIGKILL) } }
        var outputSeen = 0, errorsSeen = 0
        for (index, command) in commands.enumerated() {
            prompt.send(command)
            // Player commands may confirm in a line a moment later, from the player.
            _ = eventually(timeout: 10) { prompt.stdout.utf8.count > outputSeen || prompt.stderr.utf8.count > errorsSeen }
            let marker = "unknown command 'tour-step-\(index)'"
            prompt.send("tour-step-\(index)")
            guard eventually(timeout: 30, { prompt.stderr.contains(marker) }) else {
                XCTFail("no answer to `\(command)`; the prompt wrote:\n\(prompt.stdout)\n\(prompt.stderr)")
                return
            }
            let output = prompt.stdout, errors = prompt.stderr
            let answer = (String(decoding: Array(output.utf8.dropFirst(outputSeen)), as: UTF8.self)
                + String(decoding: Array(errors.utf8.dropFirst(errorsSeen)), as: UTF8.self))
                .split(separator: "\n").map(Self.plain).filter { !$0.contains(marker) }
            outputSeen = output.utf8.count
            errorsSeen = errors.utf8.count
            let lines = answer.filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            XCTAssertFalse(lines.isEmpty, "`\(command)` answered nothing")
            XCTAssertEqual(lines.filter { $0.hasPrefix("error:") || $0.hasPrefix("No matches") }, [], "`\(command)`")
        }
        prompt.send("quit")
        XCTAssertEqual(prompt.finish(), 0, prompt.stderr)
    }

    /// An Internet Archive holding one netlabel item of one MP3, answering whatever is searched.
    private static let archive: TestHTTPServer.Handler = { request, _ in
        switch request.path {
        case "/advancedsearch.php":
            return .json(200, ["response": ["numFound": 1, "start": 0, "docs": [["identifier": "tour_ep"]]]])
        case "/metadata/tour_ep":
            return .json(200, [
                "metadata": ["identifier": "tour_ep", "title": "Tour EP", "creator": "Loop Band",
                             "licenseurl": "https://creativecommons.org/licenses/by/3.0/"],
                "files": [["name": "01 Loop.mp3", "format": "VBR MP3", "title": "Loop", "creator": "Loop Band",
                           "track": "1", "length": "60.0", "size": "960000"]],
            ])
        default:
            return .text(404, "not found")
        }
    }

    /// A line without carriage returns and terminal escapes (progress lines rewrite themselves).
    private static func plain(_ line: Substring) -> String {
        let text = String(line.split(separator: "\r", omittingEmptySubsequences: false).last ?? "")
        return text.replacingOccurrences(of: "\u{1B}[2K", with: "")
    }
}
