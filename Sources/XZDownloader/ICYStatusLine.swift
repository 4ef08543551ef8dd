import NIOCore
import NIOHTTP1

/// SHOUTcast v1 answers `ICY 200 OK` where HTTP has `HTTP/1.0 200 OK`, which the HTTP parser refuses. In
/// front of a connection's response decoder, this reads a leading `ICY ` as `HTTP/1.0 ` (as libcurl, and so
/// MPD, reads it), once; the rest of the answer (icy-metaint, titles, every cap) is read as any other.
final class ICYStatusLine: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private static let icy = Array("ICY ".utf8)
    /// The answer's first bytes, held until there are enough to tell whether it starts with `ICY `.
    private var start: ByteBuffer?

    /// Puts one in front of the response decoder of an AsyncHTTPClient HTTP/1 connection.
    static func install(on channel: Channel) -> EventLoopFuture<Void> {
        channel.eventLoop.submit {
            let pipeline = channel.pipeline.syncOperations
            // A connection laid out otherwise still fetches; only an ICY answer would fail on it (the radio tests say so).
            guard let decoder = try? pipeline.handler(type: ByteToMessageHandler<HTTPResponseDecoder>.self) else { return }
            try pipeline.addHandler(ICYStatusLine(), position: .before(decoder))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var bytes = unwrapInboundIn(data)
        if var held = start {
            held.writeBuffer(&bytes)
            bytes = held
        }
        let first = bytes.readableBytesView.prefix(Self.icy.count)
        guard first.elementsEqual(Self.icy.prefix(first.count)) else { return pass(bytes, context: context) }
        guard first.count == Self.icy.count else {
            start = bytes
            return
        }
        bytes.moveReaderIndex(forwardBy: Self.icy.count)
        var rewritten = ByteBuffer(string: "HTTP/1.0 ")
        rewritten.writeBuffer(&bytes)
        pass(rewritten, context: context)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let held = start {
            start = nil
            context.fireChannelRead(wrapInboundOut(held))
        }
        context.fireChannelInactive()
    }

    /// Hands the bytes on and leaves the pipeline: later answers on the connection are plain HTTP.
    private func pass(_ bytes: ByteBuffer, context: ChannelHandlerContext) {
        start = nil
        context.fireChannelRead(wrapInboundOut(bytes))
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }
}
