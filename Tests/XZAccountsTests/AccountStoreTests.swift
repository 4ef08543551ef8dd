import Crypto
import Foundation
import GRDB
import XCTest
import XZCatalogue
import XZStats
import XZSystem
import XZTestSupport
@testable import XZAccounts
#if canImport(Glibc)
import Glibc
#endif

/// Accounts over a real library database and key file in a temporary folder.
final class AccountStoreTests: XCTestCase {
    private var folder: TemporaryFolder!
    private var database: LibraryDatabase!
    private var accounts: AccountStore!

    override func setUpWithError() throws {
        folder = try TemporaryFolder("accounts")
        let library = LibraryFolder(url: folder.url)
        database = try library.open(seedingDemoFrom: nil)
        accounts = AccountStore(library: library, database: database)
    }

    override func tearDown() {
        accounts = nil
        database = nil
        folder = nil
    }

    private var keyPath: String { AccountStore.keyFile(in: LibraryFolder(url: folder.url)).path }

    func testTheFirstUserIsTheOwnerAndAnAdmin() throws {
        let owner = try accounts.add(name: "王菲", password: "first")
        XCTAssertEqual(owner.id, .owner)
        XCTAssertTrue(owner.isAdmin, "the owner is an admin though not asked")
        let second = try accounts.add(name: "ana", password: "second", mayJukebox: true, email: "ana@example.org")
        XCTAssertEqual(second.id, UserID(1))
        XCTAssertFalse(second.isAdmin)
        let third = try accounts.add(name: "bo", password: "third", isAdmin: true)
        XCTAssertEqual(third.id, UserID(2))
        XCTAssertEqual(try accounts.list().map(\.name), ["王菲", "ana", "bo"])
        XCTAssertEqual(try accounts.user(named: "ana"), second)
        XCTAssertEqual(try accounts.user(id: UserID(2))?.name, "bo")
        XCTAssertNil(try accounts.user(named: "nobody"))
        XCTAssertNil(try accounts.user(id: UserID(9)))

        XCTAssertThrowsError(try accounts.add(name: "ana", password: "again")) { XCTAssertEqual($0 as? AccountError, .exists) }
        XCTAssertThrowsError(try accounts.remove(name: "王菲")) { XCTAssertEqual($0 as? AccountError, .ownerCannotBeRemoved) }
        XCTAssertThrowsError(try accounts.update(name: "王菲", isAdmin: false)) {
            XCTAssertEqual($0 as? AccountError, .ownerStaysAdmin)
        }
        XCTAssertThrowsError(try accounts.remove(name: "nobody")) { XCTAssertEqual($0 as? AccountError, .noSuchUser) }

        let updated = try accounts.update(name: "ana", isAdmin: true, email: "a@b.c")
        XCTAssertEqual(updated, LibraryUser(id: UserID(1), name: "ana", isAdmin: true, mayJukebox: true, email: "a@b.c"))
        XCTAssertEqual(try accounts.user(named: "ana"), updated)

        // The highest id goes; the next user gets it again, and nothing of the removed one.
        try StatsStore(database: database, user: third.id).like(songKey: "k", fallbackTitle: "T")
        try accounts.remove(name: "bo")
        XCTAssertEqual(try accounts.add(name: "cy", password: "fourth").id, UserID(2))
        XCTAssertEqual(try StatsStore(database: database, user: UserID(2)).liked().count, 0)
    }

    func testNamesPasswordsAndEmailsAreChecked() throws {
        for bad in ["", String(repeating: "a", count: 65), "tab\there", "new\nline", "nul\u{0}", " lead", "trail ",
                    "bidi\u{202E}x", String(repeating: "e\u{301}", count: 65),
                    "a" + String(repeating: "\u{301}", count: 5_000)] {
            XCTAssertThrowsError(try accounts.add(name: bad, password: "pw"), bad.debugDescription) {
                XCTAssertEqual($0 as? AccountError, .badName)
            }
        }
        XCTAssertNoThrow(try accounts.add(name: String(repeating: "é", count: 64), password: "pw"))
        XCTAssertNoThrow(try accounts.add(name: "a b", password: String(repeating: "p", count: 256)))
        for bad in ["", String(repeating: "p", count: 257), String(repeating: "密", count: 86)] {
            XCTAssertThrowsError(try accounts.add(name: "x", password: bad)) { XCTAssertEqual($0 as? AccountError, .badPassword) }
        }
        XCTAssertThrowsError(try accounts.add(name: "x", password: "pw", email: "a\u{7}@b")) {
            XCTAssertEqual($0 as? AccountError, .badEmail)
        }
        XCTAssertThrowsError(try accounts.setPassword(name: "a b", password: "")) {
            XCTAssertEqual($0 as? AccountError, .badPassword)
        }
        XCTAssertEqual(try accounts.list().count, 2, "nothing added by a refused call")
    }

