import Foundation
import Hummingbird
import NIOCore
import NIOPosix
import XZSubsonicAPI
import XZSystem

/// A request's context: Hummingbird's, and the connection it came on (its address slows wrong
/// credentials; a client too slow to send its body is cut off there).
struct SubsonicRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        coreContext = CoreRequestContextStorage(source: source)
        channel = source.channel
    }
}

/// Requests being answered (the router's work and the document's encoding), capped: past the cap a
/// request is told to come back (503) at once.
final class RequestGate: Sendable {
    private let inFlight = Mutex(0)
    let capacity: Int

    init(capacity: Int) { self.capacity = capacity }

    func enter() -> Bool {
        inFlight.withLock { count in
            guard count < capacity else { return false }
            count += 1
            return true
        }
    }

    func leave() { inFlight.withLock { $0 -= 1 } }
}

/// `/rest/NAME` and `/rest/NAME.view` by GET, HEAD and form POST: the parameters of the query and the
/// body, in order, handed to the router on the pool's threads; its reply written back as a document,
/// a file (with its range), bytes, or a stream produced on a thread of its own.
struct SubsonicHTTPResponder: HTTPResponder {
    typealias Context = SubsonicRequestContext

    let router: SubsonicRouter
    let limits: SubsonicServerLimits
    let pool: NIOThreadPool
    let gate: RequestGate
    let throttle: CredentialThrottle

    func respond(to request: Request, context: Context) async throws -> Response {
        // A server address typed with a trailing slash makes some clients ask for `//rest/…`.
        let path = "/" + request.uri.path.drop { $0 == "/" }
        guard path.hasPrefix("/rest/") else { return Self.plain(.notFound, "not found\n") }
        guard request.method == .get || request.method == .head || request.method == .post else {
            var response = Self.plain(.methodNotAllowed, "GET, HEAD or POST\n")
            response.headers[.allow] = "GET, HEAD, POST"
            return response
        }
        let isHead = request.method == .head
        let address = context.channel.remoteAddress?.ipAddress ?? "unknown"
        var parameters: [(name: String, value: String)] = []
        do {
            parameters = try SubsonicFormDecoding.pairs(Array((request.uri.query ?? "").utf8))
            if request.method == .post {
                switch try await formBody(of: request, context: context) {
                case .pairs(let pairs): parameters += pairs
                case .tooLarge: return Self.plain(.contentTooLarge, "a form body is at most \(limits.maxBodyBytes) bytes\n")
                case .notForm: return Self.plain(.unsupportedMediaType, "a POST body is application/x-www-form-urlencoded\n")
                }
            }
        } catch let error as SubsonicError {
            let partial = SubsonicRequest(endpoint: "", parameters: parameters, clientAddress: address)
            return Self.document(error, format: SubsonicFormat.fallback(for: partial), status: .ok, isHead: isHead)
        }
        let endpoint = String(path.dropFirst("/rest/".count))
        let subsonicRequest = SubsonicRequest(endpoint: endpoint, parameters: parameters, isHead: isHead,
                                              range: request.headers[.range], clientAddress: address)
        let format: SubsonicFormat
        do {
            format = try SubsonicFormat(request: subsonicRequest)
        } catch {
            return Self.document(error, format: SubsonicFormat.fallback(for: subsonicRequest), status: .ok, isHead: isHead)
        }
        // An address whose last credentials were wrong waits here, off every thread, before they are checked again.
        let delay = throttle.delay(for: address)
        if delay > .zero { try await Task.sleep(for: delay) }
        // Counted from here: a client slow to send, or held for its wrong credentials, takes no place of
        // the requests being answered.
        guard gate.enter() else {
            var response = Self.document(SubsonicError.generic("the server is busy; try again shortly"), format: format,
                                         status: .serviceUnavailable, isHead: isHead)
            response.headers[.retryAfter] = "1"
            return response
        }
        defer { gate.leave() }
        let prepared = try await pool.runIfActive { [router] in
            Self.prepare(router.respond(subsonicRequest), format: format)
        }
        return response(prepared, isHead: isHead, context: context)
    }

