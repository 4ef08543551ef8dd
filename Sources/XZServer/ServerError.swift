/// The transport's failures, by kind; the message is what a user reads.
public struct ServerError: Error, Hashable, CustomStringConvertible, Sendable {
    private enum Code: Hashable, Sendable {
        case cannotOpen, hostRunning, cannotConnect, notAHost, connectionClosed
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Kinds compare by code alone: `catch ServerError.hostRunning`.
    public static func ~= (kind: ServerError, error: any Error) -> Bool {
        (error as? ServerError)?.code == kind.code
    }

    /// The lock or socket file could not be opened.
    static func cannotOpen(_ message: String) -> ServerError { ServerError(.cannotOpen, message) }
    /// Another process hosts this library.
    static func hostRunning(_ message: String) -> ServerError { ServerError(.hostRunning, message) }
    public static let hostRunning = ServerError(.hostRunning, "another xzmusic already hosts this library")
    /// No host answered where one was looked for.
    static func cannotConnect(_ message: String) -> ServerError { ServerError(.cannotConnect, message) }
    public static let cannotConnect = ServerError(.cannotConnect, "cannot connect")
    /// What answered does not speak the protocol.
    static func notAHost(_ message: String) -> ServerError { ServerError(.notAHost, message) }
    public static let connectionClosed = ServerError(.connectionClosed, "the host closed the connection")
}