    func testPasswordsAreSealedAndTheKeyFileIsTheOwnersAlone() throws {
        XCTAssertFalse(FileManager.default.fileExists(atPath: keyPath))
        let user = try accounts.add(name: "ana", password: "correct horse 電池")
        var status = stat()
        XCTAssertEqual(stat(keyPath, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)
        XCTAssertEqual(status.st_size, 32)
        let sealed = try XCTUnwrap(try database.pool.read { try Data.fetchOne($0, sql: "SELECT password_sealed FROM library_user") })
        XCTAssertNil(sealed.range(of: Data("correct horse".utf8)), "the password is not stored in the clear")
        XCTAssertEqual(try accounts.password(of: user.id), "correct horse 電池")

        // Another store (another process) reads the same key; a new password opens as well.
        let again = AccountStore(database: database, keyFile: URL(fileURLWithPath: keyPath))
        XCTAssertEqual(try again.password(of: user.id), "correct horse 電池")
        try again.setPassword(name: "ana", password: "new one")
        XCTAssertEqual(try accounts.password(of: user.id), "new one")

        // A seal copied onto another user's row does not open there.
        let other = try accounts.add(name: "bo", password: "bo's")
        try database.pool.write { db in
            try db.execute(sql: "UPDATE library_user SET password_sealed = ? WHERE id = ?", arguments: [sealed, other.id.rawValue])
        }
        XCTAssertThrowsError(try accounts.password(of: other.id)) { XCTAssertEqual($0 as? AccountError, .keyFile) }

        // A key file others may read is refused, by a store that has not read it yet.
        XCTAssertEqual(chmod(keyPath, 0o644), 0)
        XCTAssertThrowsError(try AccountStore(database: database, keyFile: URL(fileURLWithPath: keyPath)).password(of: user.id)) {
            XCTAssertEqual($0 as? AccountError, .keyFile)
            XCTAssertTrue("\($0)".contains("chmod 600"), "\($0)")
        }
        XCTAssertEqual(chmod(keyPath, 0o600), 0)
        // One that belongs to another user is refused (only root can give a file away to test it).
        if geteuid() == 0 {
            XCTAssertEqual(chown(keyPath, 1, 1), 0)
            XCTAssertThrowsError(try AccountStore(database: database, keyFile: URL(fileURLWithPath: keyPath)).password(of: user.id)) {
                XCTAssertEqual($0 as? AccountError, .keyFile)
                XCTAssertTrue("\($0)".contains("belongs to another user"), "\($0)")
            }
            XCTAssertEqual(chown(keyPath, 0, 0), 0)
        }
        // A link to a key elsewhere is not followed.
        let link = folder.path("linked.key")
        XCTAssertEqual(symlink(keyPath, link), 0)
        XCTAssertThrowsError(try AccountStore(database: database, keyFile: URL(fileURLWithPath: link)).password(of: user.id)) {
            XCTAssertEqual($0 as? AccountError, .keyFile)
        }
        // A key file of the wrong size is refused too.
        let short = folder.path("short.key")
        XCTAssertTrue(FileManager.default.createFile(atPath: short, contents: Data(count: 5), attributes: [.posixPermissions: 0o600]))
        XCTAssertThrowsError(try AccountStore(database: database, keyFile: URL(fileURLWithPath: short)).add(name: "cy", password: "x")) {
            XCTAssertEqual($0 as? AccountError, .keyFile)
        }
    }

    func testStoresStartingTogetherAgreeOnOneKey() throws {
        let url = URL(fileURLWithPath: keyPath)
        let keys = Mutex<[Data]>([])
        DispatchQueue.concurrentPerform(iterations: 8) { _ in
            let key = (try? AccountKeyFile(url: url).key()).map { $0.withUnsafeBytes { Data($0) } } ?? Data()
            keys.withLock { $0.append(key) }
        }
        let made = keys.withLock { $0 }
        XCTAssertEqual(made.count, 8)
        XCTAssertEqual(Set(made).count, 1, "one key for all")
        XCTAssertEqual(made.first?.count, 32)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.url.path).filter { $0.hasPrefix("accounts.key") },
                       ["accounts.key"], "no temporary file left beside it")
    }

    func testPlainTokenAndAPIKeyAuthentication() throws {
        let owner = try accounts.add(name: "ana", password: "sesame")
        _ = try accounts.add(name: "bo", password: "other")
        XCTAssertEqual(try accounts.authenticate(name: "ana", password: "sesame"), owner)
        for (name, password) in [("ana", "Sesame"), ("ana", ""), ("ana", "sesame "), ("bo", "sesame"), ("nobody", "sesame")] {
            XCTAssertThrowsError(try accounts.authenticate(name: name, password: password)) {
                XCTAssertEqual($0 as? AccountError, .wrongCredentials)
            }
        }

        let salt = "c19b2d"
        let token = Insecure.MD5.hash(data: Data("sesame\(salt)".utf8)).map { String(format: "%02x", $0) }.joined()
        XCTAssertEqual(try accounts.authenticate(name: "ana", token: token, salt: salt), owner)
        XCTAssertEqual(try accounts.authenticate(name: "ana", token: token.uppercased(), salt: salt), owner)
        for (name, badToken, badSalt) in [("ana", token, "other"), ("bo", token, salt), ("ana", String(token.dropLast()), salt),
                                          ("ana", "", salt), ("nobody", token, salt)] {
            XCTAssertThrowsError(try accounts.authenticate(name: name, token: badToken, salt: badSalt)) {
                XCTAssertEqual($0 as? AccountError, .wrongCredentials)
            }
        }

        XCTAssertFalse(try XCTUnwrap(try accounts.user(named: "ana")).hasAPIKey)
        let key = try accounts.newAPIKey(name: "ana")
        XCTAssertEqual(key.count, 43, "32 bytes in base64url without padding")
        XCTAssertTrue(key.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }, key)
        XCTAssertTrue(try XCTUnwrap(try accounts.user(named: "ana")).hasAPIKey)
        let stored = try database.pool.read { try String.fetchOne($0, sql: "SELECT api_key_hash FROM library_user WHERE id = 0") }
        XCTAssertEqual(stored?.count, 64)
        XCTAssertNotEqual(stored, key, "only the hash is kept")
        XCTAssertEqual(try accounts.authenticate(apiKey: key).id, owner.id)
        for bad in ["", String(key.dropLast()), key + "x", String(repeating: "k", count: 10_000)] {
            XCTAssertThrowsError(try accounts.authenticate(apiKey: bad)) { XCTAssertEqual($0 as? AccountError, .unknownAPIKey) }
        }
        // A new key replaces the old one.
        let newer = try accounts.newAPIKey(name: "ana")
        XCTAssertNotEqual(newer, key)
        XCTAssertThrowsError(try accounts.authenticate(apiKey: key))
        XCTAssertEqual(try accounts.authenticate(apiKey: newer).name, "ana")
        XCTAssertThrowsError(try accounts.newAPIKey(name: "nobody")) { XCTAssertEqual($0 as? AccountError, .noSuchUser) }
    }

    func testLikesAndPlaysAreEachUsersOwn() throws {
        _ = try database.importFeed(at: try feed([("1", "晴天", "周杰伦"), ("2", "十年", "陳奕迅")]))
        let owner = try accounts.add(name: "owner", password: "a")
        let guest = try accounts.add(name: "guest", password: "b")
        let ownerStats = StatsStore(database: database, user: owner.id)
        let guestStats = StatsStore(database: database, user: guest.id)
        try ownerStats.like(songKey: "src:1")
        try guestStats.like(songKey: "src:2")
        try guestStats.recordPlay(songKey: "src:2", title: "十年", singer: "陳奕迅", durationMs: 200_000)
        let recorder = PlaySessionRecorder(database: database)
        try recorder.begin(songKey: "src:1", title: "晴天", singer: "周杰伦", durationMs: 60_000)
        for second in 1...60 { try recorder.handle(.position(ms: second * 1_000)) }
        try recorder.end(reason: .completed, positionMs: 60_000)

        XCTAssertEqual(try ownerStats.liked().map(\.songKey), ["src:1"])
        XCTAssertEqual(try guestStats.liked().map(\.songKey), ["src:2"])
        XCTAssertEqual(try ownerStats.playCounts(songKeys: ["src:1", "src:2"]), ["src:1": 1], "the player plays for the owner")
        XCTAssertEqual(try guestStats.playCounts(songKeys: ["src:1", "src:2"]), ["src:2": 1])
        XCTAssertEqual(try StickerStore(database: database).value(songKey: "src:2", name: "like"), nil,
                       "MPD's like sticker is the owner's")
        XCTAssertEqual(try StickerStore(database: database).value(songKey: "src:1", name: "like"), "1")
    }

    /// A library made before accounts existed, with likes and plays: after opening, every one is the owner's.
    func testALibraryFromBeforeAccountsKeepsEveryLikeAndPlayAsTheOwners() throws {
        let path = folder.path("old.sqlite")
        do {
            let queue = try DatabaseQueue(path: path)
            var before = DatabaseMigrator()
            for migration in Schema.migrations().prefix(while: { $0.name != "v22-user-likes-and-plays" }) {
                before.registerMigration(migration.name) { db in try db.execute(sql: migration.sql) }
            }
            try before.migrate(queue)
            try queue.write { db in
                for (key, at) in [("src:1", "2026-01-01T00:00:00Z"), ("src:2", "2026-01-02T00:00:00Z"), ("src:3", "2026-01-02T00:00:00Z")] {
                    try db.execute(sql: "INSERT INTO song_like (song_key, title, singer, liked_at) VALUES (?, 'T', 'S', ?)",
                                   arguments: [key, at])
                }
                for (index, key) in ["src:1", "src:1", "src:2", "src:4"].enumerated() {
                    try db.execute(sql: """
                        INSERT INTO play_session (song_key, title, singer, started_at, updated_at, played_ms, position_ms,
                                                  end_reason, counted, counted_at)
                        VALUES (?, 'T', 'S', ?, ?, 60000, 60000, 'completed', ?, ?)
                        """, arguments: [key, "2026-02-0\(index + 1)T00:00:00Z", "2026-02-0\(index + 1)T00:01:00Z",
                                         key == "src:4" ? 0 : 1, "2026-02-0\(index + 1)T00:00:40Z"])
                }
            }
        }
        let migrated = try LibraryDatabase(path: path)
        let owner = StatsStore(database: migrated)
        XCTAssertEqual(try owner.liked().map(\.songKey), ["src:3", "src:2", "src:1"], "same order: newest, then last made")
        XCTAssertEqual(try owner.history(limit: 10).count, 4)
        XCTAssertEqual(try owner.playCounts(songKeys: ["src:1", "src:2", "src:4"]), ["src:1": 2, "src:2": 1])
        XCTAssertEqual(try migrated.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM song_like WHERE user_id <> 0") }, 0)
        XCTAssertEqual(try migrated.pool.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM play_session WHERE user_id <> 0") }, 0)
        // The triggers that were rebuilt still keep search's popularity and MPD's sticker version.
        let popularity = { try migrated.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT song_key, plays, liked FROM song_popularity ORDER BY song_key")
                .map { "\($0[0] as String)=\($0[1] as Int)/\($0[2] as Int)" }
        } }
        XCTAssertEqual(try popularity(), ["src:1=2/1", "src:2=1/1", "src:3=0/1"])
        let version = { try migrated.pool.read { try Int.fetchOne($0, sql: "SELECT value FROM sticker_version") ?? 0 } }
        let before = try version()
        try owner.unlike(songKey: "src:3")
        try owner.recordPlay(songKey: "src:2", title: "T", singer: "S", durationMs: 1_000)
        XCTAssertEqual(try popularity(), ["src:1=2/1", "src:2=2/1", "src:3=0/0"])
        XCTAssertGreaterThan(try version(), before)
        // A second user's like neither reaches popularity nor wakes MPD clients.
        let settled = try version()
        try StatsStore(database: migrated, user: UserID(1)).like(songKey: "src:4", fallbackTitle: "T")
        XCTAssertEqual(try version(), settled)
        XCTAssertEqual(try popularity(), ["src:1=2/1", "src:2=2/1", "src:3=0/0"])
    }

    private func feed(_ songs: [(String, String, String)]) throws -> URL {
        let url = folder.url.appendingPathComponent("feed.jsonl")
        let lines = try songs.map { id, title, singer in
            String(decoding: try JSONSerialization.data(withJSONObject: ["source_id": id, "title": title, "singer": singer,
                                                                         "duration_ms": 200_000], options: [.sortedKeys]),
                   as: UTF8.self)
        }
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }
}
