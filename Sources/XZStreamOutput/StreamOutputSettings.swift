import XZSystem
import XZEncoders
import XZPlaybackEngine

/// Why a stream output could not be made or could not listen; each message is one line naming the key.
package struct StreamOutputError: KindedError {
    package enum Kind: Hashable, Sendable {
        /// A key of the `audio_output` block out of its domain.
        case badSetting
        /// A non-loopback `bind_to_address` without the host's password.
        case refusedAddress
        /// The port could not be bound (taken, no such address).
        case cannotListen
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let badSetting = StreamOutputError(kind: .badSetting, message: "bad stream output setting")
    package static let refusedAddress = StreamOutputError(kind: .refusedAddress, message: "refusing to listen without a password")
    package static let cannotListen = StreamOutputError(kind: .cannotListen, message: "cannot listen")
}

/// An `audio_output { type "httpd" … }` block as MPD reads it, checked.
package struct StreamOutputSettings: Sendable, Equatable {
    /// Listeners at once whatever `max_clients` says (MPD has no cap): each may hold `queueLimit` bytes.
    package static let listenerHardCap = 64
    /// A listener's queue past this is dropped (MPD's 256 KiB): it is too slow and starts again further on.
    package static let queueLimit = 256 * 1024
    /// The longest request head a listener may send (its target and fields), and the most fields in it.
    package static let headLimit = 8 * 1024
    package static let headFieldLimit = 100
    /// Connections still sending their head at once, from all addresses and from one; past either cap the
    /// oldest of them is dropped for the new connection.
    package static let pendingHeadCap = 64
    package static let pendingHeadsPerAddress = 8

    package var name: String
    package var address = "127.0.0.1"
    /// 0 takes any free port (tests); `HTTPStreamOutput.port` says which.
    package var port = 8000
    package var encoder = EncoderKind.vorbis
    /// The block's other keys (`bitrate`, `quality`, …), as the encoder takes them.
    package var encoderSettings: [String: String] = [:]
    /// Listeners at once; MPD's 0 means no limit, here the hard cap.
    package var maxClients = 0
    /// On stop the stream stays up with silence instead of closing its listeners.
    package var alwaysOn = false
    /// Song titles reach the listeners (ICY metadata or the stream's own tags).
    package var sendsTags = true
    /// Required of listeners (HTTP Basic, any user name) when the address is not loopback.
    package var password: String?
    /// How long a listener may take to send its request head (MPD waits without end): a player sends it at
    /// once, so a few seconds spare a slow link and let a slow head go soon.
    package var headTimeoutMs: Int64 = 3_000

    package init(name: String) {
        self.name = name
    }

    /// Reads an httpd block (its values already in their domains, `OutputType.httpd`). A non-loopback
    /// `bind_to_address` needs the host's password, as the protocol port does, and its listeners then give it.
    package init(block: OutputBlock) throws {
        self.init(name: try block.required("name"))
        port = block.wholeNumber("port") ?? port
        maxClients = block.wholeNumber("max_clients") ?? 0
        alwaysOn = block.yesNo("always_on") ?? false
        sendsTags = block.yesNo("tags") ?? true
        encoder = block.text("encoder").flatMap(EncoderKind.init(rawValue:)) ?? encoder
        if let text = block.text("bind_to_address") {
            guard text.utf8.count <= 255, !text.contains(where: { $0.isWhitespace || $0 == "/" }) else {
                throw block.error("bind_to_address", "bind_to_address must be an address, not \"\(text.prefix(60))\"")
            }
            // MPD's word for every address.
            address = text == "any" ? "::" : text
        }
        if !Self.isLoopback(address) {
            guard let hostPassword = block.hostPassword, !hostPassword.isEmpty else {
                throw StreamOutputError.refusedAddress("audio_output \"\(name)\" (line \(block.block.line)): refusing 'bind_to_address' \(address) without a password: set 'password = …' in the config")
            }
            password = hostPassword
        }
        encoderSettings = block.settings(of: encoder.settingNames)
    }

    /// The listeners at once this output takes.
    package var listenerLimit: Int {
        maxClients == 0 ? Self.listenerHardCap : min(maxClients, Self.listenerHardCap)
    }

    /// The protocol port's rule (HostSettings.validate): loopback needs no password.
    package static func isLoopback(_ address: String) -> Bool {
        ["::1", "localhost"].contains(address) || address.hasPrefix("127.")
    }
}
