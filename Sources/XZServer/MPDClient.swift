import Foundation
import XZProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of a protocol host, for one-shot commands and the prompt attached to a host.
/// Plain sockets: a one-shot command connects, asks and leaves faster than an event loop starts.
package final class MPDClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    package let greeting: String

    /// How long connecting and the greeting may take: a host whose socket accepts but never greets
    /// (its loop stuck, or no host at all) is an error, not a wait for ever. Answers after that wait as
    /// long as the host takes (`idle` waits by design).
    package static let greetingTimeout = 10
    /// The largest `binary` chunk taken (hosts send at most their output buffer, MPD's 8 MiB by default).
    static let maxBinaryBytes = 64 << 20

    /// Connects to a Unix socket; nil when nothing listens there (no host, or a dead host's socket).
    package static func connect(unixPath: String) throws -> MPDClient? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.cannotConnect("socket: \(String(cString: strerror(errno)))") }
        setTimeout(fd, seconds: greetingTimeout)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(unixPath.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: address.sun_path) else {
            close(fd)
            throw ServerError.cannotConnect("socket path too long: \(unixPath)")
        }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard result == 0 else {
            let code = errno
            close(fd)
            // Nothing listens there: no socket, a dead host's socket, or no such folder at all.
            if code == ENOENT || code == ECONNREFUSED || code == ENOTDIR { return nil }
            throw ServerError.cannotConnect("cannot connect to \(unixPath): \(String(cString: strerror(code)))")
        }
        return try MPDClient(fd: fd)
    }

    /// Connects over TCP to `host:port`.
    package static func connect(host: String, port: Int) throws -> MPDClient {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw ServerError.cannotConnect("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
        if fd >= 0 { setTimeout(fd, seconds: greetingTimeout) }
        guard fd >= 0, Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 else {
            let message = String(cString: strerror(errno))
            if fd >= 0 { close(fd) }
            throw ServerError.cannotConnect("cannot connect to \(host):\(port): \(message)")
        }
        return try MPDClient(fd: fd)
    }

    private init(fd: Int32) throws {
        var pending: [UInt8] = []
        let line: String
        do {
            line = try MPDClient.readLine(fd: fd, buffer: &pending)
        } catch {
            close(fd)
            throw error
        }
        guard line.hasPrefix("OK MPD ") else {
            close(fd)
            throw ServerError.notAHost("not a protocol host: \(line.prefix(80))")
        }
        MPDClient.setTimeout(fd, seconds: 0)
        self.fd = fd
        buffer = pending
        greeting = line
    }

    /// Bounds connect, sends and reads of `fd` (0: no bound).
    private static func setTimeout(_ fd: Int32, seconds: Int) {
        var time = timeval(tv_sec: seconds, tv_usec: 0)
        let size = socklen_t(MemoryLayout<timeval>.size)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &time, size)
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &time, size)
    }

    deinit { close(fd) }

    /// Ends the connection from any thread; a read waiting in another thread returns with an error.
    package func disconnect() {
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Runs one command; the `key: value` pairs of its answer, or the host's ACK thrown as `MPDError`.
    @discardableResult
    package func run(_ request: MPDRequest) throws -> [(key: String, value: String)] {
        try sendLine(request.line)
        return try readResponse()
    }

    @discardableResult
    package func run(_ name: String, _ arguments: String...) throws -> [(key: String, value: String)] {
        try run(MPDRequest(name: name, arguments: arguments))
    }

    /// Writes a raw line (tests and `idle`).
    package func sendLine(_ line: String) throws {
        let bytes = Array((line + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ServerError.connectionClosed }
            sent += count
        }
    }

    /// Reads `key: value` lines up to `OK`; an ACK line is thrown.
    package func readResponse() throws -> [(key: String, value: String)] {
        var answer = MPDAnswer()
        while try !answer.take(line: readLine()) {}
        return answer.pairs
    }

    package func readLine() throws -> String {
        try MPDClient.readLine(fd: fd, buffer: &buffer)
    }

    /// Reads an answer that may carry a `binary: N` chunk (albumart, readpicture): its lines and the bytes.
    package func readBinaryResponse() throws -> (pairs: [(key: String, value: String)], data: [UInt8]) {
        var pairs: [(key: String, value: String)] = []
        var data: [UInt8] = []
        while true {
            let line = try readLine()
            if line == "OK" { return (pairs, data) }
            if line.hasPrefix("ACK ") { throw MPDError.parse(ackLine: line) }
            guard let colon = line.range(of: ": ") else { continue }
            let key = String(line[..<colon.lowerBound]), value = String(line[colon.upperBound...])
            pairs.append((key, value))
            guard key == "binary", let count = Int(value), count >= 0 else { continue }
            guard count <= Self.maxBinaryBytes else { throw ServerError.notAHost("a binary chunk of \(count) bytes is more than any host sends") }
            // The bytes, then a newline.
            while buffer.count < count + 1 {
                var chunk = [UInt8](repeating: 0, count: 16 * 1024)
                let got = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { throw ServerError.connectionClosed }
                buffer += chunk[..<got]
            }
            data += buffer[..<count]
            buffer.removeSubrange(...count)
        }
    }

    private static func readLine(fd: Int32, buffer: inout [UInt8]) throws -> String {
        while true {
            if let newline = buffer.firstIndex(of: 0x0A) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            guard buffer.count <= maxLineBytes else { throw ServerError.notAHost("a line of more than \(maxLineBytes) bytes") }
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            // A read that ends (0) or fails is final; only a signal's interruption is read again.
            if count < 0, errno == EINTR { continue }
            if count < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                throw ServerError.cannotConnect("the host said nothing for \(greetingTimeout) s")
            }
            guard count > 0 else { throw ServerError.connectionClosed }
            buffer += chunk[..<count]
        }
    }

    /// MPD's default `max_output_buffer_size`: no host's answer, so no line of it, is longer.
    static let maxLineBytes = 8 * 1024 * 1024
}
