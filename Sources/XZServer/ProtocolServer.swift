import Foundation
import NIOCore
import NIOPosix
import XZSystem
import XZHost
import XZMPDCommands
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
    /// How long one request or command list may run before it is cancelled with an ACK.
    public var requestBudget = MPDService.defaultRequestBudget

    public init() {}
}

/// The transport: accepts protocol clients on a Unix socket and optionally TCP, splits their input into
/// lines and hands each to the client's `ClientSession`; one event loop thread per core, each client
/// staying on one.
public final class ProtocolServer: Sendable {
    /// The host and what its connections share.
    public let service: MPDService
    public var host: PlayerHost { service.host }
    public var password: String? { service.password }
    public let limits: ServerLimits
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    /// Threads for the requests that read the catalogue or files (`MPDCommand.Work.blocking`).
    let blockingPool = NIOThreadPool(numberOfThreads: System.coreCount)
    private let state = Mutex<(channels: [Channel], connections: Int)>(([], 0))

    public init(host: PlayerHost, password: String?, limits: ServerLimits = ServerLimits()) {
        service = MPDService(host: host, password: password, maxOutputBytes: limits.maxOutputBytes,
                             requestBudget: limits.requestBudget)
        self.limits = limits
        blockingPool.start()
    }

    /// Listens on a Unix socket (mode 0600; an old file there is replaced, so take the `HostLock` first).
    public func listen(unixPath: String) throws {
        let folder = (unixPath as NSString).deletingLastPathComponent
        // A folder that cannot be made fails the bind below, with the reason.
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
        let open = state.withLock { state in
            defer { state.channels = [] }
            return state.channels
        }
        // Closing fails only for a channel already closed, and a second shutdown finds nothing to stop.
        for channel in open { try? channel.close().wait() }
        try? group.syncShutdownGracefully()
        try? blockingPool.syncShutdownGracefully()
    }

    private func add(_ channel: Channel) {
        state.withLock { $0.channels.append(channel) }
    }

    /// Counts a new connection; false when the host is full.
    fileprivate func admit() -> Bool {
        state.withLock { state in
            guard state.connections < limits.maxConnections else { return false }
            state.connections += 1
            return true
        }
    }

    fileprivate func release() {
        state.withLock { $0.connections -= 1 }
    }

    private func bootstrap(peer: ClientSession.Peer) -> ServerBootstrap {
        ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.backlog, value: 128)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { [self] channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(ConnectionHandler(server: self, peer: peer))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
            // Past the high mark the channel turns unwritable, which drops a client that asks and never reads.
            .childChannelOption(ChannelOptions.writeBufferWaterMark,
                                value: .init(low: limits.maxOutputBytes / 2, high: limits.maxOutputBytes))
    }
}

