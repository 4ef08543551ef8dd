/// MPD's error codes (`ACK [code@index] {command} message`), as MPD 0.23 numbers them.
public enum ACKCode: Int, Sendable {
    case notList = 1
    case arg = 2
    case password = 3
    case permission = 4
    case unknown = 5
    case noExist = 50
    case playlistMax = 51
    case system = 52
    case playlistLoad = 53
    case updateAlready = 54
    case playerSync = 55
    case exist = 56
}

/// A failed request; becomes one ACK line.
public struct MPDError: Error, Sendable, Equatable, CustomStringConvertible {
    public var code: ACKCode
    public var message: String
    /// The command that failed; filled in by the dispatcher when the thrower did not know it.
    public var command: String?

    public init(_ code: ACKCode, _ message: String, command: String? = nil) {
        self.code = code
        self.message = message
        self.command = command
    }

    public var description: String { message }

    /// MPD's answer to an add past `max_playlist_length`.
    public static let queueFull = MPDError(.playlistMax, "Playlist is too large")

    /// The ACK line (without its newline); `index` is the position within a command list.
    public func ackLine(index: Int) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command ?? "")} \(MPDResponse.singleLine(message))"
    }
}
