import Foundation
import NIOCore

/// One HTTP connection to the stream: its request head (capped, timed out), then the audio through a
/// capped queue of its own, with ICY blocks in it when it asked for them. On the output's loop only.
final class StreamListener: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private enum Phase { case head, streaming, done }

    private let listeners: StreamListeners
    private var context: ChannelHandlerContext?
    private var phase = Phase.head
    private var head = ByteBuffer()
    private var headTimeout: Scheduled<Void>?
    private var queue = CircularBuffer<ByteBuffer>()
    private var queuedBytes = 0
    /// ICY: set when the listener asked; bytes of audio since the last block; the block due next.
    private var metaint: Int?
    private var metadataFill = 0
    private var pendingMetadata: ByteBuffer?
    private static let noMetadata: ByteBuffer = ByteBuffer(bytes: [0])

    init(listeners: StreamListeners) {
        self.listeners = listeners
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        guard listeners.pendingHeads < StreamOutputSettings.pendingHeadCap else {
            phase = .done
            context.close(promise: nil)
            return
        }
        listeners.pendingHeads += 1
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
        close()
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        drain()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // What a listener sends after its head is ignored.
        guard phase == .head else { return }
        var bytes = unwrapInboundIn(data)
        head.writeBuffer(&bytes)
        let view = head.readableBytesView
        if let end = Self.headEnd(view) {
            answer(String(decoding: view[view.startIndex..<end], as: UTF8.self))
        } else if head.readableBytes > StreamOutputSettings.headLimit {
            refuse("431 Request Header Fields Too Large", "the request head is too long")
        }
    }

    /// Where the head's blank line starts, if it came (CRLF or bare LF lines).
    private static func headEnd(_ view: ByteBufferView) -> ByteBufferView.Index? {
        var previous: UInt8 = 0, beforePrevious: UInt8 = 0
        for index in view.indices {
            let byte = view[index]
            if byte == 0x0A, previous == 0x0A || (previous == 0x0D && beforePrevious == 0x0A) { return index }
            beforePrevious = previous
            previous = byte
        }
        return nil
    }

    private func endHead() {
        headTimeout?.cancel()
        headTimeout = nil
        if phase == .head {
            listeners.pendingHeads -= 1
            phase = .done
        }
    }

    /// The request head (without its blank line) decides: one HTTP error, or the stream.
    private func answer(_ text: String) {
        // CRLF is one Character in Swift: lines end at it, at a bare LF, or at a bare CR.
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\r\n" || $0 == "\n" || $0 == "\r" }
        let words = (lines.first ?? "").split(separator: " ", omittingEmptySubsequences: false)
        guard words.count == 3, words[2].hasPrefix("HTTP/1."), words[1].hasPrefix("/") else {
            return refuse("400 Bad Request", "not an HTTP request")
        }
        let method = words[0]
        guard method == "GET" || method == "HEAD" else {
            return refuse("405 Method Not Allowed", "only GET and HEAD", extra: "Allow: GET, HEAD\r\n")
        }
        // MPD's list of paths that are no stream (browsers and crawlers ask for them).
        let path = words[1].dropFirst()
        if ["favicon.ico", "robots.txt", "sitemap.xml"].contains(path) || path.hasPrefix(".well-known/") {
            return refuse("404 Not Found", "not found")
        }
        var wantsICY = false, authorization: Substring?
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if name == "icy-metadata" { wantsICY = value == "1" }
            if name == "authorization" { authorization = Substring(value) }
        }
        if let password = listeners.settings.password, !Self.grants(authorization, password: password) {
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
        if method == "HEAD" {
            context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
            return
        }
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response)), promise: nil)
        phase = .streaming
        listeners.add(self)
    }

    /// HTTP Basic with the password, any user name (`http://user:PASSWORD@host:port/`).
    private static func grants(_ authorization: Substring?, password: String) -> Bool {
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

    /// One clear HTTP error, then the connection closes.
    func refuse(_ status: String, _ reason: String, extra: String = "") {
        endHead()
        guard let context else { return }
        let response = "HTTP/1.1 \(status)\r\nContent-Type: text/plain\r\nConnection: close\r\n\(extra)\r\n\(reason)\n"
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: response))).whenComplete { [channel = context.channel] _ in channel.close(promise: nil) }
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
