import XZSystem

/// A failure of the accounts layer, told apart by kind (`error == .noSuchUser`); the message is the line
/// shown to the user and never holds a password.
package struct AccountError: KindedError {
    package enum Kind: Hashable, Sendable {
        case exists, noSuchUser, ownerCannotBeRemoved, ownerStaysAdmin, badName, badPassword, badEmail
        case keyFile, io, wrongCredentials, unknownAPIKey
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// A user of that name is already there.
    package static let exists = AccountError(kind: .exists, message: "a user of that name exists")
    package static let noSuchUser = AccountError(kind: .noSuchUser, message: "no such user")
    /// The owner (the first user, whom the terminal and MPD clients act as) stays.
    package static let ownerCannotBeRemoved = AccountError(
        kind: .ownerCannotBeRemoved, message: "the owner cannot be removed: the terminal and MPD clients act as the owner")
    package static let ownerStaysAdmin = AccountError(kind: .ownerStaysAdmin, message: "the owner is always an admin")
    /// A name of 1 to 64 characters without control characters or spaces at its ends.
    package static let badName = AccountError(
        kind: .badName, message: "a user name is 1 to 64 characters, without control characters or spaces at its ends")
    package static let badPassword = AccountError(kind: .badPassword, message: "a password is 1 to 256 bytes")
    package static let badEmail = AccountError(
        kind: .badEmail, message: "an email address is at most 256 characters, without control characters")
    /// The key file that seals passwords is missing and cannot be made, unreadable, or open to others.
    package static let keyFile = AccountError(kind: .keyFile, message: "the accounts key file cannot be used")
    package static let io = AccountError(kind: .io, message: "cannot read or write the accounts")
    /// Name and password (or token) do not match a user; which of the two is wrong is not said.
    package static let wrongCredentials = AccountError(kind: .wrongCredentials, message: "wrong user name or password")
    package static let unknownAPIKey = AccountError(kind: .unknownAPIKey, message: "unknown API key")
}
