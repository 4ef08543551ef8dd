import XZSystem

/// MPD's error codes (`ACK [code@index] {command} message`), as MPD 0.23 numbers them.
package enum ACKCode: Int, Sendable {
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
package struct MPDError: KindedError {
    package var code: ACKCode
    package var message: String
    /// The command that failed; filled in by the dispatcher when the thrower did not know it.
    package var command: String?

    /// The ACK as the wire carries it, with the command when the thrower knows it.
    package init(_ code: ACKCode, _ message: String, command: String? = nil) {
        self.code = code
        self.message = message
        self.command = command
    }

    package var kind: ACKCode { code }

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let notList = MPDError(.notList, "not a command list")
    package static let arg = MPDError(.arg, "bad argument")
    package static let password = MPDError(.password, "incorrect password")
    package static let permission = MPDError(.permission, "permission denied")
    package static let unknown = MPDError(.unknown, "unknown command")
    package static let noExist = MPDError(.noExist, "No such file or directory")
    package static let playlistMax = MPDError(.playlistMax, "Playlist is too large")
    package static let system = MPDError(.system, "system error")
    package static let playlistLoad = MPDError(.playlistLoad, "cannot load the playlist")
    package static let updateAlready = MPDError(.updateAlready, "already updating")
    package static let playerSync = MPDError(.playerSync, "player out of sync")
    package static let exist = MPDError(.exist, "exists already")

    /// MPD's answer to an add past `max_playlist_length`.
    package static let queueFull = MPDError(.playlistMax, "Playlist is too large")

    /// The ACK line (without its newline); `index` is the position within a command list.
    package func ackLine(index: Int) -> String {
        "ACK [\(code.rawValue)@\(index)] {\(command ?? "")} \(MPDResponse.singleLine(message))"
    }
}
