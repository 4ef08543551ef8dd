/// Why a host could not start, by kind; the message is what a user reads. The library's lock held by
/// another host is the transport's `ServerError.hostRunning`.
public struct HostingError: Error, Hashable, CustomStringConvertible, Sendable {
    private enum Code: Hashable, Sendable {
        case cannotListen, refusedAddress
    }

    private let code: Code
    public let description: String

    private init(_ code: Code, _ description: String) {
        self.code = code
        self.description = description
    }

    /// Kinds compare by code alone: `catch HostingError.cannotListen`.
    public static func ~= (kind: HostingError, error: any Error) -> Bool {
        (error as? HostingError)?.code == kind.code
    }

    /// A socket or TCP address could not be bound.
    public static func cannotListen(_ error: Error) -> HostingError { HostingError(.cannotListen, "cannot listen: \(error)") }
    public static let cannotListen = HostingError(.cannotListen, "cannot listen")
    /// An address other than loopback without a password.
    static func refusedAddress(_ message: String) -> HostingError { HostingError(.refusedAddress, message) }
    public static let refusedAddress = HostingError(.refusedAddress, "refusing to listen without a password")
}
