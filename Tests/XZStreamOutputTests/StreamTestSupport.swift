import Foundation
import XCTest
import XZAudio
import XZEncoders
import XZPlaybackEngine
import XZPlaybackValues
import XZStreamOutput
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// The encoders every stream test runs over; each new encoder joins here.
enum StreamKinds {
    static let all: [EncoderKind] = [.wave, .opus, .vorbis, .lame, .flac]
    /// Those whose listeners get ICY titles (the others carry titles in the stream itself).
    static var icy: [EncoderKind] { all.filter { (try? makeEncoder(kind: $0, settings: settings($0)).carriesTags) == false } }
    /// Those whose stream is chained Ogg, with the title in each new part's comments.
    static var ogg: [EncoderKind] { all.filter { (try? makeEncoder(kind: $0, settings: settings($0)).carriesTags) == true } }

    /// Settings as MPD users write them (LAME, as MPD's, refuses to start with neither bitrate nor quality).
    static func settings(_ kind: EncoderKind) -> [String: String] {
        switch kind {
        case .vorbis: ["quality": "5"]
        case .lame: ["bitrate": "128"]
        case .opus: ["bitrate": "96000"]
        case .wave, .flac: [:]
        }
    }

    /// ffmpeg's demuxer for the kind's stream.
    static func container(_ kind: EncoderKind) -> String {
        switch kind {
        case .wave: "wav"
        case .opus, .vorbis: "ogg"
        case .lame: "mp3"
        case .flac: "flac"
        }
    }
}

/// A stream output on 127.0.0.1 with a free port, and a real player playing into it.
final class StreamRig {
    let output: HTTPStreamOutput
    let player: Player
    let events = Events()
    var port: Int { output.port }

    init(_ kind: EncoderKind, alwaysOn: Bool = false, maxClients: Int = 0, configure: (inout StreamOutputSettings) -> Void = { _ in }) throws {
        var settings = StreamOutputSettings(name: "XZMusic test stream")
        settings.port = 0
        settings.encoder = kind
        settings.alwaysOn = alwaysOn
        settings.maxClients = maxClients
        settings.encoderSettings = StreamKinds.settings(kind)
        configure(&settings)
        output = try HTTPStreamOutput(settings: settings)
        let events = self.events
        player = Player(output: output, onEvent: { events.append($0) })
    }

    deinit {
        player.shutdown()
        output.shutdown()
    }

    /// Waits until the stream takes listeners (a HEAD answered 200).
    func waitUntilStreaming(timeout: TimeInterval = 20) throws {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            if let head = try? RawListener(port: port, request: "HEAD / HTTP/1.1\r\n\r\n").readHead(), head.hasPrefix("HTTP/1.1 200") {
                return
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw TestFailure("the stream on port \(port) did not open")
    }
}

/// The player's events, collected from its thread.
final class Events: @unchecked Sendable {
    private let lock = NSLock()
    private var list: [PlayerEvent] = []

    func append(_ event: PlayerEvent) {
        lock.lock()
        list.append(event)
        lock.unlock()
    }

    func wait(timeout: TimeInterval = 20, until predicate: ([PlayerEvent]) -> Bool) -> Bool {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            lock.lock()
            let done = predicate(list)
            lock.unlock()
            if done { return true }
            Thread.sleep(forTimeInterval: 0.01)
        }
        return false
    }
}

/// Tone files made once per run with sox (FLAC, 44.1 kHz stereo).
enum Tones {
    private static let folder = Result { try TemporaryFolder("stream-tones") }

    static func file(frequency: Int, seconds: Double) throws -> String {
        let path = try folder.get().path("tone-\(frequency)-\(seconds).flac")
        if !FileManager.default.fileExists(atPath: path) {
            try TestProcess.runChecked("sox", ["-n", "-r", "44100", "-c", "2", "-b", "16", path,
                                               "synth", "\(seconds)", "sine", "\(frequency)", "vol", "0.5"])
        }
        return path
    }

    static func item(frequency: Int, seconds: Double, title: String = "Tone", artist: String = "") throws -> QueueItem {
        QueueItem(path: try file(frequency: frequency, seconds: seconds), title: title, singer: artist)
    }
}

/// `ffmpeg -i URL -t SECONDS -f s16le -ac 1 -`: what a real client decodes of the stream, as mono samples.
enum FFmpegListener {
    /// `container` names ffmpeg's demuxer (`StreamKinds.container`) where a quiet stream would keep its format probe
    /// waiting: ffmpeg probes with at least 2 KiB, seconds of Opus silence.
    static func decode(_ url: String, seconds: Double, container: String? = nil) throws -> [Int16] {
        let result = try TestProcess.run("ffmpeg", ["-nostdin", "-loglevel", "error", "-rw_timeout", "5000000",
                                                    // Every kind is known from its first bytes; probing longer waits for real-time audio.
                                                    "-analyzeduration", "100000"] + (container.map { ["-f", $0] } ?? []) + ["-i", url, "-t", "\(seconds)",
                                                    "-f", "s16le", "-ac", "1", "-ar", "44100", "-"])
        guard result.status == 0 else { throw TestFailure("ffmpeg on \(url) exited \(result.status): \(result.stderr)") }
        return result.stdoutData.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
    }

