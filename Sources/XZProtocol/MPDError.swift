import XZSystem

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

/// A failed request; becomes one ACK line. Its kind is its ACK code: `catch MPDError.noExist`,
/// `MPDError.arg("Number too large: 9")`, as for every layer's error (see `KindedError`).
public struct MPDError: KindedError {
    public var code: ACKCode
    public var message: String
    /// The command that failed; filled in by the dispatcher when the thrower did not know it.
    public var command: String?

    /// The ACK as the wire carries it, with the command when the thrower knows it.
    public init(_ code: ACKCode, _ message: String, command: String? = nil) {
        self.code = code
        self.message = message
        self.command = command
    }

    public init(kind: ACKCode, message: String) { self.init(kind, message) }

    public var kind: ACKCode { code }

    public static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    public static let notList = MPDError(.notList, "not a command list")
    public static let arg = MPDError(.arg, "bad argument")
    public static let password = MPDError(.password, "incorrect password")
    public static let permission = MPDError(.permission, "permission denied")
    public static let unknown = MPDError(.unknown, "unknown command")
    public static let noExist = MPDError(.noExist, "No such file or directory")
    public static let playlistMax = MPDError(.playlistMax, "Playlist is too large")
    public static let system = MPDError(.system, "system error")
    public static let playlistLoad = MPDError(.playlistLoad, "cannot load the playlist")
    public static let updateAlready = MPDError(.updateAlready, "already updating")
    public static let playerSync = MPDError(.playerSync, "player out of sync")
    public static let exist = MPDError(.exist, "exists already")

    /// MPD's answer to an add past `max_playlist_length`.
    public static let queueFull = MPDError(.playlistMax, "Playlist is too large")

    /// The ACK line (without its newline); `index` is the position within a command list.
    public func ackLine(index: Int) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command ?? "")} \(MPDResponse.singleLine(message))"
    }
}
