/// A failure of the operating system's side of the program, told apart by kind (`error == .fileWrite`);
/// the message is the line shown to the user and takes no part in equality.
public struct SystemError: Error, Hashable, CustomStringConvertible, Sendable {
    private enum Code: Hashable, Sendable {
        case fileWrite, config, watch
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    public static func == (a: SystemError, b: SystemError) -> Bool { a.code == b.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// A file could not be written whole.
    public static let fileWrite = SystemError(.fileWrite, "cannot write the file")
    /// A config line that does not parse, or a value its key does not take.
    public static let config = SystemError(.config, "bad config file")
    /// A folder could not be watched for changes (no inotify, too many folders for its limit).
    public static let watch = SystemError(.watch, "cannot watch the folder")

    public static func fileWrite(_ message: String) -> SystemError { SystemError(.fileWrite, message) }
    public static func config(_ message: String) -> SystemError { SystemError(.config, message) }
    public static func watch(_ message: String) -> SystemError { SystemError(.watch, message) }
}
