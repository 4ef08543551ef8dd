import Foundation
import NIOCore
import NIOPosix
import XZProtocol

/// Limits on what one client can make the host hold, after MPD's defaults.
public struct ServerLimits: Sendable {
    public var maxConnections = 100
    /// Seconds a client may sit silent outside `idle`.
    public var connectionTimeout: TimeAmount = .seconds(60)
    /// A longer request line drops the client.
    public var maxLineBytes = 64 * 1024
    /// Unsent response bytes beyond this drop the client (one that asks and never reads).
    public var maxOutputBytes = 8 * 1024 * 1024

    public init() {}
}

/// The transport: accepts protocol clients on a Unix socket and optionally TCP, splits their input into
/// lines and hands each to the client's `ClientSession`; one event loop thread per core, each client
/// staying on one.
public final class ProtocolServer: @unchecked Sendable {
    public let host: PlayerHost
    public let password: String?
    public let limits: ServerLimits
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    private let lock = NSLock()
    private var channels: [Channel] = []
    private var connections = 0

    public init(host: PlayerHost, password: String?, limits: ServerLimits = ServerLimits()) {
        self.host = host
        self.password = password
        self.limits = limits
    }

    /// Listens on a Unix socket (mode 0600; an old file there is replaced, so take the `HostLock` first).
    public func listen(unixPath: String) throws {
        let folder = (unixPath as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true,
                                                 attributes: [.posixPermissions: 0o700])
        // Nobody else may connect, even in the moment between bind and chmod.
        let oldMask = umask(0o177)
        defer { umask(oldMask) }
        let channel = try bootstrap(peer: .local)
            .bind(unixDomainSocketPath: unixPath, cleanupExistingSocketFile: true).wait()
        add(channel)
    }

    /// Listens on TCP; returns the port (useful with port 0).
    @discardableResult
    public func listen(host address: String, port: Int) throws -> Int {
        let channel = try bootstrap(peer: .network).bind(host: address, port: port).wait()
        add(channel)
        return channel.localAddress?.port ?? port
    }

    /// Stops accepting and closes every connection.
    public func shutdown() {
        lock.lock()
        let open = channels
        channels = []
        lock.unlock()
        for channel in open { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
    }

    private func add(_ channel: Channel) {
        lock.lock()
        channels.append(channel)
        lock.unlock()
    }

    /// Counts a new connection; false when the host is full.
    fileprivate func admit() -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard connections < limits.maxConnections else { return false }
        connections += 1
        return true
    }

    fileprivate func release() {
        lock.lock()
        connections -= 1
        lock.unlock()
    }

    private func bootstrap(peer: ClientSession.Peer) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 128)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(IdleStateHandler(readTimeout: limits.connectionTimeout))
                    try channel.pipeline.syncOperations.addHandler(
                        ByteToMessageHandler(LineSplitter(maxLength: limits.maxLineBytes)))
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: self, peer: peer))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
    }
}

/// Request lines, without their `\n`; a line longer than the limit is an error that drops the client.
struct LineSplitter: ByteToMessageDecoder {
    typealias InboundOut = ByteBuffer
    let maxLength: Int

    mutating func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
        guard let newline = buffer.readableBytesView.firstIndex(of: 0x0A) else {
            if buffer.readableBytes > maxLength { throw LineTooLong() }
            return .needMoreData
        }
        let length = newline - buffer.readerIndex
        guard length <= maxLength, let line = buffer.readSlice(length: length) else { throw LineTooLong() }
        buffer.moveReaderIndex(forwardBy: 1)
        context.fireChannelRead(wrapInboundOut(line))
        return .continue
    }

    /// Half a line from a client that hung up is dropped, as MPD drops it.
    mutating func decodeLast(context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool) throws -> DecodingState {
        while try decode(context: context, buffer: &buffer) == .continue {}
        buffer.moveReaderIndex(to: buffer.writerIndex)
        return .needMoreData
    }
}

struct LineTooLong: Error {}

/// One client: its session, its `idle` wake-ups and its output budget, all on the channel's event loop.
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ProtocolServer
    private var session: ClientSession
    private var listener: Int?
    private var admitted = false
    private var unsentBytes = 0
    private var closing = false

    init(server: ProtocolServer, peer: ClientSession.Peer) {
        self.server = server
        session = ClientSession(peer: peer, passwordRequired: server.password != nil)
    }

    func channelActive(context: ChannelHandlerContext) {
        guard server.admit() else {
            context.close(promise: nil)
            return
        }
        admitted = true
        let channel = context.channel
        let loop = context.eventLoop
        listener = server.host.addIdleListener { [weak self] subsystems in
            loop.execute {
                guard let self, let bytes = self.session.notify(subsystems) else { return }
                self.send(bytes, on: channel)
            }
        }
        send(Array(ClientSession.greeting.utf8), on: channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let listener { server.host.removeIdleListener(listener) }
        listener = nil
        if admitted { server.release() }
        admitted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        let buffer = unwrapInboundIn(data)
        let line = String(decoding: buffer.readableBytesView, as: UTF8.self)
        let output = session.receive(line: line, host: server.host, password: server.password)
        if !output.bytes.isEmpty { send(output.bytes, on: context.channel) }
        if output.close { close(context.channel) }
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        // A client waiting in idle may be silent for as long as it likes.
        if event is IdleStateHandler.IdleStateEvent, !session.isIdle {
            close(context.channel)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        close(context.channel)
    }

    private func send(_ bytes: [UInt8], on channel: Channel) {
        guard !closing else { return }
        unsentBytes += bytes.count
        guard unsentBytes <= server.limits.maxOutputBytes else {
            close(channel)
            return
        }
        let count = bytes.count
        channel.writeAndFlush(channel.allocator.buffer(bytes: bytes)).whenComplete { [weak self] _ in
            self?.unsentBytes -= count
        }
    }

    private func close(_ channel: Channel) {
        guard !closing else { return }
        closing = true
        channel.close(promise: nil)
    }
}
