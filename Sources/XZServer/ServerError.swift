import XZSystem
/// The transport's failures, by kind; the message is what a user reads.
public struct ServerError: KindedError {
    public enum Kind: Hashable, Sendable {
        case cannotOpen, hostRunning, cannotConnect, notAHost, connectionClosed
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// The lock or socket file could not be opened.
    public static let cannotOpen = ServerError(kind: .cannotOpen, message: "cannot open the host's lock or socket file")
    /// Another process hosts this library.
    public static let hostRunning = ServerError(kind: .hostRunning, message: "another xzmusic already hosts this library")
    /// No host answered where one was looked for.
    public static let cannotConnect = ServerError(kind: .cannotConnect, message: "cannot connect")
    /// What answered does not speak the protocol.
    public static let notAHost = ServerError(kind: .notAHost, message: "what answered is no xzmusic host")
    public static let connectionClosed = ServerError(kind: .connectionClosed, message: "the host closed the connection")
}
