import Crypto
import Foundation
import GRDB
import XZCatalogue
import XZStats
import XZSystem
import XZText

/// The library's users in its database, their passwords sealed (AES-GCM) under the library's key file,
/// their API keys kept only as SHA-256. The first user added is the owner (id 0, an admin), whom the
/// terminal and MPD clients act as. Passwords never appear in an error or a log line.
package struct AccountStore: Sendable {
    package let database: LibraryDatabase
    package let keyFile: AccountKeyFile

    package init(database: LibraryDatabase, keyFile: URL) {
        self.database = database
        self.keyFile = AccountKeyFile(url: keyFile)
    }

    /// The library's accounts, with the key file in its folder.
    package init(library: LibraryFolder, database: LibraryDatabase) {
        self.init(database: database, keyFile: Self.keyFile(in: library))
    }

    package static func keyFile(in library: LibraryFolder) -> URL {
        library.url.appendingPathComponent(AccountKeyFile.fileName)
    }

    static let maxNameCharacters = 64
    static let maxPasswordBytes = 256
    static let maxEmailCharacters = 256

    // MARK: Users

    /// Adds a user. The first one added is the owner: id 0 and an admin whatever `isAdmin` says; later
    /// ones get the highest id plus one.
    @discardableResult
    package func add(name: String, password: String, isAdmin: Bool = false, mayJukebox: Bool = false,
                     email: String = "", at date: Date = Date()) throws -> LibraryUser {
        try Self.check(name: name)
        try Self.check(password: password)
        try Self.check(email: email)
        let key = try keyFile.key()
        return try writing { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM library_user WHERE name = ?", arguments: [name]) == true {
                throw AccountError.exists("there is already a user named \(name.safeForTerminal)")
            }
            let id = try Int64.fetchOne(db, sql: "SELECT max(id) + 1 FROM library_user") ?? 0
            let user = LibraryUser(id: UserID(id), name: name, isAdmin: id == 0 || isAdmin,
                                   mayJukebox: mayJukebox, email: email)
            try db.execute(sql: """
                INSERT INTO library_user (id, name, is_admin, may_jukebox, email, password_sealed, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?)
                """, arguments: [id, name, user.isAdmin, mayJukebox, email,
                                 try Self.seal(password, for: user.id, key: key), UTCStamp.string(date)])
            return user
        }
    }

    /// Every user, the owner first.
    package func list() throws -> [LibraryUser] {
        try reading { db in try Row.fetchAll(db, sql: "SELECT \(Self.columns) FROM library_user ORDER BY id").map(Self.user) }
    }

    package func user(named name: String) throws -> LibraryUser? {
        try reading { db in try Self.user(db, named: name) }
    }

    package func user(id: UserID) throws -> LibraryUser? {
        try reading { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM library_user WHERE id = ?", arguments: [id.rawValue])
                .map(Self.user)
        }
    }

    /// The user whose API key this is; nil for a key no user has.
    package func user(apiKey: String) throws -> LibraryUser? {
        guard !apiKey.isEmpty, apiKey.utf8.count <= 256 else { return nil }
        let hash = Self.apiKeyHash(apiKey)
        return try reading { db in
            try Row.fetchOne(db, sql: "SELECT \(Self.columns) FROM library_user WHERE api_key_hash = ?", arguments: [hash])
                .map(Self.user)
        }
    }

    package func setPassword(name: String, password: String) throws {
        try Self.check(password: password)
        let key = try keyFile.key()
        try writing { db in
            let user = try Self.existing(db, named: name)
            try db.execute(sql: "UPDATE library_user SET password_sealed = ? WHERE id = ?",
                           arguments: [try Self.seal(password, for: user.id, key: key), user.id.rawValue])
        }
    }

    /// Changes what is given; the owner stays an admin. Returns the user as now stored.
    @discardableResult
    package func update(name: String, isAdmin: Bool? = nil, mayJukebox: Bool? = nil, email: String? = nil) throws -> LibraryUser {
        if let email { try Self.check(email: email) }
        return try writing { db in
            var user = try Self.existing(db, named: name)
            if isAdmin == false, user.isOwner { throw AccountError.ownerStaysAdmin }
            user.isAdmin = isAdmin ?? user.isAdmin
            user.mayJukebox = mayJukebox ?? user.mayJukebox
            user.email = email ?? user.email
            try db.execute(sql: "UPDATE library_user SET is_admin = ?, may_jukebox = ?, email = ? WHERE id = ?",
                           arguments: [user.isAdmin, user.mayJukebox, user.email, user.id.rawValue])
            return user
        }
    }

    /// Removes a user with everything that was theirs alone: likes, plays, stars, ratings, play queue and
    /// bookmarks (a later user may be given the same id). Their stored playlists pass to the owner, kept
    /// private. The owner cannot be removed.
    package func remove(name: String) throws {
        try writing { db in
            let user = try Self.existing(db, named: name)
            if user.isOwner { throw AccountError.ownerCannotBeRemoved }
            let id = user.id.rawValue
            for table in ["song_like", "play_session", "user_star", "user_rating", "user_play_queue_entry",
                          "user_play_queue", "user_bookmark"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE user_id = ?", arguments: [id])
            }
            try db.execute(sql: "UPDATE playlist_owner SET user_id = 0, public = 0 WHERE user_id = ?", arguments: [id])
            try db.execute(sql: "DELETE FROM library_user WHERE id = ?", arguments: [id])
        }
    }

    /// Makes the user a new API key, replacing any earlier one, and returns it: 32 random bytes in
    /// base64url. Only its SHA-256 is kept, so this is the one time it can be shown.
    package func newAPIKey(name: String) throws -> String {
        let apiKey = ByteEncodings.base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
        try writing { db in
            let user = try Self.existing(db, named: name)
            try db.execute(sql: "UPDATE library_user SET api_key_hash = ? WHERE id = ?",
                           arguments: [Self.apiKeyHash(apiKey), user.id.rawValue])
        }
        return apiKey
    }

    /// The user's password, opened from its seal: token authentication needs the password itself.
    package func password(of id: UserID) throws -> String {
        let sealed = try reading { db in
            try Data.fetchOne(db, sql: "SELECT password_sealed FROM library_user WHERE id = ?", arguments: [id.rawValue])
        }
        guard let sealed else { throw AccountError.noSuchUser }
        return try Self.open(sealed, for: id, key: try keyFile.key(), keyPath: keyFile.url.path)
    }

    // MARK: Verification

    /// The user when `password` is theirs; `wrongCredentials` otherwise, for an unknown name too.
    package func authenticate(name: String, password: String) throws -> LibraryUser {
        guard let user = try user(named: name) else { throw unknownUser(comparedWith: password) }
        guard Self.constantTimeEqual(Array(try self.password(of: user.id).utf8), Array(password.utf8)) else {
            throw AccountError.wrongCredentials
        }
        return user
    }

    /// The user when `token` is the lowercase hex MD5 of their password followed by `salt` (Subsonic's
    /// token authentication); `wrongCredentials` otherwise.
    package func authenticate(name: String, token: String, salt: String) throws -> LibraryUser {
        guard let user = try user(named: name) else {
            throw unknownUser(comparedWith: ByteEncodings.hex(Insecure.MD5.hash(data: Data(salt.utf8))))
        }
        let expected = ByteEncodings.hex(Insecure.MD5.hash(data: Data((try password(of: user.id) + salt).utf8)))
        guard Self.constantTimeEqual(Array(expected.utf8), Array(token.lowercased().utf8)) else {
            throw AccountError.wrongCredentials
        }
        return user
    }

    /// An unknown name costs what a wrong password does (a sealed password opened and compared), so the
    /// time of the answer does not tell which names exist.
    private func unknownUser(comparedWith given: String) -> AccountError {
        let decoy = (try? password(of: .owner)) ?? ""
        _ = Self.constantTimeEqual(Array(decoy.utf8), Array(given.utf8))
        return AccountError.wrongCredentials
    }

    package func authenticate(apiKey: String) throws -> LibraryUser {
        guard let user = try user(apiKey: apiKey) else { throw AccountError.unknownAPIKey }
        return user
    }

    // MARK: Rules

    /// Refuses a name no user may have (`badName`), before anything else is asked for.
    package static func check(name: String) throws(AccountError) {
        // The byte bound first: one character may hold any number of combining marks.
        guard name.utf8.count <= 4 * maxNameCharacters, (1...maxNameCharacters).contains(name.count),
              name.unicodeScalars.allSatisfy({ !isHidden($0) }),
              name.first?.isWhitespace == false, name.last?.isWhitespace == false else {
            throw AccountError.badName
        }
    }

    static func check(password: String) throws(AccountError) {
        guard (1...maxPasswordBytes).contains(password.utf8.count) else { throw AccountError.badPassword }
    }

    static func check(email: String) throws(AccountError) {
        guard email.utf8.count <= 4 * maxEmailCharacters, email.count <= maxEmailCharacters,
              email.unicodeScalars.allSatisfy({ !isHidden($0) }) else {
            throw AccountError.badEmail
        }
    }

    /// Control characters, line breaks and the marks that reorder text: what would make a name print
    /// as another.
    private static func isHidden(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .lineSeparator, .paragraphSeparator: return true
        default: return (0x202A...0x202E).contains(scalar.value) || (0x2066...0x2069).contains(scalar.value)
        }
    }

    // MARK: Sealing

    /// The seal names its user, so a sealed password copied to another row does not open there.
    private static func associatedData(_ id: UserID) -> Data { Data("xzmusic user \(id.rawValue)".utf8) }

    static func seal(_ password: String, for id: UserID, key: SymmetricKey) throws(AccountError) -> Data {
        do {
            guard let combined = try AES.GCM.seal(Data(password.utf8), using: key, authenticating: associatedData(id)).combined else {
                throw AccountError.io("cannot seal a password")
            }
            return combined
        } catch let error as AccountError {
            throw error
        } catch {
            throw AccountError.io("cannot seal a password")
        }
    }

    static func open(_ sealed: Data, for id: UserID, key: SymmetricKey, keyPath: String) throws(AccountError) -> String {
        do {
            let box = try AES.GCM.SealedBox(combined: sealed)
            let opened = try AES.GCM.open(box, using: key, authenticating: associatedData(id))
            guard let text = String(validating: opened, as: UTF8.self) else { throw AccountError.keyFile }
            return text
        } catch {
            throw AccountError.keyFile("a stored password does not open with \(keyPath): was the key file replaced?")
        }
    }

    static func apiKeyHash(_ apiKey: String) -> String { ByteEncodings.hex(SHA256.hash(data: Data(apiKey.utf8))) }

    /// Compares every byte whatever the first difference, so the time taken says nothing of where it is.
    static func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(a.count == b.count ? 0 : 1)
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
    }

    // MARK: Rows

    private static let columns = "id, name, is_admin, may_jukebox, email, api_key_hash <> ''"

    private static func user(_ row: Row) -> LibraryUser {
        LibraryUser(id: UserID(row[0]), name: row[1], isAdmin: row[2], mayJukebox: row[3], email: row[4], hasAPIKey: row[5])
    }

    private static func user(_ db: Database, named name: String) throws -> LibraryUser? {
        try Row.fetchOne(db, sql: "SELECT \(columns) FROM library_user WHERE name = ?", arguments: [name]).map(user)
    }

    private static func existing(_ db: Database, named name: String) throws -> LibraryUser {
        guard let user = try user(db, named: name) else {
            throw AccountError.noSuchUser("no user named \(name.safeForTerminal)")
        }
        return user
    }

    private func reading<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.accessing("read") { try database.pool.read(body) }
    }

    @discardableResult
    private func writing<T>(_ body: (Database) throws -> T) throws -> T {
        try Self.accessing("write") { try database.pool.write(body) }
    }

    /// The accounts' own refusals as they are; the database's failures as one `io` line saying what failed.
    private static func accessing<T>(_ verb: String, _ access: () throws -> T) throws -> T {
        do {
            return try access()
        } catch let error as AccountError {
            throw error
        } catch {
            throw AccountError.io("cannot \(verb) the accounts: \(reason(error))")
        }
    }

    /// The database's reason alone: its statement's arguments (a sealed password) stay out of the line.
    private static func reason(_ error: any Error) -> String {
        (error as? DatabaseError)?.message ?? "\(type(of: error))"
    }
}

extension String {
    /// A name as an error line prints it: control characters dropped, a long one cut.
    var safeForTerminal: String { TerminalText.sanitize(String(prefix(AccountStore.maxNameCharacters + 1))) }
}
