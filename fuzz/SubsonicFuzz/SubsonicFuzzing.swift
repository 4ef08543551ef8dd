import Crypto
import Foundation
import XZFuzzSupport
import XZSubsonicAPI
import XZSubsonicServer
import XZSystem

/// The fuzzing state of the process: the library, and how one input is run and judged.
final class SubsonicFuzzing: @unchecked Sendable {  // driven from libFuzzer's one thread only
    static let shared = FuzzDriver.setUp("subsonic") { try SubsonicFuzzing() }

    let library: SubsonicFuzzLibrary
    /// Requests whose endpoint matches one of these are not run: known findings, so the fuzzer gets past them.
    private let skips = FuzzSkips()
    private let lastInput = LastInputFile()
    private let maxLines = 16
    /// Bytes of a file or stream reply read and looked at.
    private let maxBodyBytes = 512 << 10

    private init() throws {
        library = try SubsonicFuzzLibrary()
        atexit { SubsonicFuzzing.shared.library.remove() }
    }

    static func token(_ password: String, salt: String) -> String {
        Insecure.MD5.hash(data: Data((password + salt).utf8)).map { String(format: "%02x", $0) }.joined()
    }

    func run(_ input: UnsafeBufferPointer<UInt8>, echo: Bool = false) {
        lastInput.keep(input)
        let body = input.last == 0x0A ? UnsafeBufferPointer(rebasing: input.dropLast()) : input
        for (index, line) in body.split(separator: 0x0A, maxSplits: maxLines, omittingEmptySubsequences: true)
            .prefix(maxLines).enumerated() {
            var bytes = Array(line)
            let signsIn = bytes.first != UInt8(ascii: "!")
            if !signsIn { bytes.removeFirst() }
            let question = bytes.firstIndex(of: UInt8(ascii: "?")) ?? bytes.endIndex
            let endpoint = String(decoding: bytes[..<question], as: UTF8.self)
            if skips.skips(endpoint) { continue }
            // As the transport: a query that is no form is refused before the router sees it.
            guard var parameters = try? SubsonicFormDecoding.pairs(bytes[(question == bytes.endIndex ? question : question + 1)...]) else {
                if echo { printOutput("> \(String(decoding: bytes, as: UTF8.self))\n(refused: no form)\n") }
                continue
            }
            let range = parameters.first { $0.name == "_range" }?.value
            parameters.removeAll { $0.name == "_range" }
            if signsIn {
                parameters += [("u", "fuzz"), ("p", SubsonicFuzzLibrary.password), ("v", "1.16.1"), ("c", "fuzz")]
            }
            let request = SubsonicRequest(endpoint: endpoint, parameters: parameters, isHead: false, range: range,
                                          clientAddress: "10.0.0.\(index)")
            if echo { printOutput("> \(String(decoding: bytes, as: UTF8.self))\n") }
            let outcome = library.router.respond(request)
            let reply = judge(outcome, request: request)
            if echo { printOutput(String(decoding: reply.prefix(600), as: UTF8.self) + "\n") }
            if let leak = leak(in: reply) {
                printError("==subsonic-fuzz== OUTSIDE THE LIBRARY: \(leak) after: \(String(decoding: bytes.prefix(300), as: UTF8.self))\n")
                abort()
            }
        }
        library.reset()
    }

    /// The bytes a client would receive: the document or error encoded as asked, a file's range, a
    /// stream's first bytes (its producer then told the client went).
    private func judge(_ outcome: SubsonicOutcome, request: SubsonicRequest) -> [UInt8] {
        let format = (try? SubsonicFormat(request: request)) ?? SubsonicFormat.fallback(for: request)
        switch outcome {
        case .reply(.document(let document)):
            do {
                return try SubsonicEncoding.encode(document, as: format).bytes
            } catch {
                return SubsonicEncoding.encode(SubsonicRouter.apiError(error), as: format).bytes
            }
        case .failure(let error, _):
            return SubsonicEncoding.encode(error, as: format).bytes
        case .rangeNotSatisfiable:
            return []
        case .reply(.bytes(let reply)):
            return reply.bytes
        case .reply(.file(let file)):
            guard library.mayServe(file.path) else {
                printError("==subsonic-fuzz== OUTSIDE THE LIBRARY: a file reply of \(file.path) after: \(request.endpoint)\n")
                abort()
            }
            guard let handle = FileHandle(forReadingAtPath: file.path) else { return [] }
            defer { try? handle.close() }
            let start = max(0, file.range?.lowerBound ?? 0)
            let count = Int(min(Int64(maxBodyBytes), (file.range.map { $0.upperBound - $0.lowerBound + 1 } ?? file.size)))
            try? handle.seek(toOffset: UInt64(start))
            return Array((try? handle.read(upToCount: max(0, count))) ?? Data())
        case .reply(.stream(let stream)):
            let sink = CollectingSink(limit: maxBodyBytes)
            try? stream.produce(sink)
            return sink.bytes
        }
    }

    /// A reply's line or stretch holding the canary.
    private func leak(in reply: [UInt8]) -> String? {
        let canary = Array(library.canary.utf8)
        guard reply.count >= canary.count else { return nil }
        for start in 0...(reply.count - canary.count) where reply[start] == canary[0] {
            if reply[start..<(start + canary.count)].elementsEqual(canary) {
                return String(decoding: reply[max(0, start - 80)..<min(reply.count, start + canary.count + 80)], as: UTF8.self)
            }
        }
        return nil
    }
}

/// A client that takes the first `limit` bytes of a stream, then goes.
private final class CollectingSink: MediaSink, @unchecked Sendable {  // written by the producer on this thread alone
    struct Gone: Error {}
    let limit: Int
    var bytes: [UInt8] = []

    init(limit: Int) { self.limit = limit }

    func write(_ chunk: [UInt8]) throws {
        guard bytes.count < limit else { throw Gone() }
        bytes += chunk.prefix(limit - bytes.count)
    }
}
