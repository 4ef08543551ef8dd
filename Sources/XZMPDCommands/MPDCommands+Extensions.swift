import XZPlaybackEngine
import XZProtocol

/// XZMusic's own protocol: what MPD lacks and the prompt needs, all in this file. Named as MPD names its
/// commands and status lines (lowercase words run together); an MPD client passes over a status line it
/// does not know and never sends these commands.
extension MPDCommands {
    static let extensionCommands: [MPDCommand] = [
        /// `lyricsoffset MS`: the playing song's lyrics shift, which the client has stored in the library, takes effect now.
        MPDCommand("lyricsoffset", 1...1, .changesState) { call throws(MPDError) in
            call.turn.setLyricsAdjustment(try MPDArgument.integer(call.arguments[0]))
        },
    ]

    static let extensionSamples: [String: [[String]]] = [
        "lyricsoffset": [["0"], ["-500"], ["1500"]],
    ]

    /// The extension lines of `status`.
    static func addExtensionStatus(_ call: inout Invocation, _ status: PlayerSnapshot) {
        /// `buffering: 1`: playing, waiting for a stream's bytes (MPD shows such a state as `play`, and so do we).
        if status.isBuffering { call.response.add("buffering", 1) }
    }
}
