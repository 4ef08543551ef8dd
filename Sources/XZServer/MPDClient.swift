import Foundation
import XZProtocol
#if canImport(Glibc)
import Glibc
#endif

/// A blocking client of a protocol host, for one-shot commands and the prompt attached to a host.
/// Plain sockets: a one-shot command connects, asks and leaves faster than an event loop starts.
public final class MPDClient {
    private let fd: Int32
    private var buffer: [UInt8] = []
    public let greeting: String

    /// Connects to a Unix socket; nil when nothing listens there (no host, or a dead host's socket).
    public static func connect(unixPath: String) throws -> MPDClient? {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw ServerError.cannotConnect("socket: \(String(cString: strerror(errno)))") }
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
    public static func connect(host: String, port: Int) throws -> MPDClient {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let info = list else {
            throw ServerError.cannotConnect("cannot resolve \(host)")
        }
        defer { freeaddrinfo(list) }
        let fd = socket(info.pointee.ai_family, info.pointee.ai_socktype, info.pointee.ai_protocol)
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
        self.fd = fd
        buffer = pending
        greeting = line
    }

    deinit { close(fd) }

    /// Ends the connection from any thread; a read waiting in another thread returns with an error.
    public func disconnect() {
        Glibc.shutdown(fd, Int32(SHUT_RDWR))
    }

    /// Runs one command; the `key: value` pairs of its answer, or the host's ACK thrown as `MPDError`.
    @discardableResult
    public func run(_ request: MPDRequest) throws -> [(key: String, value: String)] {
        try sendLine(request.line)
        return try readResponse()
    }

    @discardableResult
    public func run(_ name: String, _ arguments: String...) throws -> [(key: String, value: String)] {
        try run(MPDRequest(name: name, arguments: arguments))
    }

    /// Writes a raw line (tests and `idle`).
    public func sendLine(_ line: String) throws {
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
    public func readResponse() throws -> [(key: String, value: String)] {
        var pairs: [(key: String, value: String)] = []
        while true {
            let line = try readLine()
            if line == "OK" { return pairs }
            if line.hasPrefix("ACK ") { throw MPDError.parse(ackLine: line) }
            guard let colon = line.range(of: ": ") else { continue }
            pairs.append((String(line[..<colon.lowerBound]), String(line[colon.upperBound...])))
        }
    }

    public func readLine() throws -> String {
        try MPDClient.readLine(fd: fd, buffer: &buffer)
    }

    /// Reads an answer that may carry a `binary: N` chunk (albumart, readpicture): its lines and the bytes.
    public func readBinaryResponse() throws -> (pairs: [(key: String, value: String)], data: [UInt8]) {
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
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ServerError.connectionClosed }
            buffer += chunk[..<count]
        }
    }
}

extension MPDError {
    /// `ACK [code@index] {command} message` back into an error.
    static func parse(ackLine line: String) -> MPDError {
        let scanner = line.dropFirst(4)
        guard scanner.hasPrefix("["), let at = scanner.firstIndex(of: "@"), let open = scanner.firstIndex(of: "{"), let end = scanner.firstIndex(of: "}") else {
            return MPDError.unknown(String(line))
        }
        let code = Int(scanner[scanner.index(after: scanner.startIndex)..<at]).flatMap(ACKCode.init(rawValue:)) ?? .unknown
        let command = String(scanner[scanner.index(after: open)..<end])
        let message = scanner[scanner.index(after: end)...].trimmingCharacters(in: .whitespaces)
        return MPDError(code, message, command: command)
    }
}
