import XZSystem
/// The transport's failures, by kind; the message is what a user reads.
package struct ServerError: KindedError {
    package enum Kind: Hashable, Sendable {
        case cannotOpen, hostRunning, cannotConnect, notAHost, connectionClosed
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// The lock or socket file could not be opened.
    package static let cannotOpen = ServerError(kind: .cannotOpen, message: "cannot open the host's lock or socket file")
    /// Another process hosts this library.
    package static let hostRunning = ServerError(kind: .hostRunning, message: "another xzmusic already hosts this library")
    /// No host answered where one was looked for.
    package static let cannotConnect = ServerError(kind: .cannotConnect, message: "cannot connect")
    /// What answered does not speak the protocol.
    package static let notAHost = ServerError(kind: .notAHost, message: "what answered is no xzmusic host")
    package static let connectionClosed = ServerError(kind: .connectionClosed, message: "the host closed the connection")
}
