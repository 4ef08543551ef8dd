import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback internet radio station speaking ICY (SHOUTcast and Icecast's HTTP dialect) on 127.0.0.1, port
/// chosen by the kernel, one thread per listener: it answers with `head` and then sends `audio` over and over,
/// with a metadata block after every `metaint` audio bytes when the listener asked (`Icy-MetaData: 1`).
package final class ICYStation: @unchecked Sendable {
    package struct Broadcast: Sendable {
        /// The status line and headers, without the blank line; `icy-metaint` is added when asked and set.
        package var head: String
        package var audio: [UInt8]
        package var metaint: Int?
        /// The block (its length byte first) sent after audio run `n` (0, 1, …); nil: an empty block.
        package var block: @Sendable (_ n: Int) -> [UInt8]? = { _ in nil }
        /// Audio bytes sent before the connection is closed; nil: until the listener goes.
        package var dropAfter: Int?
        /// Bytes a second at most (a real station's pace); nil: as fast as the listener takes them.
        package var bytesPerSecond: Int?

        package init(head: String, audio: [UInt8], metaint: Int? = nil, block: @escaping @Sendable (_ n: Int) -> [UInt8]? = { _ in nil },
                    dropAfter: Int? = nil, bytesPerSecond: Int? = nil) {
            self.head = head
            self.audio = audio
            self.metaint = metaint
            self.block = block
            self.dropAfter = dropAfter
            self.bytesPerSecond = bytesPerSecond
        }
    }

    /// A block saying `StreamTitle='title';`, padded with NULs to whole 16-byte units.
    package static func titleBlock(_ title: String) -> [UInt8] {
        let text = Array("StreamTitle='\(title)';StreamUrl='';".utf8)
        let units = (text.count + 15) / 16
        return [UInt8(units)] + text + [UInt8](repeating: 0, count: units * 16 - text.count)
    }

    /// The head a SHOUTcast v1 server answers with: the status line `ICY 200 OK` where HTTP has `HTTP/1.0 200 OK`.
    package static func shoutcastV1Head(name: String, contentType: String = "audio/mpeg", bitrate: Int = 128) -> String {
        "ICY 200 OK\r\nicy-notice1:<BR>This stream requires <a href=\"http://www.winamp.com/\">Winamp</a><BR>\r\n"
            + "icy-name:\(name)\r\nicy-genre:Test\r\ncontent-type:\(contentType)\r\nicy-pub:0\r\nicy-br:\(bitrate)"
    }

    package let port: Int
    private let listener: Int32
    private let broadcast: @Sendable (_ connection: Int, _ request: String) -> Broadcast?
    private let lock = NSLock()
    private var _requests: [String] = []
    private var stopped = false

    /// `broadcast` gets each listener's number (0, 1, …) and request; nil closes at once.
    package init(_ broadcast: @escaping @Sendable (_ connection: Int, _ request: String) -> Broadcast?) throws {
        signal(SIGPIPE, SIG_IGN)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0 }
        }
        guard fd >= 0, bound, listen(fd, 16) == 0 else { throw TestFailure("cannot listen for the test station") }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        self.broadcast = broadcast
        Thread { [weak self] in self?.acceptLoop() }.start()
    }

    deinit { stop() }

    package func url(_ path: String = "/live") -> String { "http://127.0.0.1:\(port)\(path)" }

    package var requests: [String] { lock.withLock { _requests } }

    package func stop() {
        let first = lock.withLock { () -> Bool in
            defer { stopped = true }
            return !stopped
        }
        if first {
            Glibc.shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private var isStopped: Bool { lock.withLock { stopped } }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            Thread { [weak self] in
                self?.serve(client)
                close(client)
            }.start()
        }
    }

    private func serve(_ fd: Int32) {
        var request: [UInt8] = []
        var byte: UInt8 = 0
        while !request.suffix(4).elementsEqual(Array("\r\n\r\n".utf8)), request.count < 16384 {
            guard recv(fd, &byte, 1, 0) == 1 else { return }
            request.append(byte)
        }
        let text = String(decoding: request, as: UTF8.self)
        let index = lock.withLock { () -> Int in
            _requests.append(text)
            return _requests.count - 1
        }
        guard let show = broadcast(index, text) else { return }
        let asked = text.lowercased().contains("icy-metadata: 1")
        let metaint = asked ? show.metaint : nil
        var head = show.head + "\r\n"
        if let metaint { head += "icy-metaint: \(metaint)\r\n" }
        guard send(Array((head + "\r\n").utf8), fd) else { return }
        var sent = 0, run = 0, at = 0
        let started = Date()
        while !isStopped, show.dropAfter.map({ sent < $0 }) ?? true, !show.audio.isEmpty {
            var step = min(metaint ?? 4096, show.audio.count - at, 4096)
            if let metaint { step = min(step, metaint - sent % metaint) }
            if let drop = show.dropAfter { step = min(step, drop - sent) }
            guard send(Array(show.audio[at ..< at + step]), fd) else { return }
            sent += step
            at = (at + step) % show.audio.count
            if let metaint, sent % metaint == 0 {
                guard send(show.block(run) ?? [0], fd) else { return }
                run += 1
            }
            if let rate = show.bytesPerSecond {
                let due = Double(sent) / Double(rate) - Date().timeIntervalSince(started)
                if due > 0 { Thread.sleep(forTimeInterval: due) }
            }
        }
    }

    private func send(_ bytes: [UInt8], _ fd: Int32) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }
}
