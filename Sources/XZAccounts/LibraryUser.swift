import XZStats

/// A user of the library, as the API and the `user` commands see one; the password and API key stay in
/// the store.
package struct LibraryUser: Sendable, Equatable {
    package var id: UserID
    package var name: String
    package var isAdmin: Bool
    /// May drive the host's own player (`jukeboxControl`); admins may always.
    package var mayJukebox: Bool
    package var email: String
    /// The user has an API key (`apiKeyAuthentication`); the key itself is shown once, when made.
    package var hasAPIKey: Bool

    package init(id: UserID, name: String, isAdmin: Bool, mayJukebox: Bool = false, email: String = "",
                 hasAPIKey: Bool = false) {
        self.id = id
        self.name = name
        self.isAdmin = isAdmin
        self.mayJukebox = mayJukebox
        self.email = email
        self.hasAPIKey = hasAPIKey
    }

    /// The first user added: the terminal and MPD clients act as the owner.
    package var isOwner: Bool { id.isOwner }
}
