import Foundation
import XZFuzzSupport
import XZMPDCommands
import XZProtocol

/// Request lines made from the command table: its names, each row's sample arguments with the library's
/// names filled in, numbers at the edges, hostile names, and the session's own commands.
struct Grammar {
    let names: [String]
    let samples: [String: [[String]]]
    let library: [String: [String]]

    /// Names that try to leave the music folder, and strings parsers choke on.
    let hostileArguments: [String]

    /// `root`: the absolute path of the folder holding the music folder and the one beside it.
    init(names: [String], samples: [String: [[String]]], library: [String: [String]], root: String) {
        self.names = names
        self.library = library
        let alias = FuzzFolder.outsideAlias
        let outside = root + "/" + alias
        hostileArguments = [
            "..", "../", "../\(alias)", "../\(alias)/song.mp3", "../\(alias)/cover.jpg",
            "album/../../\(alias)", "%2e%2e/\(alias)", "xzmusic-catalogue/../\(alias)",
            "xzmusic-catalogue/", "xzmusic-catalogue/etc", "xzmusic-catalogue\(outside)", "xzmusic-catalogue\(outside)/song.mp3",
            root, "file://\(root)/", "\(outside)/song.mp3", "file://\(outside)/song.mp3", "/etc/passwd", "file:///etc/passwd",
            "", " ", "\"", "'", "\\",
            String(repeating: "(", count: 300), String(repeating: "(", count: 7000),
            "(Artist == '" + String(repeating: "x", count: 2000) + "')",
            "(file =~ '^(.*)*X$')", "(Title =~ '[')", "(Date >= 'x')", "(modified-since '1e300')",
            "(any contains '\u{0}')", "晴天", "\u{FEFF}", "a\u{0301}", "http://127.0.0.1:1/x.mp3",
        ]
        // Placeholders are filled with each of their values, so seeds name every song.
        self.samples = samples.mapValues { rows in
            rows.flatMap { row in Grammar.filled(row, library: library) }
        }
    }

    /// Words the session knows besides the table's commands, and hostile arguments.
    var tokens: [String] {
        ["command_list_begin", "command_list_ok_begin", "command_list_end", "idle", "noidle", "close",
         "player", "playlist", "database", "stored_playlist", "sticker", "message", "options", "mixer"]
            + hostileArguments
    }

    /// A request for one of the table's commands with one of its samples.
    func sampleLine<R: RandomNumberGenerator>(random: inout R) -> String {
        let name = names.randomElement(using: &random)!
        var arguments = samples[name]?.randomElement(using: &random) ?? []
        if !arguments.isEmpty, random.next() % 4 == 0 {
            arguments[Int(random.next() % UInt64(arguments.count))] = anyArgument(random: &random)
        }
        return ([name] + arguments.map(MPDRequest.quote)).joined(separator: " ")
    }

    /// An argument from anywhere: an edge number, a library name, a hostile string, another row's sample.
    func anyArgument<R: RandomNumberGenerator>(random: inout R) -> String {
        switch random.next() % 4 {
        case 0: return MPDCommands.edgeNumbers.randomElement(using: &random)!
        case 1: return library.values.flatMap { $0 }.randomElement(using: &random) ?? ""
        case 2: return hostileArguments.randomElement(using: &random)!
        default: return samples.values.randomElement(using: &random)?.randomElement(using: &random)?
            .randomElement(using: &random) ?? "0"
        }
    }

    /// Each numeric sample argument of each row replaced by each edge number, one at a time: the lines
    /// that break number parsing, found at once instead of by chance.
    var edgeLines: [String] {
        var lines: [String] = []
        for name in names.sorted() {
            for arguments in samples[name] ?? [] {
                for (index, argument) in arguments.enumerated() where Self.isNumeric(argument) {
                    for edge in MPDCommands.edgeNumbers {
                        var changed = arguments
                        changed[index] = edge
                        lines.append(([name] + changed.map(MPDRequest.quote)).joined(separator: " "))
                    }
                }
            }
        }
        return Array(Set(lines)).sorted()
    }

