import Foundation
import XZSystem
import XZPlaybackEngine
import XZPlaybackValues

/// How soon a command on a playing player takes effect: from the request to the audio thread acting on it
/// (its `.paused`, `.seeked` or `.started` event, sent once the output has stopped taking the old audio),
/// playing to the paced null output whose periods the thread sleeps through. MPD's figure is the round trip
/// of the same command, which it answers once its player thread has carried it out.
struct CommandLatencyBenchmark {
    /// The file played; its folder is MPD's music folder.
    let file: String
    let rounds = 15

    func run() throws {
        let events = EventTimes()
        let bench = try BenchHost(output: LibaoOutput(.null), events: { events.note($0) })
        defer { bench.shutdown() }
        let player = bench.host
        player.play(Array(repeating: QueueItem(path: file), count: rounds + 2))
        guard events.wait(for: .started, after: 0, timeout: 10) != nil else { throw benchFailure("no audio within 10 s") }
        var ours: [String: [Double]] = [:]
        for round in 0..<rounds {
            // A different place in the paced period each round.
            Thread.sleep(forTimeInterval: 0.3 + Double(round % 5) * 0.047)
            ours["pause", default: []].append(try measure(events, .paused) { player.pause() })
            player.resume()
            Thread.sleep(forTimeInterval: 0.3 + Double(round % 7) * 0.031)
            ours["seek", default: []].append(try measure(events, .seeked) { player.requestSeek(.absolute(ms: 60_000 + round * 1000)) })
            Thread.sleep(forTimeInterval: 0.3 + Double(round % 3) * 0.059)
            ours["next", default: []].append(try measure(events, .started) { player.nextIfLoaded() })
        }
        let theirs = try mpdLatencies()
        print("command latency, request to effect, median (worst) of \(rounds), ms: xzmusic vs MPD (goal < 50 ms)")
        for command in ["pause", "seek", "next"] {
            let mine = ours[command]!.sorted(), mpd = theirs[command]!.sorted()
            print("  " + command.padding(toLength: 6, withPad: " ", startingAt: 0)
                  + String(format: "xzmusic %6.2f (%6.2f)   mpd %6.2f (%6.2f)", mine[mine.count / 2] * 1000,
                           mine[mine.count - 1] * 1000, mpd[mpd.count / 2] * 1000, mpd[mpd.count - 1] * 1000))
        }
    }

    private func measure(_ events: EventTimes, _ kind: EventTimes.Kind, _ request: () -> Void) throws -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        request()
        guard let done = events.wait(for: kind, after: start, timeout: 5) else { throw benchFailure("no \(kind) within 5 s") }
        return Double(done - start) / 1e9
    }

    /// The round trips of `pause 1`, `seekcur` and `next` on MPD playing the same file to its null output.
    private func mpdLatencies() throws -> [String: [Double]] {
        let music = URL(fileURLWithPath: file).deletingLastPathComponent()
        let mpd = try LoopbackMPD(music: music, emptyDatabase: false)
        defer { mpd.stop() }
        try mpd.update()
        try mpd.mpc(["clear"])
        for _ in 0..<(rounds + 2) { try mpd.mpc(["add", URL(fileURLWithPath: file).lastPathComponent]) }
        try mpd.mpc(["play"])
        let connection = try ProtocolConnection(port: mpd.port)
        var times: [String: [Double]] = [:]
        func timed(_ line: String) throws -> Double {
            let start = DispatchTime.now().uptimeNanoseconds
            try connection.request(line)
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }
        for round in 0..<rounds {
            Thread.sleep(forTimeInterval: 0.3 + Double(round % 5) * 0.047)
            times["pause", default: []].append(try timed("pause 1"))
            try connection.request("pause 0")
            Thread.sleep(forTimeInterval: 0.3 + Double(round % 7) * 0.031)
            times["seek", default: []].append(try timed("seekcur \(60 + round)"))
            Thread.sleep(forTimeInterval: 0.3 + Double(round % 3) * 0.059)
            times["next", default: []].append(try timed("next"))
        }
        return times
    }
}

/// When the audio thread last sent each kind of event the benchmark waits for.
private final class EventTimes: Sendable {
    enum Kind: Sendable { case started, paused, seeked }
    private let times = Monitor([Kind: UInt64]())

    func note(_ event: PlayerEvent) {
        let kind: Kind
        switch event {
        case .started: kind = .started
        case .paused: kind = .paused
        case .seeked: kind = .seeked
        default: return
        }
        let now = DispatchTime.now().uptimeNanoseconds
        times.change { $0[kind] = now }
    }

    /// The time of the first `kind` event sent after `start`, waiting up to `timeout` seconds for it.
    func wait(for kind: Kind, after start: UInt64, timeout: Double) -> UInt64? {
        times.wait(until: .now() + .milliseconds(Int(timeout * 1000))) { times in
            times[kind].flatMap { $0 > start ? $0 : nil }
        }
    }
}
