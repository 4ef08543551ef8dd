import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A bare MPD protocol connection over loopback TCP: writes request lines and reads up to the final
/// `OK` without parsing, so the figures measure the server rather than the client.
/// Sendable as a socket is: each connection is used by one thread at a time (the one measuring it).
final class ProtocolConnection: @unchecked Sendable {
    private(set) var greeting = ""
    private let fd: Int32
    private var response: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    init(port: Int) throws {
        fd = try Self.connect(port: port)
        // From here on deinit closes the socket, also when this throws.
        try receive { $0.last == 0x0A }
        greeting = String(decoding: response.dropLast(), as: UTF8.self)
        guard greeting.hasPrefix("OK MPD ") else {
            throw benchFailure("not an MPD server on port \(port): \(greeting.prefix(80))")
        }
    }

    private static func connect(port: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw benchFailure("socket: \(String(cString: strerror(errno)))") }
        var address = loopbackAddress(port: port)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let message = String(cString: strerror(errno))
            close(fd)
            throw benchFailure("cannot connect to 127.0.0.1:\(port): \(message)")
        }
        // Requests are one small write each; none may wait for the previous answer's ACK.
        var on: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    deinit { close(fd) }

    /// Sends `lines` (one request, or a command list) and waits for its answer; an ACK throws.
    @discardableResult
    func request(_ lines: String) throws -> Int {
        let bytes = Array((lines + "\n").utf8)
        var sent = 0
        while sent < bytes.count {
            let count = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw benchFailure("the server closed the connection") }
            sent += count
        }
        try receive(until: Self.isComplete)
        if let ack = Self.lastLine(response), ack.starts(with: Array("ACK ".utf8)) {
            throw benchFailure("\(lines.prefix(60)): \(String(decoding: ack, as: UTF8.self))")
        }
        return response.count
    }

    /// The answer as text, for the few requests whose content matters.
    func text(_ lines: String) throws -> String {
        try request(lines)
        return String(decoding: response, as: UTF8.self)
    }

    private func receive(until complete: ([UInt8]) -> Bool) throws {
        response.removeAll(keepingCapacity: true)
        repeat {
            let count = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw benchFailure("the server closed the connection") }
            response += chunk[..<count]
        } while !complete(response)
    }

    /// An answer ends with a line `OK` or `ACK …`.
    private static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let line = lastLine(bytes) else { return false }
        return line.elementsEqual("OK".utf8) || line.starts(with: Array("ACK ".utf8))
    }

    private static func lastLine(_ bytes: [UInt8]) -> ArraySlice<UInt8>? {
        guard bytes.last == 0x0A else { return nil }
        let end = bytes.count - 1
        let start = bytes[..<end].lastIndex(of: 0x0A).map { $0 + 1 } ?? 0
        return bytes[start..<end]
    }
}

func loopbackAddress(port: Int) -> sockaddr_in {
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = UInt16(port).bigEndian
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    return address
}

/// A loopback port nobody listens on now (the kernel's pick for port 0).
func freeLoopbackPort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw benchFailure("socket: \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    var address = loopbackAddress(port: 0)
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
            bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
        }
    }
    guard bound else { throw benchFailure("cannot find a free port: \(String(cString: strerror(errno)))") }
    return Int(UInt16(bigEndian: address.sin_port))
}
