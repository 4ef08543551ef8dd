/// A failure of the operating system's side of the program, told apart by kind (`error == .fileWrite`);
/// the message is the line shown to the user and takes no part in equality.
package struct SystemError: KindedError {
    package enum Kind: Hashable, Sendable {
        case fileWrite, config, watch
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// A file could not be written whole.
    package static let fileWrite = SystemError(kind: .fileWrite, message: "cannot write the file")
    /// A config line that does not parse, or a value its key does not take.
    package static let config = SystemError(kind: .config, message: "bad config file")
    /// A folder could not be watched for changes (no inotify, too many folders for its limit).
    package static let watch = SystemError(kind: .watch, message: "cannot watch the folder")
}
