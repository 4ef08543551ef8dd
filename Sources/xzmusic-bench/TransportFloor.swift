import Foundation
import NIOCore
import NIOPosix

/// The least a SwiftNIO server can do per request (`make bench-server` times it next to MPD and
/// `xzmusic serve`): every line it reads is answered with the same bytes, here the host's own `status`
/// answer. No parsing, no session, no player: what is left is the transport's cost per request.
enum TransportFloor {
    /// Serves on 127.0.0.1:`port` until the process is ended; throws if it cannot listen or stops listening.
    static func serve(port: Int, answer: [UInt8]) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
        let channel = try ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 128)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(FixedAnswer(answer: answer))
                }
            }
            .bind(host: "127.0.0.1", port: port).wait()
        try channel.closeFuture.wait()
        throw benchFailure("the transport floor stopped listening on port \(port)")
    }

    private final class FixedAnswer: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let answer: [UInt8]

        init(answer: [UInt8]) { self.answer = answer }

        func channelActive(context: ChannelHandlerContext) {
            context.writeAndFlush(wrapOutboundOut(context.channel.allocator.buffer(string: "OK MPD 0.23.5\n")), promise: nil)
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let lines = unwrapInboundIn(data).readableBytesView.reduce(0) { $1 == 0x0A ? $0 + 1 : $0 }
            guard lines > 0 else { return }
            var out = context.channel.allocator.buffer(capacity: answer.count * lines)
            for _ in 0..<lines { out.writeBytes(answer) }
            context.writeAndFlush(wrapOutboundOut(out), promise: nil)
        }
    }
}
