// The MPD protocol fuzzer: each input is request lines, run one after another on one client session
// against a real in-process host (FuzzLibrary). Built with libFuzzer by fuzz/fuzz.py (`make
// fuzz-protocol`); built without it (as in `swift build`) the program replays inputs given as files.
// A crash, a request over its budget (FuzzWatchdog) or the process growing past libFuzzer's
// -rss_limit_mb is a finding.
import Foundation
import XZFuzzSupport
import XZHostCore
import XZMPDCommands
import XZProtocol
import XZSystem

@main
enum ProtocolFuzz {
    static func main() {
        FuzzDriver.main(make: "fuzz-protocol", run: { Fuzzing.shared.run($0, echo: $1) }, writeSeeds: writeSeeds,
                        remove: { Fuzzing.shared.library.remove() })
    }

    /// The seed corpus: each row's sample arguments as single requests (the library's names filled in),
    /// a few sequences and command lists of them; and the dictionary of names, tokens and edge numbers.
    static func writeSeeds(to folder: String) -> Int32 {
        let grammar = Fuzzing.shared.grammar
        var seeds: [String] = []
        for name in grammar.names.sorted() {
            for arguments in grammar.samples[name] ?? [] {
                seeds.append(([name] + arguments.map(MPDRequest.quote)).joined(separator: " ") + "\n")
            }
        }
        // Edge numbers in every numeric argument, after a queue is made (and sometimes playing, for
        // positions relative to the current song).
        // A seed holds a few dozen of them, one command's, so restarting past a finding stays quick.
        let edgeLines = Dictionary(grouping: grammar.edgeLines) { $0.prefix { $0 != " " } }
        for (name, lines) in edgeLines.sorted(by: { $0.key < $1.key }) {
            for (index, start) in stride(from: 0, to: lines.count, by: 24).enumerated() {
                let prefix = (name.utf8.count + index) % 2 == 0 ? "add album\n" : "add album\nplay 1\n"
                seeds.append(prefix + lines[start..<min(lines.count, start + 24)].joined(separator: "\n") + "\n")
            }
        }
        let dictionary = Set(grammar.names + grammar.samples.values.flatMap { $0.flatMap { $0 } }
            + MPDCommands.edgeNumbers + grammar.tokens)
        do {
            try FuzzSeeds.write(seeds, words: dictionary, to: folder)
        } catch {
            printError("cannot write the seeds: \(error)\n")
            return 1
        }
        for (key, names) in Fuzzing.shared.library.names.sorted(by: { $0.key < $1.key }) { print("\(key): \(names)") }
        print("\(seeds.count) seeds in \(folder), \(dictionary.count) words in \(folder).dict")
        Fuzzing.shared.library.remove()
        return 0
    }
}

/// libFuzzer's own mutation of the input, when linked in; nil in a replay build.
private let libFuzzerMutate: (@convention(c) (UnsafeMutablePointer<UInt8>, Int, Int) -> Int)? = {
    dlsym(nil, "LLVMFuzzerMutate").map { unsafeBitCast($0, to: (@convention(c) (UnsafeMutablePointer<UInt8>, Int, Int) -> Int).self) }
}()

/// Half the time libFuzzer's byte-level mutation, half the time one of the grammar's (a line replaced by
/// or added from the command table's samples, an argument swapped, lines wrapped in a command list, …).
@_cdecl("LLVMFuzzerCustomMutator")
package func customMutator(_ data: UnsafeMutablePointer<UInt8>, _ size: Int, _ maxSize: Int, _ seed: UInt32) -> Int {
    var random = SplitMix(seed: UInt64(seed))
    if let mutate = libFuzzerMutate, random.next() % 2 == 0 {
        return mutate(data, size, maxSize)
    }
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let output = Fuzzing.shared.grammar.mutate(input, random: &random).prefix(maxSize)
    output.withUnsafeBufferPointer { data.update(from: $0.baseAddress!, count: $0.count) }
    return output.count
}