    /// Several decodes at once, each on a thread of its own.
    static func decodeTogether(_ urls: [String], seconds: Double) -> [Result<[Int16], Error>] {
        let results = Locked([Result<[Int16], Error>](repeating: .failure(TestFailure("not run")), count: urls.count))
        DispatchQueue.concurrentPerform(iterations: urls.count) { index in
            let result = Result { try decode(urls[index], seconds: seconds) }
            results.update { $0[index] = result }
        }
        return results.value
    }

    /// The frequency of a tone from its rising zero crossings (with a little hysteresis against noise).
    static func frequency(_ samples: [Int16], rate: Int = 44_100) -> Double {
        var crossings: [Int] = []
        var armed = false
        for (index, sample) in samples.enumerated() {
            if sample < -500 { armed = true }
            if armed, sample > 500 {
                crossings.append(index)
                armed = false
            }
        }
        guard let first = crossings.first, let last = crossings.last, crossings.count > 2 else { return 0 }
        return Double(crossings.count - 1) * Double(rate) / Double(last - first)
    }

    static func peak(_ samples: [Int16]) -> Int { samples.map { abs(Int($0)) }.max() ?? 0 }
}

/// A value shared between threads.
final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: Value
    init(_ value: Value) { stored = value }
    var value: Value { lock.lock(); defer { lock.unlock() }; return stored }
    func update(_ body: (inout Value) -> Void) { lock.lock(); body(&stored); lock.unlock() }
}

/// A plain TCP client of the stream: sends what it is given, reads what comes (with a timeout per read).
final class RawListener {
    private let fd: Int32
    private var buffered: [UInt8] = []

    init(port: Int, request: String? = nil, readTimeout: TimeInterval = 5) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            throw TestFailure("connect to port \(port): \(String(cString: strerror(errno)))")
        }
        var timeout = timeval(tv_sec: Int(readTimeout), tv_usec: Int((readTimeout - Double(Int(readTimeout))) * 1_000_000))
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let request { send(request) }
    }

    deinit { Glibc.close(fd) }

    func send(_ text: String) { send(Array(text.utf8)) }

    func send(_ bytes: [UInt8]) {
        _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Up to `count` more bytes; empty at the end of the stream or after the timeout.
    func read(upTo count: Int = 65_536) -> [UInt8] {
        if !buffered.isEmpty {
            let taken = Array(buffered.prefix(count))
            buffered.removeFirst(taken.count)
            return taken
        }
        var bytes = [UInt8](repeating: 0, count: count)
        let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, count, 0) }
        return got > 0 ? Array(bytes.prefix(got)) : []
    }

    /// Exactly `count` bytes, or nil if the stream ended or stalled first.
    func read(exactly count: Int) -> [UInt8]? {
        var result: [UInt8] = []
        while result.count < count {
            let part = read(upTo: count - result.count)
            if part.isEmpty { return nil }
            result += part
        }
        return result
    }

    /// The response head (up to its blank line); what follows stays to be read.
    func readHead() throws -> String {
        var head: [UInt8] = []
        while true {
            if let end = head.indices.dropFirst(3).first(where: { head[$0 - 3..<$0 + 1] == [13, 10, 13, 10] }) {
                buffered = Array(head[(end + 1)...]) + buffered
                return String(decoding: head[...end], as: UTF8.self)
            }
            let part = read()
            if part.isEmpty { throw TestFailure("no response head; got \(String(decoding: head, as: UTF8.self).debugDescription)") }
            head += part
        }
    }

    /// Everything until the server closes (or `limit` bytes, or a read times out).
    func readToEnd(limit: Int = 1 << 20) -> [UInt8] {
        var all: [UInt8] = []
        while all.count < limit {
            let part = read()
            if part.isEmpty { break }
            all += part
        }
        return all
    }

    /// What arrives in `seconds` (reads time out after the listener's read timeout), at most `limit` bytes:
    /// bounded by time, as a quiet stream (Opus silence is a few hundred bytes a second) may never fill a size.
    func read(for seconds: TimeInterval, limit: Int = 1 << 20) -> [UInt8] {
        let deadline = Date(timeIntervalSinceNow: seconds)
        var all: [UInt8] = []
        while Date() < deadline, all.count < limit {
            let part = read(upTo: min(65_536, limit - all.count))
            if part.isEmpty { break }
            all += part
        }
        return all
    }

    /// True when the server closed the connection within `seconds` (reading and dropping what comes meanwhile).
    func isClosedByServer(within seconds: TimeInterval) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        buffered = []
        var bytes = [UInt8](repeating: 0, count: 65_536)
        while Date() < deadline {
            let got = bytes.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if got == 0 { return true }
            if got < 0 { return false }
        }
        return false
    }
}
