import Foundation
import NIOCore
import NIOPosix
import XZSystem
import XZCatalogue
import XZHostCore
import XZMPDCommands
import XZProtocol

/// Limits on what one client can make the host hold, after MPD's defaults.
package struct ServerLimits: Sendable, Equatable {
    package var maxConnections = 100
    /// Seconds a client may sit silent outside `idle`.
    package var connectionTimeout: TimeAmount = .seconds(60)
    /// A longer request line drops the client.
    package var maxLineBytes = 64 * 1024
    /// An answer, or unsent response bytes, beyond this drop the client (one that asks for too much, or
    /// asks and never reads): MPD's `max_output_buffer_size`.
    package var maxOutputBytes = 8 * 1024 * 1024
    /// How long one request or command list may run before it is cancelled with an ACK.
    package var requestBudget = SessionLimits.defaultRequestBudget
    /// MPD's `max_command_list_size`.
    package var maxCommandListBytes = SessionLimits().maxCommandListBytes
    /// Input held while a request is answered. The host stops reading from a busy client, so what it
    /// holds is what the reads under way brought (a few 64 KiB reads); more drops the client.
    package var maxBufferedInputBytes = 1024 * 1024

    package init() {}

    package var session: SessionLimits {
        var session = SessionLimits()
        session.maxCommandListBytes = maxCommandListBytes
        session.maxOutputBytes = maxOutputBytes
        session.requestBudget = requestBudget
        return session
    }
}

/// The transport: accepts protocol clients on a Unix socket and optionally TCP, splits their input into
/// lines and hands each to the client's `ClientSession`; one event loop thread per core, each client
/// staying on one.
package final class ProtocolServer: Sendable {
    /// The host and what its connections share.
    package let service: MPDService
    package var host: PlayerHost { service.host }
    package var password: String? { service.password }
    package let limits: ServerLimits
    private let group = MultiThreadedEventLoopGroup(numberOfThreads: System.coreCount)
    /// Threads for searches, listings, updates and file reads (`ClientSession.Lane.heavy`). Fewer than the
    /// library's readers, so heavy requests stuck in SQLite still leave readers for the lookups.
    let heavyPool = NIOThreadPool(numberOfThreads: ProtocolServer.heavyThreads)
    static let heavyThreads = max(1, min(System.coreCount, LibraryDatabase.readerCount / 2))
    /// Threads for quick lookups (`ClientSession.Lane.lookup`), which heavy requests never take.
    let lookupPool = NIOThreadPool(numberOfThreads: 2)
    private let state = Mutex<(channels: [Channel], connections: Int)>(([], 0))

    /// `credentials`: where wrong passwords are counted by client address; the Subsonic API's, for one
    /// count per address over both protocols.
    package init(host: PlayerHost, password: String?, limits: ServerLimits = ServerLimits(),
                 credentials: CredentialThrottle = CredentialThrottle()) {
        service = MPDService(host: host, password: password, limits: limits.session, credentials: credentials)
        self.limits = limits
        heavyPool.start()
        lookupPool.start()
    }

    /// Listens on a Unix socket (mode 0600; an old file there is replaced, so take the `HostLock` first).
    package func listen(unixPath: String) throws {
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
    package func listen(host address: String, port: Int) throws -> Int {
        let channel = try bootstrap(peer: .network).bind(host: address, port: port).wait()
        add(channel)
        return channel.localAddress?.port ?? port
    }

    /// Stops accepting and closes every connection (clients see the connection end), waiting at most
    /// `patience` for the event loops and request threads: a request stuck in a thread, or a loop busy
    /// with a long answer, is left behind rather than holding up the host's exit.
    package func shutdown(patience: TimeAmount = .seconds(1)) {
        let open = state.withLock { state in
            defer { state.channels = [] }
            return state.channels
        }
        stopping.withLock { $0 = true }
        let deadline = DispatchTime.now() + .nanoseconds(Int(patience.nanoseconds))
        let queue = DispatchQueue(label: "xzmusic.server-shutdown")
        // Closing fails only for a channel already closed, and a second shutdown finds nothing to stop.
        for channel in open { channel.close(promise: nil) }
        // The request threads first, while the loops they answer on still run.
        let pools = DispatchGroup()
        for pool in [heavyPool, lookupPool] {
            pools.enter()
            pool.shutdownGracefully(queue: queue) { _ in pools.leave() }
        }
        _ = pools.wait(timeout: deadline)
        let loops = DispatchGroup()
        loops.enter()
        group.shutdownGracefully(queue: queue) { _ in loops.leave() }
        _ = loops.wait(timeout: deadline)
    }

    /// Set by `shutdown`: answers still coming from request threads are dropped, not sent to a loop.
    private let stopping = Mutex(false)
    var isStopping: Bool { stopping.withLock { $0 } }

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
                    try channel.pipeline.syncOperations.addHandler(
                        ConnectionHandler(server: self, peer: peer, address: channel.remoteAddress?.ipAddress))
                }
            }
            .childChannelOption(ChannelOptions.socketOption(.so_keepalive), value: 1)
            // A client that ends its input (`printf 'stats\n' | nc -q 1 …`) is still answered: see `inputClosed`.
            .childChannelOption(ChannelOptions.allowRemoteHalfClosure, value: true)
            // Past the high mark the channel turns unwritable, which drops a client that asks and never reads.
            .childChannelOption(ChannelOptions.writeBufferWaterMark,
                                value: .init(low: limits.maxOutputBytes / 2, high: limits.maxOutputBytes))
    }
}