/// One client: its session, its `idle` wake-ups, its output budget and its silence timeout, all on the
/// channel's event loop. Lines are split here rather than by extra pipeline stages: every request pays
/// for each stage, and the protocol needs nothing more than "bytes up to a newline".
final class ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ProtocolServer
    private var session: ClientSession
    private var listener: Int?
    private var admitted = false
    private var closing = false
    /// The start of a line whose newline has not come yet.
    private var partialLine: ByteBuffer?
    /// The line being handled and its answer; their storage is reused from line to line.
    private var line: [UInt8] = []
    private var answer = ClientSession.Output()
    /// Answers not yet handed to the socket. Kept between flushes: once the socket has taken the bytes
    /// the storage is this handler's alone again and is refilled in place.
    private var outbound: ByteBuffer?
    private var lastActivity = NIODeadline.now()
    private var timeoutCheck: RepeatedTask?
    /// A request's answer is being made on the blocking pool.
    private var busy = false
    private var heardWhileBusy: HostChanges = []

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
        // The handler is touched on its event loop only; the observer is removed when the channel closes.
        let handler = NIOLoopBound(self, eventLoop: loop)
        listener = server.host.observeChanges { changes in
            loop.execute {
                let handler = handler.value
                guard !handler.busy else {
                    handler.heardWhileBusy.formUnion(changes)
                    return
                }
                guard let bytes = handler.session.notify(changes) else { return }
                handler.lastActivity = .now()
                handler.send(bytes, on: channel)
            }
        }
        // A client waiting in idle may be silent for as long as it likes; any other is dropped after
        // the timeout (checked a few times per timeout, so it is exceeded by at most a quarter).
        let timeout = server.limits.connectionTimeout
        let period = TimeAmount.nanoseconds(max(timeout.nanoseconds / 4, 1_000_000))
        timeoutCheck = loop.scheduleRepeatedTask(initialDelay: period, delay: period) { _ in
            let handler = handler.value
            guard !handler.busy, !handler.session.isIdle, .now() - handler.lastActivity >= timeout else { return }
            handler.close(channel)
        }
        send(Array(ClientSession.greeting.utf8), on: channel)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeoutCheck?.cancel()
        timeoutCheck = nil
        if let listener { server.host.stopObserving(listener) }
        listener = nil
        if admitted { server.release() }
        admitted = false
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        lastActivity = .now()
        var input = unwrapInboundIn(data)
        if var partial = partialLine {
            partial.writeBuffer(&input)
            input = partial
            partialLine = nil
        }
        answerLines(in: &input, on: context.channel)
        guard !closing, input.readableBytes > 0 else { return }
        // Only a partial line may wait this long; whole lines wait only behind a blocking answer.
        guard busy || input.readableBytes <= server.limits.maxLineBytes else {
            close(context.channel)
            return
        }
        // Copied, so the socket's receive buffer can be reused for the next read.
        var rest = context.channel.allocator.buffer(capacity: input.readableBytes)
        rest.writeBuffer(&input)
        partialLine = rest
    }

    /// Answers the whole lines in `input` in order, until one's answer must wait for a blocking thread.
    private func answerLines(in input: inout ByteBuffer, on channel: Channel) {
        let maxLine = server.limits.maxLineBytes
        while !closing, !busy, let newline = input.readableBytesView.firstIndex(of: 0x0A) {
            let length = newline - input.readerIndex
            guard length <= maxLine else {
                close(channel)
                return
            }
            line.removeAll(keepingCapacity: true)
            input.withUnsafeReadableBytes { bytes in
                line.append(contentsOf: bytes.prefix(length).assumingMemoryBound(to: UInt8.self))
            }
            input.moveReaderIndex(forwardBy: length + 1)
            if session.answerBlocks(line) {
                answerOffLoop(line, on: channel)
                return
            }
            answer.bytes.removeAll(keepingCapacity: true)
            answer.close = false
            session.receive(utf8: line, service: server.service, into: &answer)
            // Answers go out together when the read burst ends (channelReadComplete), one syscall for many.
            if !answer.bytes.isEmpty { send(answer.bytes, on: channel, flush: false) }
            // A long line's or a large answer's storage is not kept for the small ones that follow.
            if line.capacity > Self.keptCapacity { line = [] }
            if answer.bytes.capacity > Self.keptCapacity { answer.bytes = [] }
            if answer.close {
                flushOutbound(channel)
                close(channel)
            }
        }
    }

    /// Answers `line` on a thread of the blocking pool; the session travels there and back, and the
    /// lines after it wait in `partialLine` (their order kept), changes heard meanwhile in `heardWhileBusy`.
    private func answerOffLoop(_ line: [UInt8], on channel: Channel) {
        busy = true
        let session = self.session
        let service = server.service
        let handler = NIOLoopBound(self, eventLoop: channel.eventLoop)
        server.blockingPool.runIfActive(eventLoop: channel.eventLoop) { () -> (ClientSession, ClientSession.Output) in
            var session = session
            var output = ClientSession.Output()
            session.receive(utf8: line, service: service, into: &output)
            return (session, output)
        }.whenComplete { result in
            handler.value.answered(result, on: channel)
        }
    }

    /// On the event loop: a blocking answer is back with the session it changed.
    private func answered(_ result: Result<(ClientSession, ClientSession.Output), any Error>, on channel: Channel) {
        busy = false
        guard case .success(let (session, output)) = result else {
            close(channel)
            return
        }
        self.session = session
        lastActivity = .now()
        if !heardWhileBusy.isEmpty, let bytes = self.session.notify(heardWhileBusy) { send(bytes, on: channel, flush: false) }
        heardWhileBusy = []
        if !output.bytes.isEmpty { send(output.bytes, on: channel, flush: false) }
        if output.close {
            flushOutbound(channel)
            close(channel)
            return
        }
        if var waiting = partialLine {
            partialLine = nil
            answerLines(in: &waiting, on: channel)
            if !closing, waiting.readableBytes > 0 { partialLine = waiting }
        }
        flushOutbound(channel)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Through the context: the channel's generic write starts at the pipeline's tail.
        guard var bytes = takeOutbound() else { return }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        reuseOutbound(&bytes)
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        close(context.channel)
    }

    private func send(_ bytes: [UInt8], on channel: Channel, flush: Bool = true) {
        guard !closing else { return }
        guard channel.isWritable, (outbound?.readableBytes ?? 0) + bytes.count <= server.limits.maxOutputBytes else {
            close(channel)
            return
        }
        if outbound == nil { outbound = channel.allocator.buffer(capacity: max(bytes.count, Self.outboundCapacity)) }
        outbound?.writeBytes(bytes)
        if flush { flushOutbound(channel) }
    }

    private func flushOutbound(_ channel: Channel) {
        guard var bytes = takeOutbound() else { return }
        channel.writeAndFlush(bytes, promise: nil)
        reuseOutbound(&bytes)
    }

    /// The answers waiting to go out, for writing.
    private func takeOutbound() -> ByteBuffer? {
        guard let bytes = outbound, bytes.readableBytes > 0 else { return nil }
        outbound = nil
        return bytes
    }

    /// Keeps the storage of written answers for the next ones: refilled in place when the socket took every
    /// byte, new storage when some still wait for it. A large answer's storage is not kept.
    private func reuseOutbound(_ bytes: inout ByteBuffer) {
        guard bytes.capacity <= Self.keptCapacity else { return }
        bytes.clear()
        outbound = bytes
    }

    /// Room for a few ordinary answers.
    private static let outboundCapacity = 4096
    /// Buffers up to this size are kept from request to request, per connection.
    private static let keptCapacity = 64 * 1024

    private func close(_ channel: Channel) {
        guard !closing else { return }
        closing = true
        outbound = nil
        channel.close(promise: nil)
    }
}
