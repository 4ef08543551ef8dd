import Foundation
import XCTest
import XZStreamOutput
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Connections that never finish their request head (one byte a second, or nothing at all) do not keep a
/// real listener out: it is served while they come and go.
final class StreamAdmissionTests: XCTestCase {
    override func setUpWithError() throws {
        guard (try? TestProcess.which("ffmpeg")) != nil, (try? TestProcess.which("sox")) != nil else {
            throw XCTSkip("ffmpeg and sox are needed to listen to the stream")
        }
    }

    func testARealListenerIsServedWhileTwentySlowHeadsKeepReconnecting() throws {
        let rig = try StreamRig(.wave)
        rig.player.play([try Tones.item(frequency: 440, seconds: 30)])
        try rig.waitUntilStreaming()
        let slow = SlowHeads(port: rig.port, count: 20)
        defer { slow.stop() }
        // Every slow head has connected and sent its first bytes.
        Thread.sleep(forTimeInterval: 1.5)
        XCTAssertGreaterThanOrEqual(slow.connections, 20)
        let samples = try FFmpegListener.decode("http://127.0.0.1:\(rig.port)/", seconds: 1)
        XCTAssertGreaterThanOrEqual(samples.count, 44_100 * 9 / 10)
        XCTAssertEqual(FFmpegListener.frequency(Array(samples.dropFirst(4410))), 440, accuracy: 9)
    }

    func testARealListenerIsServedAfterTwoThousandPendingConnections() throws {
        let wanted = 2000
        // The test holds every client end, and the stream's server runs in this process too.
        let openFiles = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        var limit = rlimit()
        getrlimit(openFiles, &limit)
        if limit.rlim_cur < rlim_t(wanted + 512) {
            limit.rlim_cur = min(limit.rlim_max, rlim_t(wanted + 512))
            setrlimit(openFiles, &limit)
        }
        let rig = try StreamRig(.wave)
        rig.player.play([try Tones.item(frequency: 440, seconds: 60)])
        try rig.waitUntilStreaming()
        var pending: [RawListener] = []
        let perAddress = StreamOutputSettings.pendingHeadsPerAddress
        for index in 0..<wanted {
            pending.append(try RawListener(port: rig.port, request: "GET / HTTP/1.1\r\n"))
            // Now and then the server is let catch up (a connection it took in has been let go), so the kernel's
            // queue of connections not yet taken never overflows: that would stall a connect for a second.
            if index % 32 == 31 { _ = pending[index - perAddress].isClosedByServer(within: 2) }
        }
        let samples = try FFmpegListener.decode("http://127.0.0.1:\(rig.port)/", seconds: 1)
        XCTAssertGreaterThanOrEqual(samples.count, 44_100 * 9 / 10)
        XCTAssertEqual(FFmpegListener.frequency(Array(samples.dropFirst(4410))), 440, accuracy: 9)
        withExtendedLifetime(pending) {}
    }
}

/// Clients sending a request head one byte a second, each connecting again as soon as it is dropped.
private final class SlowHeads: @unchecked Sendable {
    private let stopped = Locked(false)
    private let made = Locked(0)
    private let threads: [Thread]

    /// Connections made so far, the first of each client and every reconnection.
    var connections: Int { made.value }

    init(port: Int, count: Int) {
        let head = Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".utf8) + Array(repeating: UInt8(ascii: "a"), count: 4096)
        var threads: [Thread] = []
        for _ in 0..<count {
            let thread = Thread { [stopped, made] in
                while !stopped.value {
                    guard let connection = try? RawListener(port: port, readTimeout: 0.1) else {
                        Thread.sleep(forTimeInterval: 0.1)
                        continue
                    }
                    made.update { $0 += 1 }
                    var sent = 0
                    var lastByte = Date.distantPast
                    // A byte a second; the server's close is noticed within 100 ms (a read of 0 bytes).
                    while !stopped.value, sent < head.count {
                        if Date().timeIntervalSince(lastByte) >= 1 {
                            connection.send([head[sent]])
                            sent += 1
                            lastByte = Date()
                        }
                        if connection.isClosedByServer(within: 0.1) { break }
                    }
                }
            }
            thread.start()
            threads.append(thread)
        }
        self.threads = threads
    }

    func stop() {
        stopped.update { $0 = true }
        while threads.contains(where: { !$0.isFinished }) { Thread.sleep(forTimeInterval: 0.02) }
    }
}