/// One client: its session, its `idle` wake-ups, its output budget and its silence timeout, all on the
/// channel's event loop. Lines are split here rather than by extra pipeline stages: every request pays
/// for each stage, and the protocol needs nothing more than "bytes up to a newline". While a request is
/// answered elsewhere (or its answer held back), the handler stops asking the socket for more input, so
/// what the client sends meanwhile waits in TCP, not in the host.
final class ConnectionHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private let server: ProtocolServer
    private var session: ClientSession
    private var listener: Int?
    private var admitted = false
    private var closing = false
    /// The start of a line whose newline has not come yet, or the lines waiting behind a busy request.
    private var partialLine: ByteBuffer?
    /// The line being handled and its answer; their storage is reused from line to line.
    private var line: [UInt8] = []
    private var answer = ClientSession.Output()
    /// Answers not yet handed to the socket. Kept between flushes: once the socket has taken the bytes
    /// the storage is this handler's alone again and is refilled in place.
    private var outbound: ByteBuffer?
    private var lastActivity = NIODeadline.now()
    /// The silence timeout's one pending check; none while the client waits in `idle`.
    private var timeoutCheck: Scheduled<Void>?
    /// The channel closed: no check is scheduled again (its task would keep this handler alive).
    private var inactive = false
    /// A request's answer is being made on a pool thread, or is held back (a wrong password's).
    private var busy = false
    /// The channel asked for input while busy; asked again once the request is answered.
    private var readHeld = false
    private var heardWhileBusy: HostChanges = []
    /// The client ended its input: once the requests it sent are answered, the connection is closed.
    private var inputEnded = false

    init(server: ProtocolServer, peer: ClientSession.Peer, address: String?) {
        self.server = server
        session = ClientSession(peer: peer, passwordRequired: server.password != nil, address: address)
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
                handler.armTimeout(channel)
            }
        }
        send(Array(ClientSession.greeting.utf8), on: channel)
        armTimeout(channel)
    }

    /// A client waiting in idle may be silent for as long as it likes; any other is dropped once silent for
    /// the timeout. One check is scheduled, for when the timeout would pass since the last activity; activity
    /// meanwhile moves the next check rather than adding one, and a client in idle, or one whose request is
    /// under way, has none (its check is scheduled when it leaves idle, or when the answer goes out).
    private func armTimeout(_ channel: Channel) {
        // A client whose input ended is still timed while its last answers go out.
        guard timeoutCheck == nil, !inactive, !closing || inputEnded, !busy, !session.isIdle || inputEnded else { return }
        let timeout = server.limits.connectionTimeout
        let handler = NIOLoopBound(self, eventLoop: channel.eventLoop)
        timeoutCheck = channel.eventLoop.scheduleTask(deadline: lastActivity + timeout) {
            let handler = handler.value
            handler.timeoutCheck = nil
            guard !handler.busy, !handler.session.isIdle || handler.inputEnded else { return }
            guard .now() - handler.lastActivity >= timeout else {
                handler.armTimeout(channel)
                return
            }
            handler.close(channel)
            // A client whose input ended and who never reads its last answers is closed all the same.
            if handler.inputEnded { channel.close(promise: nil) }
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        inactive = true
        timeoutCheck?.cancel()
        timeoutCheck = nil
        if let listener { server.host.stopObserving(listener) }
        listener = nil
        if admitted { server.release() }
        admitted = false
    }

    /// Input is asked for only while no request is under way.
    func read(context: ChannelHandlerContext) {
        guard !busy else {
            readHeld = true
            return
        }
        context.read()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !closing else { return }
        lastActivity = .now()
        var input = unwrapInboundIn(data)
        // Lines waiting behind a request: the new bytes join them, and the joined buffer is already ours.
        let owned = partialLine != nil
        if var partial = partialLine {
            partialLine = nil
            partial.writeBuffer(&input)
            input = partial
        }
        answerLines(in: &input, on: context.channel)
        if timeoutCheck == nil { armTimeout(context.channel) }
        guard !closing, input.readableBytes > 0 else { return }
        // Only a partial line may wait this long; whole lines wait only behind a request under way, and
        // those only as much as the reads already under way brought.
        let cap = busy ? server.limits.maxBufferedInputBytes : server.limits.maxLineBytes
        guard input.readableBytes <= cap else {
            close(context.channel)
            return
        }
        guard !owned else {
            partialLine = input
            return
        }
        // Copied, so the socket's receive buffer can be reused for the next read.
        var rest = context.channel.allocator.buffer(capacity: input.readableBytes)
        rest.writeBuffer(&input)
        partialLine = rest
    }

    /// Answers the whole lines in `input` in order, until one's answer must wait for a pool thread or
    /// is held back.
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
            switch session.lane(for: line) {
            case .eventLoop: break
            case .lookup:
                answerOffLoop(line, on: server.lookupPool, channel: channel)
                return
            case .heavy:
                answerOffLoop(line, on: server.heavyPool, channel: channel)
                return
            }
            answer.bytes.removeAll(keepingCapacity: true)
            answer.close = false
            answer.delay = .zero
            session.receive(utf8: line, service: server.service, into: &answer)
            if answer.delay != .zero {
                answerLater(answer, on: channel)
                answer = ClientSession.Output()
                return
            }
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

    /// Answers `line` on a thread of `pool`; the session travels there and back, and the lines after it
    /// wait in `partialLine` (their order kept), changes heard meanwhile in `heardWhileBusy`.
    private func answerOffLoop(_ line: [UInt8], on pool: NIOThreadPool, channel: Channel) {
        busy = true
        let session = self.session
        let service = server.service
        let handler = NIOLoopBound(self, eventLoop: channel.eventLoop)
        let server = self.server
        let loop = channel.eventLoop
        pool.submit { state in
            // Not run when the server stopped first; its connection is closed with it.
            guard case .active = state, !server.isStopping else { return }
            var session = session
            var output = ClientSession.Output()
            session.receive(utf8: line, service: service, into: &output)
            // A request that ends after the shutdown has no loop to answer on.
            guard !server.isStopping else { return }
            loop.execute { [session, output] in
                let handler = handler.value
                handler.session = session
                handler.deliver(output, on: channel)
            }
        }
    }

    /// Holds `output` back for its delay, the connection's next lines waiting behind it; the event loop
    /// goes on serving everyone else meanwhile.
    private func answerLater(_ output: ClientSession.Output, on channel: Channel) {
        busy = true
        let handler = NIOLoopBound(self, eventLoop: channel.eventLoop)
        let delay = output.delay.components
        let nanoseconds = delay.seconds * 1_000_000_000 + delay.attoseconds / 1_000_000_000
        var held = output
        held.delay = .zero
        channel.eventLoop.scheduleTask(in: .nanoseconds(nanoseconds)) { [held] in
            handler.value.deliver(held, on: channel)
        }
    }

    /// On the event loop: the answer of a request that was answered elsewhere or held back; the lines
    /// that waited behind it are answered next, and input is read again.
    private func deliver(_ output: ClientSession.Output, on channel: Channel) {
        guard output.delay == .zero else {
            answerLater(output, on: channel)
            return
        }
        busy = false
        lastActivity = .now()
        if !heardWhileBusy.isEmpty, let bytes = session.notify(heardWhileBusy) { send(bytes, on: channel, flush: false) }
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
        finishIfInputEnded(channel)
        armTimeout(channel)
        if !busy, !closing, readHeld {
            readHeld = false
            channel.read()
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        // Through the context: the channel's generic write starts at the pipeline's tail.
        guard var bytes = takeOutbound() else { return }
        context.writeAndFlush(wrapOutboundOut(bytes), promise: nil)
        reuseOutbound(&bytes)
    }

    /// The client ended its input (a half-close). As MPD: every whole line it sent is answered, in order,
    /// then the connection is closed; a line without its newline, and a command list not ended, are not run.
    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        guard let event = event as? ChannelEvent, case .inputClosed = event else {
            context.fireUserInboundEventTriggered(event)
            return
        }
        inputEnded = true
        finishIfInputEnded(context.channel)
        armTimeout(context.channel)
    }

    /// Once nothing is under way after the input ended: the answers are sent, then the connection closed
    /// (after the socket took them: a close with writes pending would drop them).
    private func finishIfInputEnded(_ channel: Channel) {
        guard inputEnded, !busy, !closing else { return }
        closing = true
        partialLine = nil
        let last = takeOutbound() ?? channel.allocator.buffer(capacity: 0)
        outbound = nil
        channel.writeAndFlush(last).whenComplete { _ in channel.close(promise: nil) }
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
        partialLine = nil
        channel.close(promise: nil)
    }
}
