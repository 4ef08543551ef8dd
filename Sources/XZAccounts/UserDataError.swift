import XZSystem

/// A refused change to a user's stars, ratings, play queue or bookmarks.
package struct UserDataError: KindedError {
    package enum Kind: Hashable, Sendable {
        /// The song, album or artist named is not in the library.
        case notFound
        /// A value outside its domain (a rating past 5, a position below 0, too many entries).
        case refused
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let notFound = UserDataError(kind: .notFound, message: "no such item in the library")
    package static let refused = UserDataError(kind: .refused, message: "value refused")
}
