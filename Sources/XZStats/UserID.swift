/// A library user, as the `user_id` columns name one. The owner is 0 whether or not any user has been
/// added yet, so what was kept before accounts existed is the owner's.
package struct UserID: Hashable, Sendable, CustomStringConvertible {
    package let rawValue: Int64

    package init(_ rawValue: Int64) { self.rawValue = rawValue }

    /// The library's owner: the terminal, one-shot commands and MPD clients act as the owner.
    package static let owner = UserID(0)

    package var isOwner: Bool { self == .owner }
    package var description: String { String(rawValue) }
}
