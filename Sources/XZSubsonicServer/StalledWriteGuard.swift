import NIOCore

/// Closes a connection whose client stops reading: once the socket has not taken bytes for `limit`,
/// the response cannot end, and the stream or file behind it would be held forever.
final class StalledWriteGuard: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny

    private let limit: TimeAmount
    private var timer: Scheduled<Void>?

    init(limit: TimeAmount) {
        self.limit = limit
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            timer?.cancel()
            timer = nil
        } else if timer == nil {
            let channel = context.channel
            timer = context.eventLoop.scheduleTask(in: limit) { channel.close(promise: nil) }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }
}
