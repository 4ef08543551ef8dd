import XZAccounts

extension SubsonicEndpoints {
    /// The library's users, as `xzmusic user` manages them: admins manage anyone, a user reads and
    /// changes the password of their own account only.
    static let users: [SubsonicEndpoint] = [
        SubsonicEndpoint("getUser") { call in
            let name = try call.required("username")
            try call.mayManage(name)
            return .document(SubsonicDocument("user", SubsonicUser(try call.existingUser(named: name))))
        },
        SubsonicEndpoint("getUsers", .admin) { call in
            let users = try call.accounts { try call.library.accounts.list() }
            return .document(SubsonicDocument("users", SubsonicUsers(user: users.map(SubsonicUser.init))))
        },
        SubsonicEndpoint("createUser", .admin) { call in
            let name = try call.required("username")
            let password = try call.newPassword()
            let email = try call.required("email")
            let isAdmin = try call.bool("adminRole", default: false)
            let mayJukebox = try call.bool("jukeboxRole", default: false)
            try call.accounts {
                try call.library.accounts.add(name: name, password: password, isAdmin: isAdmin, mayJukebox: mayJukebox, email: email)
            }
            return .empty
        },
        SubsonicEndpoint("updateUser", .admin) { call in
            let name = try call.required("username")
            _ = try call.existingUser(named: name)
            let password = try call.text("password").map { _ in try call.newPassword() }
            let email = try call.text("email")
            let isAdmin = try call.optionalBool("adminRole")
            let mayJukebox = try call.optionalBool("jukeboxRole")
            try call.accounts {
                _ = try call.library.accounts.update(name: name, isAdmin: isAdmin, mayJukebox: mayJukebox, email: email)
                if let password { try call.library.accounts.setPassword(name: name, password: password) }
            }
            return .empty
        },
        SubsonicEndpoint("deleteUser", .admin) { call in
            let name = try call.required("username")
            try call.accounts { try call.library.accounts.remove(name: name) }
            return .empty
        },
        SubsonicEndpoint("changePassword") { call in
            let name = try call.required("username")
            try call.mayManage(name)
            let password = try call.newPassword()
            try call.accounts { try call.library.accounts.setPassword(name: name, password: password) }
            return .empty
        },
    ]
}

extension SubsonicCall {
    /// Admins manage every account; anyone else only their own (error 50).
    fileprivate func mayManage(_ name: String) throws {
        guard let user, user.isAdmin || user.name == name else {
            throw SubsonicError.notAuthorized("only an admin may manage another user's account")
        }
    }

    fileprivate func existingUser(named name: String) throws -> LibraryUser {
        guard let user = try accounts({ try library.accounts.user(named: name) }) else {
            throw SubsonicError.notFound("no such user")
        }
        return user
    }

    /// `password`, clear or `enc:` and hex as the spec allows; malformed hex is refused (error 0).
    fileprivate func newPassword() throws -> String {
        guard let password = SubsonicAuthentication.password(try required("password")) else {
            throw SubsonicError.generic("parameter 'password' is malformed 'enc:' hex")
        }
        return password
    }

    /// The store's failures as the API tells them: no such user is 70, a refused name, password or
    /// change is code 0 with the store's line (which never holds a password).
    @discardableResult
    fileprivate func accounts<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as AccountError where error.kind == .noSuchUser {
            throw SubsonicError.notFound(error.message)
        } catch let error as AccountError {
            throw SubsonicError.generic(error.message)
        }
    }
}

/// A user as the spec lists one: the roles this server has (streaming, downloading, playlists, cover
/// art and comments for everyone; admin and jukebox as the account says) and none it lacks.
package struct SubsonicUser: Encodable, Sendable, Equatable {
    package var username: String
    package var email: String?
    package var scrobblingEnabled = true
    package var adminRole: Bool
    package var settingsRole = true
    package var downloadRole = true
    package var uploadRole = false
    package var playlistRole = true
    package var coverArtRole = false
    package var commentRole = true
    package var podcastRole = false
    package var streamRole = true
    package var jukeboxRole: Bool
    package var shareRole = false
    package var videoConversionRole = false
    /// The one music folder.
    package var folder = [MusicFolderTree.musicFolderID]

    package init(_ user: LibraryUser) {
        username = user.name
        email = user.email.isEmpty ? nil : user.email
        adminRole = user.isAdmin
        jukeboxRole = user.isAdmin || user.mayJukebox
    }
}

/// `getUsers`' payload.
package struct SubsonicUsers: Encodable, Sendable, Equatable {
    package var user: [SubsonicUser]
}
