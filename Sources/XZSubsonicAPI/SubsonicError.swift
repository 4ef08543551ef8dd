import XZSystem

/// An API failure: the spec's error code (its kind) and the one line the client reads.
package struct SubsonicError: KindedError {
    /// The spec's codes (docs/responses/error).
    package enum Kind: Int, Hashable, Sendable {
        case generic = 0
        case missingParameter = 10
        case clientTooOld = 20
        case serverTooOld = 30
        case wrongCredentials = 40
        case tokenAuthNotSupported = 41
        case authMechanismNotSupported = 42
        case conflictingAuth = 43
        case invalidAPIKey = 44
        case notAuthorized = 50
        case trialOver = 60
        case notFound = 70
    }

    package let kind: Kind
    package var message: String

    package var code: Int { kind.rawValue }

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let generic = SubsonicError(kind: .generic, message: "a generic error")
    package static let missingParameter = SubsonicError(kind: .missingParameter, message: "required parameter is missing")
    package static let clientTooOld = SubsonicError(kind: .clientTooOld, message: "incompatible Subsonic REST protocol version: client must upgrade")
    package static let serverTooOld = SubsonicError(kind: .serverTooOld, message: "incompatible Subsonic REST protocol version: server must upgrade")
    package static let wrongCredentials = SubsonicError(kind: .wrongCredentials, message: "wrong username or password")
    package static let tokenAuthNotSupported = SubsonicError(kind: .tokenAuthNotSupported, message: "token authentication not supported")
    package static let authMechanismNotSupported = SubsonicError(kind: .authMechanismNotSupported, message: "provided authentication mechanism not supported")
    package static let conflictingAuth = SubsonicError(kind: .conflictingAuth, message: "multiple conflicting authentication mechanisms provided")
    package static let invalidAPIKey = SubsonicError(kind: .invalidAPIKey, message: "invalid API key")
    package static let notAuthorized = SubsonicError(kind: .notAuthorized, message: "user is not authorized for the given operation")
    package static let notFound = SubsonicError(kind: .notFound, message: "the requested data was not found")
}
