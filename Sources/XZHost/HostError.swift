/// A host's refusal, by kind; the message is what a user reads.
public struct HostError: Error, Hashable, CustomStringConvertible, Sendable {
    private enum Code: Hashable, Sendable {
        case malformedURI, climbsOut, accessDenied, unsupportedScheme, noSuchSong
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Kinds compare by code alone: `error ~= .accessDenied`.
    public static func ~= (kind: HostError, error: any Error) -> Bool {
        (error as? HostError)?.code == kind.code
    }

    /// Empty, or with a NUL.
    public static let malformedURI = HostError(.malformedURI, "Malformed URI")
    /// With a `..` or `.` component, which could name a file outside its folder.
    public static let climbsOut = HostError(.climbsOut, "Malformed URI")
    /// An absolute path from a client that may not name files by path.
    public static let accessDenied = HostError(.accessDenied, "Access denied")
    public static let unsupportedScheme = HostError(.unsupportedScheme, "Unsupported URI scheme: only files play on this host")
    public static let noSuchSong = HostError(.noSuchSong, "No such song")
}
