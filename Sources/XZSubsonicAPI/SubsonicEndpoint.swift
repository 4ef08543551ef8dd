import XZAccounts

/// One row of the API's table: the endpoint's name, who may call it, and what it answers. Answers run on
/// a thread of the transport's pool (they read SQLite and files), never on an event loop.
package struct SubsonicEndpoint: Sendable {
    package enum Access: Sendable {
        /// No authentication (`getOpenSubsonicExtensions`).
        case anyone
        /// Any authenticated user.
        case user
        /// Admins only (user management, `startScan`).
        case admin
        /// Admins and users given the jukebox role.
        case jukebox
    }

    package let name: String
    package let access: Access
    package let answer: @Sendable (SubsonicCall) throws -> SubsonicReply

    package init(_ name: String, _ access: Access = .user, answer: @escaping @Sendable (SubsonicCall) throws -> SubsonicReply) {
        self.name = name
        self.access = access
        self.answer = answer
    }
}

/// An endpoint's call: the request, who made it (nil only for `.anyone` rows), and the library.
package struct SubsonicCall: Sendable {
    package let request: SubsonicRequest
    package let user: LibraryUser?
    package let library: SubsonicLibrary

    package init(request: SubsonicRequest, user: LibraryUser?, library: SubsonicLibrary) {
        self.request = request
        self.user = user
        self.library = library
    }
}
