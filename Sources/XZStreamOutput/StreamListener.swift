import Foundation
import NIOCore
import NIOHTTP1

/// One HTTP connection to the stream: its request head (parsed by NIOHTTP1's decoder in front of it, capped
/// and timed out), then the audio through a capped queue of its own, with ICY blocks in it when it asked for
/// them. On the output's loop only.
final class StreamListener: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = ByteBuffer

    private enum Phase { case head, streaming, done }

    /// Adds a new connection's decoder and listener; the answers are written as bytes past the decoder.
    static func install(on channel: Channel, listeners: StreamListeners) throws {
        var limits = NIOHTTPDecoderLimitConfiguration()
        limits.maxHeaderFieldSize = StreamOutputSettings.headLimit
        limits.maxHeaderListSize = StreamOutputSettings.headLimit
        limits.maxHeaderFieldCount = StreamOutputSettings.headFieldLimit
        let decoder = HTTPRequestDecoder(leftOverBytesStrategy: .dropBytes, limitConfiguration: limits)
        let pipeline = channel.pipeline.syncOperations
        try pipeline.addHandler(ByteToMessageHandler(decoder, maximumBufferSize: StreamOutputSettings.headLimit))
        try pipeline.addHandler(StreamListener(listeners: listeners))
    }

    private let listeners: StreamListeners
    /// The client's address: heads still coming are capped per address.
    private(set) var peer = ""
    private var context: ChannelHandlerContext?
    private var phase = Phase.head
    private var headTimeout: Scheduled<Void>?
    private var queue = CircularBuffer<ByteBuffer>()
    private var queuedBytes = 0
    /// ICY: set when the listener asked; bytes of audio since the last block; the block due next.
    private var metaint: Int?
    private var metadataFill = 0
    private var pendingMetadata: ByteBuffer?
    private static let noMetadata: ByteBuffer = ByteBuffer(bytes: [0])

    private init(listeners: StreamListeners) {
        self.listeners = listeners
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        peer = context.channel.remoteAddress?.ipAddress ?? ""
        listeners.admit(self)
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        headTimeout = context.eventLoop.scheduleTask(in: .milliseconds(listeners.settings.headTimeoutMs)) {
            loopBound.value.refuse("408 Request Timeout", "the request took too long")
        }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        endHead()
        listeners.remove(self)
        phase = .done
        self.context = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        endHead()
        listeners.remove(self)
        phase = .done
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        let parserError = error as? HTTPParserError
        let tooLong = parserError == .headerOverflow || error is ByteToMessageDecoderError.PayloadTooLargeError
        let undecodable = tooLong || parserError != nil || error is ByteToMessageDecoderError
        // What a listener sends after its head, or after its answer, is ignored, and so is the decoder's word on it.
        if undecodable, phase != .head { return }
        if tooLong {
            refuse("431 Request Header Fields Too Large", "the request head is too long")
        } else if undecodable, parserError != .invalidEOFState {
            refuse("400 Bad Request", "not an HTTP request")
        } else {
            close()
        }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        drain()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // What a listener sends after its head (a body, another request) is ignored.
        guard phase == .head, case .head(let head) = unwrapInboundIn(data) else { return }
        answer(head)
    }

    private func endHead() {
        headTimeout?.cancel()
        headTimeout = nil
        if phase == .head {
            listeners.headEnded(self)
            phase = .done
        }
    }

    /// The request head decides: one HTTP error, or the stream.
    private func answer(_ head: HTTPRequestHead) {
        guard head.uri.hasPrefix("/") else { return refuse("400 Bad Request", "not an HTTP request") }
        guard head.method == .GET || head.method == .HEAD else {
            return refuse("405 Method Not Allowed", "only GET and HEAD", extra: "Allow: GET, HEAD\r\n")
        }
        // MPD's list of paths that are no stream (browsers and crawlers ask for them).
        let path = head.uri.dropFirst()
        if ["favicon.ico", "robots.txt", "sitemap.xml"].contains(path) || path.hasPrefix(".well-known/") {
            return refuse("404 Not Found", "not found")
        }
        let wantsICY = head.headers["icy-metadata"].last?.trimmingCharacters(in: .whitespaces) == "1"
        if let password = listeners.settings.password, !Self.grants(head.headers["authorization"].last, password: password) {
            return refuse("401 Unauthorized", "the stream needs the host's password",
                          extra: "WWW-Authenticate: Basic realm=\"\(Self.headerText(listeners.settings.name))\"\r\n")
        }
        if let (status, reason) = listeners.refusal() { return refuse(status, reason) }
        if wantsICY && listeners.offersICY { metaint = ICYMetadata.interval }
        endHead()
        guard let context else { return }
        var response = "HTTP/1.1 200 OK\r\nContent-Type: \(listeners.mimeType)\r\n"
        response += "icy-name: \(Self.headerText(listeners.settings.name))\r\n"
        if let metaint { response += "icy-metaint: \(metaint)\r\n" }
        response += "Connection: close\r\nPragma: no-cache\r\nCache-Control: no-cache, no-store\r\n"
        response += "Access-Control-Allow-Origin: *\r\n\r\n"
        if head.method == .HEAD {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
        phase = .streaming
        listeners.add(self)
    }

    /// HTTP Basic with the password, any user name (`http://user:PASSWORD@host:port/`).
    private static func grants(_ authorization: String?, password: String) -> Bool {
        guard let authorization, authorization.lowercased().hasPrefix("basic "),
              let decoded = Data(base64Encoded: String(authorization.dropFirst(6)).trimmingCharacters(in: .whitespaces)),
              let colon = decoded.firstIndex(of: UInt8(ascii: ":")) else { return false }
        let given = Array(decoded[decoded.index(after: colon)...]), expected = Array(password.utf8)
        // Every byte compared, so the time taken does not tell how much matched.
        var difference = given.count ^ expected.count
        for index in 0..<max(given.count, expected.count) {
            difference |= Int((index < given.count ? given[index] : 0) ^ (index < expected.count ? expected[index] : 0))
        }
        return difference == 0
    }

    /// Header values without line breaks or other control characters.
    private static func headerText(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.prefix(200).map { $0.value < 0x20 || $0.value == 0x7F || $0 == "\"" ? " " : $0 }))
    }

    /// One clear HTTP error, then the connection closes: this side at once, the whole when the client closes
    /// or after a second. A close with the client's bytes still unread would reset the connection, and the
    /// client could lose the answer.
    func refuse(_ status: String, _ reason: String, extra: String = "") {
        endHead()
        guard let context else { return }
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nConnection: close\r\n\(extra)\r\n\(reason)\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { [channel = context.channel] _ in
            channel.close(mode: .output, promise: nil)
            channel.eventLoop.scheduleTask(in: .seconds(1)) { channel.close(promise: nil) }
        }
    }

    func close() {
        endHead()
        phase = .done
        queue.removeAll()
        queuedBytes = 0
        context?.close(promise: nil)
    }

    /// A page of the stream; a listener whose queue is past the limit loses it (too slow) and goes on from here.
    func push(_ page: ByteBuffer) {
        guard phase == .streaming else { return }
        if queuedBytes + page.readableBytes > StreamOutputSettings.queueLimit {
            queue.removeAll()
            queuedBytes = 0
        }
        queue.append(page)
        queuedBytes += page.readableBytes
        drain()
    }

    func pushMetadata(_ block: ByteBuffer) {
        if metaint != nil { pendingMetadata = block }
    }

    /// Writes what the socket takes now; the rest waits for it to become writable again.
    private func drain() {
        guard phase == .streaming, let context else { return }
        var wrote = false
        while context.channel.isWritable, var page = queue.popFirst() {
            queuedBytes -= page.readableBytes
            wrote = true
            guard let metaint else {
                context.write(wrapOutboundOut(page), promise: nil)
                continue
            }
            while page.readableBytes > 0 {
                let part = page.readSlice(length: min(metaint - metadataFill, page.readableBytes))!
                metadataFill += part.readableBytes
                context.write(wrapOutboundOut(part), promise: nil)
                if metadataFill == metaint {
                    context.write(wrapOutboundOut(pendingMetadata ?? Self.noMetadata), promise: nil)
                    pendingMetadata = nil
                    metadataFill = 0
                }
            }
        }
        if wrote { context.flush() }
    }
}
