import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZProtocol
import XZSystem

/// One client connection's protocol state as a plain value: command lists, `idle`, the password, tag
/// types and binary limit. The transport hands it each request line and each change announcement and
/// writes back what it returns; nothing here touches a socket.
package struct ClientSession: Sendable {
    package enum Peer: Sendable, Equatable {
        /// Over the Unix socket: may name files by absolute path.
        case local
        case network

        /// The address wrong passwords are counted by when the transport gives none: every client of
        /// the Unix socket is one local address.
        var sharedAddress: String {
            switch self {
            case .local: "local"
            case .network: "network"
            }
        }
    }

    /// What the transport does after writing `bytes`.
    package struct Output: Sendable, Equatable {
        package var bytes: [UInt8]
        package var close: Bool
        /// How long the transport holds the answer (and the connection's next lines) back: a wrong
        /// password's, so guessing costs time. The transport schedules it; nothing blocks.
        package var delay: Duration

        package init(bytes: [UInt8] = [], close: Bool = false, delay: Duration = .zero) {
            self.bytes = bytes
            self.close = close
            self.delay = delay
        }
    }

    /// Where a request's answer is made. Requests that may take long never share threads with quick
    /// lookups, so a stuck search cannot hold up a client reading the queue.
    package enum Lane: Sendable, Equatable {
        /// On the connection's event loop, answered at once (`MPDCommand.Work.quick`).
        case eventLoop
        /// On a small pool of its own: the queue, a few songs, stickers (`MPDCommand.Work.lookup`).
        case lookup
        /// On the pool for searches, listings, updates and file reads (`MPDCommand.Work.blocking`).
        case heavy
    }

    package static let greeting = "OK MPD \(protocolVersion)\n"
    package static let protocolVersion = "0.23.5"

    package let peer: Peer
    /// The client's address, by which its wrong passwords are counted over all its connections.
    package let address: String
    package internal(set) var authenticated: Bool
    package internal(set) var tagTypes: SongTags = SongTags.held
    package internal(set) var binaryLimit = 8192
    /// Subsystems the client waits for (all when empty), while in `idle`.
    package private(set) var idleMask: Set<IdleSubsystem>?
    /// Changes since the client last heard of them.
    package private(set) var pending: Set<IdleSubsystem> = []
    /// Its message channels and waiting messages, from its first `subscribe`.
    var mailbox: MessageMailbox?
    private var list: PendingList?
    /// Wrong `password`s given so far (`SessionLimits.passwordAttempts`).
    private var failedPasswords = 0
    /// How long the answer to a right `password` is held: as long as its address's last wrong one was.
    private var acceptedPasswordDelay = Duration.zero
    /// Lines that were no command, counted until the first command (`SessionLimits.unknownLinesBeforeCommand`).
    private var unknownLines = 0
    private var heardCommand = false

    /// A command list being received.
    private struct PendingList: Sendable {
        var ok: Bool
        var requests: [MPDRequest] = []
        var bytes = 0
    }

    package var isIdle: Bool { idleMask != nil }

    /// `passwordRequired`: the host has a password and the peer has not yet given it. `address`: the
    /// network client's IP address (the Unix socket's clients are one local address).
    package init(peer: Peer, passwordRequired: Bool, address: String? = nil) {
        self.peer = peer
        self.address = peer == .local ? peer.sharedAddress : address ?? peer.sharedAddress
        authenticated = !passwordRequired
    }

    /// The right `password`: the answer is held as long as its address's last wrong guess was (as the
    /// Subsonic API holds a request before checking it), so being right is not told sooner; then the
    /// address's wrong guesses are forgotten.
    mutating func acceptPassword(_ service: MPDService) {
        authenticated = true
        acceptedPasswordDelay = service.credentials.delay(for: address)
        service.credentials.recordSuccess(from: address)
    }

    /// Where answering `line` runs: requests that read the catalogue or files go to a thread that may
    /// block, never the event loop. A command list runs as a lookup unless one of its commands is heavy.
    package func lane(for line: [UInt8]) -> Lane {
        guard !isIdle else { return .eventLoop }
        let name = line.drop { $0 == 0x20 || $0 == 0x09 }.prefix { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }
        let command = String(decoding: name, as: UTF8.self)
        // Tested, not bound: a bound copy of the growing list would cost every line of it a retain.
        if list != nil {
            guard command == "command_list_end", let requests = list?.requests else { return .eventLoop }
            // A list repeats a few names: each run of one name is looked up once, not every line of it.
            var checked: String?
            for request in requests where request.name != checked {
                if MPDCommands.table[request.name]?.work == .blocking { return .heavy }
                checked = request.name
            }
            return .lookup
        }
        switch MPDCommands.table[command]?.work {
        case .blocking?: return .heavy
        case .lookup?: return .lookup
        case .quick?, nil: return .eventLoop
        }
    }

    /// A line from the client.
    package mutating func receive(line: String, service: MPDService) -> Output {
        receive(utf8: Array(line.utf8), service: service)
    }

    /// A line from the client, as the bytes that came off the socket (without its newline).
    package mutating func receive(utf8 line: [UInt8], service: MPDService) -> Output {
        var output = Output()
        receive(utf8: line, service: service, into: &output)
        return output
    }

    /// The same, the answer appended to `output`: a transport that hands in the same emptied buffer for
    /// every line reuses its storage instead of allocating an answer per request.
    package mutating func receive(utf8 line: [UInt8], service: MPDService, into output: inout Output) {
        if let other = respond(to: line, service: service, into: &output) {
            output.bytes += other.bytes
            output.close = output.close || other.close
            output.delay = max(output.delay, other.delay)
        }
    }

    /// The answer, or nil when commands ran and wrote theirs into `output`.
    private mutating func respond(to line: [UInt8], service: MPDService,
                                  into output: inout Output) -> Output? {
        if isIdle {
            // Only noidle may come while idle; MPD hangs up on anything else.
            let blank: Set<UInt8> = [0x20, 0x09, 0x0D]
            guard line.drop(while: blank.contains).reversed().drop(while: blank.contains).reversed()
                .elementsEqual("noidle".utf8) else { return Output(close: true) }
            return Output(bytes: leaveIdle().utf8Bytes + "OK\n".utf8Bytes)
        }
        // Another protocol's request sent to this port (a web page's POST, a proxy) runs nothing.
        // Inside a command list it cannot be a request line: an HTTP client's request starts with one.
        if list == nil, Self.isHTTPRequestLine(line) { return Output(close: true) }
        let request: MPDRequest
        do {
            request = try MPDRequest.parse(utf8: line)
        } catch {
            if list != nil { list = nil }
            if error.code == .unknown, !heardCommand, tooManyUnknownLines(service) { return Output(close: true) }
            return Output(bytes: Array((error.ackLine(index: 0) + "\n").utf8))
        }
        if list != nil {
            switch request.name {
            case "command_list_end":
                let pending = list!
                list = nil
                run(pending.requests, listOK: pending.ok, service: service, into: &output)
                return nil
            case "command_list_begin", "command_list_ok_begin":
                list = nil
                return ack(MPDError(.arg, "Already in command list", command: request.name))
            default:
                // Taken out while it grows: a second reference would make every append copy the whole list.
                var pending = list.take()!
                pending.bytes += line.count + 1
                guard pending.bytes <= service.limits.maxCommandListBytes else { return Output(close: true) }
                pending.requests.append(request)
                list = pending
                return Output()
            }
        }
        // The session's own commands count as the peer speaking the protocol (`heardCommand`).
        switch request.name {
        case "command_list_begin":
            heardCommand = true
            list = PendingList(ok: false)
            return Output()
        case "command_list_ok_begin":
            heardCommand = true
            list = PendingList(ok: true)
            return Output()
        case "command_list_end": return ack(MPDError(.arg, "Not in command list", command: request.name))
        case "close": return Output(close: true)
        case "idle":
            heardCommand = true
            guard authenticated else {
                return ack(MPDError(.permission, "you don't have permission for \"idle\"", command: "idle"))
            }
            var mask = Set<IdleSubsystem>()
            for word in request.arguments {
                guard let subsystem = IdleSubsystem(rawValue: word) else {
                    return ack(MPDError(.arg, "Unrecognized idle event: \(word)", command: "idle"))
                }
                mask.insert(subsystem)
            }
            idleMask = mask
            let ready = pending.filter { mask.isEmpty || mask.contains($0) }
            guard ready.isEmpty else { return Output(bytes: leaveIdle().utf8Bytes + "OK\n".utf8Bytes) }
            return Output()
        case "noidle":
            // Not idle: the client already has its answer; MPD says nothing more.
            return Output()
        default:
            run(CollectionOfOne(request), listOK: false, service: service, single: true, into: &output)
            return nil
        }
    }

    /// The host announced changes: remembered, and sent at once to a client waiting for them.
    package mutating func notify(_ changes: HostChanges) -> [UInt8]? {
        pending.formUnion(changes.idleSubsystems)
        // A message wakes only the clients it was queued for.
        if changes.contains(.messages), mailbox?.takeArrival() == true { pending.insert(.message) }
        guard let mask = idleMask else { return nil }
        guard pending.contains(where: { mask.isEmpty || mask.contains($0) }) else { return nil }
        return leaveIdle().utf8Bytes + "OK\n".utf8Bytes
    }

    /// `changed:` lines for the pending subsystems the client waits for; nothing is pending afterwards.
    private mutating func leaveIdle() -> String {
        let mask = idleMask ?? []
        idleMask = nil
        let ready = pending.filter { mask.isEmpty || mask.contains($0) }
        // As MPD's Client::IdleNotify: the changes not reported are dropped too.
        pending = []
        return IdleSubsystem.allCases.filter(ready.contains).map { "changed: \($0.rawValue)\n" }.joined()
    }

    /// Counts a line that was no command; true when the peer has sent too many such lines to be an MPD client.
    private mutating func tooManyUnknownLines(_ service: MPDService) -> Bool {
        unknownLines += 1
        return unknownLines >= service.limits.unknownLinesBeforeCommand
    }

    /// `METHOD target HTTP/1.x` (or HTTP/2's preface), in any case, with spaces or tabs between: an HTTP
    /// request line. No MPD command is one: none has a request target (`/…`, `*`, or `host:port` and
    /// `http://…` with their colon) as its second word followed by `HTTP/`. The common line is turned away
    /// by its last byte alone.
    package static func isHTTPRequestLine(_ line: [UInt8]) -> Bool {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        func isDigit(_ byte: UInt8) -> Bool { byte &- 0x30 < 10 }
        var end = line.count
        if end > 0, line[end - 1] == 0x0D { end -= 1 }
        // The version: "HTTP/" in any case, then digits and dots.
        guard end > 0, isDigit(line[end - 1]), let lastBlank = line[..<end].lastIndex(where: isBlank) else { return false }
        let version = line[(lastBlank + 1)..<end]
        guard version.count > 5, zip(version, "http/".utf8).allSatisfy({ $0 | 0x20 == $1 }),
              version.dropFirst(5).allSatisfy({ isDigit($0) || $0 == UInt8(ascii: ".") }) else { return false }
        // The target, between blanks.
        var targetEnd = lastBlank
        while targetEnd > 0, isBlank(line[targetEnd - 1]) { targetEnd -= 1 }
        guard let targetBlank = line[..<targetEnd].lastIndex(where: isBlank) else { return false }
        let target = line[(targetBlank + 1)..<targetEnd]
        guard target.first == UInt8(ascii: "/") || target.elementsEqual("*".utf8) || target.contains(UInt8(ascii: ":")),
              !target.contains(UInt8(ascii: "\"")) else { return false }
        // The method: letters.
        var methodEnd = targetBlank
        while methodEnd > 0, isBlank(line[methodEnd - 1]) { methodEnd -= 1 }
        return methodEnd > 0 && line[..<methodEnd].allSatisfy { ($0 | 0x20) >= UInt8(ascii: "a") && ($0 | 0x20) <= UInt8(ascii: "z") }
    }

    private func ack(_ error: MPDError) -> Output {
        Output(bytes: Array((error.ackLine(index: 0) + "\n").utf8))
    }

    /// Runs a request or a command list, appending the answer to `output`; `requests` is generic so that a
    /// single request needs no array.
    private mutating func run<Requests: Collection<MPDRequest>>(_ requests: Requests, listOK: Bool, service: MPDService,
                                                               single: Bool = false,
                                                               into output: inout Output) {
        // A command list that changes anything runs whole as one state change, as MPD runs it on its one
        // thread; a single request takes the host's turn in `execute`, as its command needs.
        guard !single, authenticated, Self.changesState(requests) else {
            runRequests(requests, listOK: listOK, service: service, single: single, turn: nil, into: &output)
            return
        }
        service.host.exclusively { turn in
            runRequests(requests, listOK: listOK, service: service, single: single, turn: turn, into: &output)
        }
    }

    /// Whether a command of the list changes the host's state; each run of one name is looked up once.
    private static func changesState<Requests: Collection<MPDRequest>>(_ requests: Requests) -> Bool {
        var checked: String?
        for request in requests where request.name != checked {
            if MPDCommands.table[request.name]?.access == .changesState { return true }
            checked = request.name
        }
        return false
    }

    private mutating func runRequests<Requests: Collection<MPDRequest>>(_ requests: Requests, listOK: Bool,
                                                                       service: MPDService, single: Bool,
                                                                       turn: PlayerTurn?,
                                                                       into output: inout Output) {
        var response = MPDResponse(taking: &output.bytes, capacity: Self.typicalAnswerBytes,
                                   limit: service.limits.maxOutputBytes)
        defer {
            if response.isFull {
                // As MPD: an answer past the output limit is not sent, and its client is dropped.
                output.bytes = []
                output.close = true
            } else {
                output.bytes = response.bytes
            }
        }
        // One budget for the whole list: it holds one thread from its first command to its last. A single
        // request's is taken by `execute`, for the commands that need one.
        let deadline: Deadline? = single ? nil : Deadline(after: service.limits.requestBudget)
        // A list's adds and clear are held back and land in one step (see `ListQueue`).
        let list = single ? nil : MPDCommands.ListQueue(requests, session: self, service: service, deadline: deadline ?? .never, turn: turn)
        defer { list?.land() }
        for (index, request) in requests.enumerated() {
            if !single, ["idle", "noidle", "close", "command_list_begin", "command_list_ok_begin"].contains(request.name) {
                var error = MPDError.arg("\(request.name) is not allowed in a command list")
                error.command = request.name
                response.appendLine(error.ackLine(index: index))
                return
            }
            do throws(MPDError) {
                try MPDCommands.execute(request, session: &self, service: service, deadline: deadline,
                                        holding: turn, list: list, into: &response)
            } catch {
                var error = error
                if error.command == nil { error.command = request.name }
                response.appendLine(error.ackLine(index: index))
                switch error.code {
                case .unknown where !heardCommand:
                    output.close = tooManyUnknownLines(service)
                case .password:
                    // Each wrong guess waits twice as long as the one before (0.25 s, 0.5 s, 1 s, …), on this
                    // connection and from its address over all its connections; the last one allowed is
                    // answered, then the connection is dropped.
                    failedPasswords += 1
                    let fromAddress = service.credentials.recordFailure(from: address)
                    output.delay = max(CredentialThrottle.delay(afterFailures: failedPasswords), fromAddress)
                    output.close = failedPasswords >= service.limits.passwordAttempts
                default:
                    heardCommand = true
                }
                return
            }
            if !heardCommand { heardCommand = true }
            if acceptedPasswordDelay != .zero {
                output.delay = max(output.delay, acceptedPasswordDelay)
                acceptedPasswordDelay = .zero
            }
            if listOK { response.appendLine("list_OK") }
            // The rest of the list would only be dropped with the answer.
            if response.isFull { return }
        }
        response.appendLine("OK")
    }

    /// Room reserved for an answer up front: `status` and most others fit, so the buffer is not regrown.
    private static let typicalAnswerBytes = 512
}

extension String {
    var utf8Bytes: [UInt8] { Array(utf8) }
}