    static func isNumeric(_ argument: String) -> Bool {
        !argument.isEmpty && argument.allSatisfy { "0123456789+-.:".contains($0) }
    }

    /// One grammar-level change to an input of request lines.
    func mutate<R: RandomNumberGenerator>(_ input: [UInt8], random: inout R) -> [UInt8] {
        var lines = input.split(separator: 0x0A, omittingEmptySubsequences: true).map { String(decoding: $0, as: UTF8.self) }
        func position(_ extra: Int = 0) -> Int { Int(random.next() % UInt64(lines.count + extra)) }
        if lines.isEmpty { lines = [sampleLine(random: &random)] }
        switch random.next() % 10 {
        case 8:
            // A number of a line (an argument that looks like one) made an edge number.
            let index = position()
            var words = lines[index].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            let numbers = words.indices.dropFirst().filter { Self.isNumeric(words[$0].trimmingCharacters(in: ["\""])) }
            guard let number = numbers.randomElement(using: &random) else { break }
            words[number] = MPDCommands.edgeNumbers.randomElement(using: &random)!
            lines[index] = words.joined(separator: " ")
        case 0: lines.insert(sampleLine(random: &random), at: position(1))
        case 1: lines[position()] = sampleLine(random: &random)
        case 2:
            // One argument of a line replaced, or one added.
            let index = position()
            var words = lines[index].split(separator: " ", omittingEmptySubsequences: false).map(String.init)
            let argument = MPDRequest.quote(anyArgument(random: &random))
            if words.count > 1, random.next() % 3 != 0 {
                words[1 + Int(random.next() % UInt64(words.count - 1))] = argument
            } else {
                words.append(argument)
            }
            lines[index] = words.joined(separator: " ")
        case 3:
            // A run of lines made a command list (sometimes left open).
            let start = position()
            let end = start + Int(random.next() % UInt64(lines.count - start + 1))
            if random.next() % 5 != 0 { lines.insert("command_list_end", at: end) }
            lines.insert(random.next() % 2 == 0 ? "command_list_begin" : "command_list_ok_begin", at: start)
        case 4:
            // Waiting for changes around a line that makes some.
            let subsystems = ["", " player", " playlist", " database stored_playlist", " sticker message", " options mixer"]
            let at = position(1)
            lines.insert(contentsOf: ["idle" + subsystems.randomElement(using: &random)!, "noidle"], at: at)
        case 5:
            let index = position()
            lines.insert(contentsOf: repeatElement(lines[index], count: 1 + Int(random.next() % 8)), at: index)
        case 6:
            if lines.count > 1 { lines.remove(at: position()) }
        case 7:
            // Binary answers in chunks.
            let song = library["song"]?.randomElement(using: &random) ?? "album/1.mp3"
            let command = random.next() % 2 == 0 ? "albumart" : "readpicture"
            let limit = ["64", "65", "100", "8192", "9223372036854775807"].randomElement(using: &random)!
            let offset = ["0", "64", "300", "301", "302", "-1", "4294967296"].randomElement(using: &random)!
            lines.insert(contentsOf: ["binarylimit \(limit)", "\(command) \(MPDRequest.quote(song)) \(offset)"], at: position(1))
        default:
            lines.swapAt(position(), position())
        }
        return Array((lines.joined(separator: "\n") + "\n").utf8)
    }

    /// A sample's rows with every placeholder replaced by each of its values (at most three each).
    private static func filled(_ row: [String], library: [String: [String]]) -> [[String]] {
        var rows = [row]
        for (key, values) in library where !values.isEmpty {
            let placeholder = "{\(key)}"
            rows = rows.flatMap { row -> [[String]] in
                guard row.contains(where: { $0.contains(placeholder) }) else { return [row] }
                return values.prefix(3).map { value in row.map { $0.replacingOccurrences(of: placeholder, with: value) } }
            }
        }
        return rows
    }
}
