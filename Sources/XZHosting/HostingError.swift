import XZSystem

/// Why a host could not start, by kind; the message is what a user reads. The library's lock held by
/// another host is the transport's `ServerError.hostRunning`.
public struct HostingError: KindedError {
    public enum Kind: Hashable, Sendable {
        case cannotListen, refusedAddress
    }

    public let kind: Kind
    public let message: String

    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// A socket or TCP address could not be bound.
    public static let cannotListen = HostingError(kind: .cannotListen, message: "cannot listen")
    public static func cannotListen(_ error: Error) -> HostingError { cannotListen("cannot listen: \(error)") }
    /// An address other than loopback without a password.
    public static let refusedAddress = HostingError(kind: .refusedAddress, message: "refusing to listen without a password")
}