/// The fuzzing state of the process: the library, the grammar, the watchdog, the lines skipped.
final class Fuzzing: @unchecked Sendable {  // driven from libFuzzer's one thread only
    static let shared = FuzzDriver.setUp("protocol") { try Fuzzing() }

    let library: FuzzLibrary
    let grammar: Grammar
    let watchdog: FuzzWatchdog
    /// Lines matching one of these are not run: known findings, so the fuzzer gets past them.
    private let skips = FuzzSkips()
    private let lastInput = LastInputFile()
    /// At most this many lines of an input are run.
    private let maxLines = 64

    private init() throws {
        library = try FuzzLibrary()
        grammar = Grammar(names: MPDCommands.commandNames, samples: MPDCommands.sampleArguments,
                          library: library.names, root: library.root.path)
        watchdog = FuzzWatchdog()
        atexit { Fuzzing.shared.library.remove() }
    }

    func run(_ input: UnsafeBufferPointer<UInt8>, echo: Bool = false) {
        lastInput.keep(input)
        var session = ClientSession(peer: .network, passwordRequired: false)
        var usedStickers = false
        // The newline ending the last line starts no line of its own.
        let body = input.last == 0x0A ? UnsafeBufferPointer(rebasing: input.dropLast()) : input
        for line in body.split(separator: 0x0A, maxSplits: maxLines, omittingEmptySubsequences: false).prefix(maxLines) {
            let bytes = Array(line)
            if skips.skips(String(decoding: bytes, as: UTF8.self)) { continue }
            if echo { printOutput("> " + String(decoding: bytes, as: UTF8.self) + "\n") }
            usedStickers = usedStickers || bytes.starts(with: "sticker".utf8)
            watchdog.begin(bytes)
            var output = session.receive(utf8: bytes, service: library.service)
            watchdog.end()
            // The transport tells the session of every change; a client in `idle` hears it at once.
            let changes = library.changes.withLock { changes in defer { changes = [] }; return changes }
            if !changes.isEmpty, let woken = session.notify(changes) { output.bytes += woken }
            if echo {
                printOutput(String(decoding: output.bytes, as: UTF8.self) + "(rss \(residentMegabytes()) MB)\n")
            }
            if let leak = library.leak(in: output.bytes) {
                printError("==protocol-fuzz== OUTSIDE THE MUSIC FOLDER: \(leak) after: \(String(decoding: bytes.prefix(300), as: UTF8.self))\n")
                abort()
            }
            if output.close {
                if echo { printOutput("(closed)\n") }
                session = ClientSession(peer: .network, passwordRequired: false)
            }
        }
        // An update the input started may have imported the folder beside the music folder.
        library.host.updates.wait()
        if let leak = library.leak(in: Array(library.answers(["find \"(Title == '\(library.canary)')\""]).utf8)) {
            let updates = body.split(separator: 0x0A).map { String(decoding: $0, as: UTF8.self) }
                .filter { $0.contains("update") || $0.contains("rescan") }
            let blamed = updates.last { $0.contains("xzmusic-catalogue") || $0.contains("..") || $0.contains("/") } ?? updates.last
            printError("==protocol-fuzz== OUTSIDE THE MUSIC FOLDER: imported \(leak) after: \(blamed ?? "?")\n")
            abort()
        }
        library.reset(stickers: usedStickers)
    }
}

/// SplitMix64: a small random generator seeded by libFuzzer, so a mutation can be repeated.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E3779B97F4A7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58476D1CE4E5B9
        z = (z ^ (z >> 27)) &* 0x94D049BB133111EB
        return z ^ (z >> 31)
    }
}

/// The process's resident size, which libFuzzer's -rss_limit_mb watches.
private func residentMegabytes() -> Int {
    guard let statm = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8),
          let pages = statm.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else { return 0 }
    return pages * Int(sysconf(Int32(_SC_PAGESIZE))) / (1024 * 1024)
}
