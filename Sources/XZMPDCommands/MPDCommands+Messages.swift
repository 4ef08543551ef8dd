import XZHostCore
import XZProtocol
import XZSystem

/// One client's subscriptions and the messages waiting for it. Held by its session; the channels keep it
/// weakly, so a closed connection's subscriptions go with it.
final class MessageMailbox: Sendable {
    struct Message {
        var channel: String
        var text: String
    }

    struct State {
        var channels: Set<String> = []
        var messages: [Message] = []
        /// Messages came since the session last heard of it (MPD's `message` idle, raised when the
        /// mailbox stops being empty).
        var arrived = false
    }

    let state = Mutex(State())

    /// Whether a message came since the last call.
    func takeArrival() -> Bool {
        state.withLock { state in
            defer { state.arrived = false }
            return state.arrived
        }
    }
}

/// The client-to-client channels of one host's connections, as MPD's: a channel exists while someone
/// is subscribed to it.
final class MessageChannels: Sendable {
    /// MPD's bounds: subscriptions per client, messages waiting per client.
    static let maxSubscriptions = 16
    static let maxWaitingMessages = 64

    private struct Subscriber {
        weak var mailbox: MessageMailbox?
    }

    private let subscribers = Mutex<[Subscriber]>([])

    /// As MPD's client_message_valid_channel_name: letters, digits and `_-.:`, not empty.
    static func isValidName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || [0x5F, 0x2D, 0x2E, 0x3A].contains(byte)
        }
    }

    func register(_ mailbox: MessageMailbox) {
        subscribers.withLock { list in
            list.removeAll { $0.mailbox == nil }
            if !list.contains(where: { $0.mailbox === mailbox }) { list.append(Subscriber(mailbox: mailbox)) }
        }
    }

    /// Every channel someone is subscribed to, in byte order.
    func names() -> [String] {
        let mailboxes = subscribers.withLock { $0.compactMap(\.mailbox) }
        let all = mailboxes.reduce(into: Set<String>()) { names, mailbox in
            names.formUnion(mailbox.state.withLock { $0.channels })
        }
        return all.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// Queues the message for every subscriber of `channel` with room for it; false when none took it.
    func send(_ text: String, to channel: String) -> Bool {
        let mailboxes = subscribers.withLock { $0.compactMap(\.mailbox) }
        var sent = false
        for mailbox in mailboxes {
            mailbox.state.withLock { state in
                guard state.channels.contains(channel), state.messages.count < Self.maxWaitingMessages else { return }
                if state.messages.isEmpty { state.arrived = true }
                state.messages.append(MessageMailbox.Message(channel: channel, text: text))
                sent = true
            }
        }
        return sent
    }
}

extension MPDCommands {
    static let messageCommands: [MPDCommand] = [
        MPDCommand("subscribe", 1...1, .changesState) { call throws(MPDError) in
            let channel = call.arguments[0]
            guard MessageChannels.isValidName(channel) else { throw MPDError.arg("invalid channel name") }
            let mailbox = call.session.mailbox ?? MessageMailbox()
            try mailbox.state.withLock { state throws(MPDError) in
                guard !state.channels.contains(channel) else { throw MPDError.exist("already subscribed to this channel") }
                guard state.channels.count < MessageChannels.maxSubscriptions else {
                    throw MPDError.exist("subscription list is full")
                }
                state.channels.insert(channel)
            }
            call.session.mailbox = mailbox
            call.service.messageChannels.register(mailbox)
            call.host.announce(.subscriptions)
        },
        MPDCommand("unsubscribe", 1...1, .changesState) { call throws(MPDError) in
            let removed = call.session.mailbox?.state.withLock { $0.channels.remove(call.arguments[0]) != nil } ?? false
            guard removed else { throw MPDError.noExist("not subscribed to this channel") }
            call.host.announce(.subscriptions)
        },
        MPDCommand("channels", 0...0, .readOnly) { call in
            for name in call.service.messageChannels.names() { call.response.add("channel", name) }
        },
        MPDCommand("sendmessage", 2...2, .changesState) { call throws(MPDError) in
            let channel = call.arguments[0]
            guard MessageChannels.isValidName(channel) else { throw MPDError.arg("invalid channel name") }
            guard call.service.messageChannels.send(call.arguments[1], to: channel) else {
                throw MPDError.noExist("nobody is subscribed to this channel")
            }
            call.host.announce(.messages)
        },
        MPDCommand("readmessages", 0...0, .readOnly) { call in
            let messages: [MessageMailbox.Message] = call.session.mailbox?.state.withLock { state in
                defer { state.messages = [] }
                return state.messages
            } ?? []
            for message in messages {
                call.response.add("channel", message.channel)
                call.response.add("message", message.text)
            }
        },
    ]
}
