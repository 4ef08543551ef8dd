import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A small HTTP/1.1 server on 127.0.0.1 (port chosen by the kernel) with fault injection: one
/// thread per connection, one response per connection (`Connection: close`).
package final class TestHTTPServer: @unchecked Sendable {
    package struct Request: Sendable {
        package var method: String
        package var target: String
        package var path: String
        package var query: [String: String]
        package var headers: [String: String]
        package subscript(header: String) -> String? { headers[header.lowercased()] }
    }

    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)] = []
        package var body = Data()
        /// Content-Length sent instead of the body's size; nil sends the real size.
        package var declaredLength: Int?
        package var omitContentLength = false
        /// Close the connection after this many body bytes.
        package var dropAfter: Int?
        /// Send the body in pieces of `chunk` bytes with `delay` seconds between them.
        package var chunk = 64 * 1024
        package var delay: Double = 0
        /// After this many body bytes, send nothing for `stallSeconds`.
        package var stallAfter: Int?
        package var stallSeconds: Double = 0
        /// A small socket send buffer keeps few bytes in flight (for the kill test).
        package var sendBuffer: Int?
        /// Sends the body over and over until the client goes (a radio stream); no Content-Length.
        package var endless = false

        package init(status: Int, headers: [(String, String)] = [], body: Data = Data()) {
            self.status = status
            self.headers = headers
            self.body = body
        }

        package static func text(_ status: Int, _ text: String, type: String = "text/plain") -> Response {
            Response(status: status, headers: [("Content-Type", type)], body: Data(text.utf8))
        }

        package static func json(_ status: Int, _ object: Any) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
            return Response(status: status, headers: [("Content-Type", "application/json")], body: data)
        }

        package static func redirect(_ status: Int = 302, to location: String) -> Response {
            Response(status: status, headers: [("Location", location)])
        }
    }

    package typealias Handler = @Sendable (Request, Int) -> Response

    private let listener: Int32
    package let port: Int
    private let handler: Handler
    private let lock = NSLock()
    private var _requests: [Request] = []
    private var _bytesSent: [String: Int] = [:]
    private var _counts: [String: Int] = [:]
    private var active = 0
    private var _maxActive = 0
    private var stopped = false

    /// `handler` gets each request and how many requests for its path came before it.
    package init(handler: @escaping Handler) throws {
        signal(SIGPIPE, SIG_IGN)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Self.failure("socket") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, 64) == 0 else { close(fd); throw Self.failure("bind/listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        self.handler = handler
        let thread = Thread { [weak self] in self?.acceptLoop() }
        thread.start()
    }

    deinit { stop() }

    package var base: String { "http://127.0.0.1:\(port)" }
    package func url(_ path: String) -> String { base + path }

    package var requests: [Request] { lock.withLock { _requests } }
    package func requests(path: String) -> [Request] { requests.filter { $0.path == path } }
    package func bytesSent(path: String) -> Int { lock.withLock { _bytesSent[path] ?? 0 } }
    package var maxConcurrentConnections: Int { lock.withLock { _maxActive } }
    package var isStopped: Bool { lock.withLock { stopped } }

    package func stop() {
        let first: Bool = lock.withLock {
            defer { stopped = true }
            return !stopped
        }
        if first {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    private static func failure(_ what: String) -> NSError {
        NSError(domain: "TestHTTPServer", code: Int(errno), userInfo: [NSLocalizedDescriptionKey: "\(what): \(String(cString: strerror(errno)))"])
    }

    private func acceptLoop() {
        while !isStopped {
            let client = accept(listener, nil, nil)
            if client < 0 {
                if errno == EINTR { continue }
                return
            }
            let thread = Thread { [weak self] in
                self?.serve(client)
                close(client)
            }
            thread.start()
        }
    }

    private func serve(_ fd: Int32) {
        guard let request = readRequest(fd) else { return }
        lock.withLock {
            active += 1
            _maxActive = max(_maxActive, active)
        }
        var counted = true
        defer { if counted { lock.withLock { active -= 1 } } }
        let index: Int = lock.withLock {
            _requests.append(request)
            defer { _counts[request.path, default: 0] += 1 }
            return _counts[request.path] ?? 0
        }
        let response = handler(request, index)
        if let size = response.sendBuffer {
            var value = Int32(size)
            setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &value, socklen_t(MemoryLayout<Int32>.size))
        }
        var head = "HTTP/1.1 \(response.status) \(Self.reason(response.status))\r\nConnection: close\r\n"
        for (name, value) in response.headers { head += "\(name): \(value)\r\n" }
        if !response.omitContentLength, !response.endless {
            head += "Content-Length: \(response.declaredLength ?? response.body.count)\r\n"
        }
        head += "\r\n"
        guard sendAll(fd, Data(head.utf8)) else { return }
        if request.method == "HEAD" { return }
        if response.endless, !response.body.isEmpty {
            var offset = 0
            while !isStopped {
                let start = offset % response.body.count
                let end = min(response.body.count, start + response.chunk)
                if response.delay > 0, offset > 0 { pause(response.delay) }
                guard sendAll(fd, response.body.subdata(in: start ..< end)) else { return }
                lock.withLock { _bytesSent[request.path, default: 0] += end - start }
                offset += end - start
            }
            return
        }
        let limit = min(response.body.count, response.dropAfter ?? Int.max)
        var offset = 0
        var stalled = false
        while offset < limit, !isStopped {
            if let stallAt = response.stallAfter, offset >= stallAt, !stalled {
                stalled = true
                pause(response.stallSeconds)
            }
            var end = min(limit, offset + response.chunk)
            if let stallAt = response.stallAfter, !stalled, stallAt > offset { end = min(end, stallAt) }
            // The pause comes before a chunk, never after the last, so the connection counts as
            // finished as soon as its last byte is out.
            if response.delay > 0, offset > 0 { pause(response.delay) }
            guard sendAll(fd, response.body.subdata(in: offset ..< end)) else { return }
            lock.withLock { _bytesSent[request.path, default: 0] += end - offset }
            offset = end
        }
        lock.withLock { active -= 1 }
        counted = false
        // A drop is a plain close before the announced length: every byte sent still arrives, so
        // the resume offset is exact (an RST could discard unread bytes).
        shutdown(fd, Int32(SHUT_WR))
    }

    /// Sleeps in small steps so a stopped server's threads end soon.
    private func pause(_ seconds: Double) {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end, !isStopped { usleep(10_000) }
    }

    private func sendAll(_ fd: Int32, _ data: Data) -> Bool {
        data.withUnsafeBytes { raw in
            var sent = 0
            while sent < raw.count {
                let n = send(fd, raw.baseAddress! + sent, raw.count - sent, Int32(MSG_NOSIGNAL))
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                sent += n
            }
            return true
        }
    }

    private func readRequest(_ fd: Int32) -> Request? {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while data.range(of: Data("\r\n\r\n".utf8)) == nil {
            let n = recv(fd, &buffer, buffer.count, 0)
            if n <= 0 { return nil }
            data.append(buffer, count: n)
            if data.count > 65536 { return nil }
        }
        let text = String(decoding: data, as: UTF8.self)
        var lines = text.components(separatedBy: "\r\n")
        let parts = lines.removeFirst().split(separator: " ").map(String.init)
        guard parts.count >= 2 else { return nil }
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let target = parts[1]
        let pieces = target.split(separator: "?", maxSplits: 1).map(String.init)
        var query: [String: String] = [:]
        if pieces.count == 2 {
            for pair in pieces[1].split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                let value = kv.count == 2 ? kv[1].removingPercentEncoding ?? kv[1] : ""
                query[kv[0].removingPercentEncoding ?? kv[0]] = value
            }
        }
        return Request(method: parts[0], target: target, path: pieces[0], query: query, headers: headers)
    }

    package static func reason(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 404: return "Not Found"
        case 416: return "Range Not Satisfiable"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return "Status"
        }
    }

    /// A file resource with Range and If-Range handled as a correct server does.
    package static func file(_ data: Data, request: Request, etag: String? = "\"v1\"", lastModified: String? = nil,
                     honourRange: Bool = true) -> Response {
        var validators: [(String, String)] = []
        if let etag { validators.append(("ETag", etag)) }
        if let lastModified { validators.append(("Last-Modified", lastModified)) }
        let full = Response(status: 200, headers: validators + [("Accept-Ranges", "bytes")], body: data)
        guard honourRange, let range = request["range"], range.hasPrefix("bytes="), range.hasSuffix("-"),
              let start = Int(range.dropFirst(6).dropLast()) else { return full }
        if let ifRange = request["if-range"], ifRange != etag, ifRange != lastModified { return full }
        guard start < data.count else {
            return Response(status: 416, headers: [("Content-Range", "bytes */\(data.count)")])
        }
        return Response(status: 206, headers: validators + [("Content-Range", "bytes \(start)-\(data.count - 1)/\(data.count)")],
                        body: data.subdata(in: start ..< data.count))
    }
}
