import XZSystem

/// Why a host could not start, by kind; the message is what a user reads. The library's lock held by
/// another host is the transport's `ServerError.hostRunning`.
package struct HostingError: KindedError {
    package enum Kind: Hashable, Sendable {
        case cannotListen, refusedAddress
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// A socket or TCP address could not be bound.
    package static let cannotListen = HostingError(kind: .cannotListen, message: "cannot listen")
    package static func cannotListen(_ error: Error) -> HostingError { cannotListen("cannot listen: \(error)") }
    /// An address other than loopback without a password.
    package static let refusedAddress = HostingError(kind: .refusedAddress, message: "refusing to listen without a password")
}