    // MARK: Bodies

    private enum FormBody {
        case pairs([(name: String, value: String)])
        case tooLarge
        case notForm
    }

    /// The POST body's pairs. A body that does not arrive within `limits.bodyTimeout` closes the
    /// connection: a client sending a byte a second holds nothing for long.
    private func formBody(of request: Request, context: Context) async throws -> FormBody {
        let type = request.headers[.contentType]?.lowercased() ?? ""
        let declared = request.headers[.contentLength].flatMap { Int($0) } ?? 0
        if !type.hasPrefix("application/x-www-form-urlencoded") {
            // A body-less POST (`curl -X POST`) carries its parameters in the query alone.
            guard declared == 0, type.isEmpty else { return .notForm }
            return .pairs([])
        }
        guard declared <= limits.maxBodyBytes else { return .tooLarge }
        let body = request.body
        let maxBytes = limits.maxBodyBytes
        let timeout = limits.bodyTimeout
        let collected: FormBody? = try await withThrowingTaskGroup(of: FormBody?.self) { group in
            group.addTask {
                do {
                    let bytes = try await body.collect(upTo: maxBytes)
                    return .pairs(try SubsonicFormDecoding.pairs(bytes.readableBytesView))
                } catch is NIOTooManyBytesError {
                    return .tooLarge
                }
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            return try await group.next() ?? nil
        }
        guard let collected else {
            context.channel.close(promise: nil)
            throw CancellationError()
        }
        return collected
    }

    // MARK: Replies

    /// A reply made ready on the pool's thread: documents are encoded there too.
    private enum Prepared {
        case body(status: HTTPResponse.Status, SubsonicEncodedBody)
        case file(FileReply)
        case stream(StreamReply)
        case bytes(BytesReply)
        case rangeNotSatisfiable(fileSize: Int64)
    }

    private static func prepare(_ outcome: SubsonicOutcome, format: SubsonicFormat) -> Prepared {
        switch outcome {
        case .reply(.document(let document)):
            do {
                return .body(status: .ok, try SubsonicEncoding.encode(document, as: format))
            } catch {
                return .body(status: .ok, SubsonicEncoding.encode(SubsonicRouter.apiError(error), as: format))
            }
        case .reply(.file(let file)): return .file(file)
        case .reply(.stream(let stream)): return .stream(stream)
        case .reply(.bytes(let bytes)): return .bytes(bytes)
        case .failure(let error, let status):
            return .body(status: HTTPResponse.Status(code: status), SubsonicEncoding.encode(error, as: format))
        case .rangeNotSatisfiable(let size): return .rangeNotSatisfiable(fileSize: size)
        }
    }

    private func response(_ prepared: Prepared, isHead: Bool, context: Context) -> Response {
        switch prepared {
        case .body(let status, let body):
            return Self.body(status: status, bytes: body.bytes, contentType: body.contentType, isHead: isHead)
        case .bytes(let reply):
            var response = Self.body(status: .ok, bytes: reply.bytes, contentType: reply.contentType, isHead: isHead)
            Self.add(reply.headers, to: &response.headers)
            return response
        case .rangeNotSatisfiable(let size):
            var response = Self.plain(.rangeNotSatisfiable, "")
            response.headers[.contentRange] = "bytes */\(size)"
            response.headers[.acceptRanges] = "bytes"
            return response
        case .file(let file):
            return fileResponse(file, isHead: isHead, context: context)
        case .stream(let stream):
            return streamResponse(stream, isHead: isHead)
        }
    }

    private func fileResponse(_ file: FileReply, isHead: Bool, context: Context) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.acceptRanges] = "bytes"
        Self.add(file.headers, to: &headers)
        let status: HTTPResponse.Status
        let range: ClosedRange<Int64>?
        if let asked = file.range, file.size > 0 {
            let clamped = max(0, asked.lowerBound)...min(asked.upperBound, file.size - 1)
            status = .partialContent
            range = clamped
            headers[.contentRange] = "bytes \(clamped.lowerBound)-\(clamped.upperBound)/\(file.size)"
        } else {
            status = .ok
            range = file.size > 0 ? 0...(file.size - 1) : nil
        }
        let length = range.map { $0.upperBound - $0.lowerBound + 1 } ?? 0
        headers[.contentLength] = String(length)
        guard !isHead, let range else { return Response(status: status, headers: headers, body: ResponseBody()) }
        let path = file.path
        let chunk = limits.fileChunkBytes
        let body = ResponseBody(contentLength: Int(length)) { writer in
            // Hummingbird's file reading: chunks read on NIO's thread pool, written as the client takes them.
            let fileBody = try await FileIO().loadFile(path: path, range: Int(range.lowerBound)...Int(range.upperBound),
                                                       context: context, chunkLength: chunk)
            try await fileBody.write(writer)
        }
        return Response(status: status, headers: headers, body: body)
    }

    private func streamResponse(_ stream: StreamReply, isHead: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = stream.contentType
        Self.add(stream.headers, to: &headers)
        let announced = stream.estimatedLength.map { max(0, $0) }
        if let announced { headers[.contentLength] = String(announced) }
        guard !isHead else { return Response(status: .ok, headers: headers, body: ResponseBody()) }
        let capacity = limits.streamHandOffChunks
        let produce = stream.produce
        let body = ResponseBody(contentLength: announced.map { Int($0) }) { writer in
            let bridge = MediaStreamBridge(capacity: capacity)
            bridge.start(produce)
            defer { bridge.cancel() }
            var written: Int64 = 0
            for try await chunk in bridge.chunks {
                bridge.took()
                var bytes = chunk[...]
                // A length announced before the bytes existed is kept to: bytes past it are cut, and the
                // producer stopped.
                if let announced {
                    bytes = bytes.prefix(Int(min(Int64(bytes.count), announced - written)))
                }
                if !bytes.isEmpty {
                    try await writer.write(ByteBuffer(bytes: bytes))
                    written += Int64(bytes.count)
                }
                if let announced, written >= announced { break }
            }
            // Short of it, the rest is silence's stand-in: zero bytes, which decoders skip as trailing junk.
            if let announced, written < announced {
                let zeros = ByteBuffer(repeating: 0, count: 64 << 10)
                while written < announced {
                    let count = Int(min(Int64(zeros.readableBytes), announced - written))
                    try await writer.write(zeros.getSlice(at: 0, length: count)!)
                    written += Int64(count)
                }
            }
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    // MARK: Small responses

    private static func document(_ error: SubsonicError, format: SubsonicFormat, status: HTTPResponse.Status, isHead: Bool) -> Response {
        let body = SubsonicEncoding.encode(error, as: format)
        return self.body(status: status, bytes: body.bytes, contentType: body.contentType, isHead: isHead)
    }

    private static func body(status: HTTPResponse.Status, bytes: [UInt8], contentType: String, isHead: Bool) -> Response {
        var headers = HTTPFields()
        headers[.contentType] = contentType
        headers[.contentLength] = String(bytes.count)
        return Response(status: status, headers: headers, body: isHead ? ResponseBody() : ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    private static func plain(_ status: HTTPResponse.Status, _ text: String) -> Response {
        body(status: status, bytes: Array(text.utf8), contentType: "text/plain; charset=utf-8", isHead: false)
    }

    private static func add(_ extra: [(name: String, value: String)], to headers: inout HTTPFields) {
        for (name, value) in extra {
            if let field = HTTPFields.Element.Name(name) { headers[field] = value }
        }
    }
}
