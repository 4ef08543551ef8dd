import Foundation
import GRDB

/// Who owns a stored playlist and whether other users see it, kept beside the playlist files by name.
/// A playlist without a row is the library owner's (user 0) and public: every playlist saved before
/// accounts, or by an MPD client, the terminal or the CLI.
package struct PlaylistOwnership: Sendable, Equatable {
    /// A library user's id (XZStats' UserID).
    package var userId: Int64
    package var isPublic: Bool
    package var comment: String

    package static let libraryOwners = PlaylistOwnership(userId: 0, isPublic: true, comment: "")

    package init(userId: Int64, isPublic: Bool, comment: String = "") {
        self.userId = userId
        self.isPublic = isPublic
        self.comment = comment
    }
}

extension LibraryDatabase {
    /// Every playlist's row, by name; names without one are `libraryOwners`.
    package func playlistOwnerships() throws -> [String: PlaylistOwnership] {
        try pool.read { db in
            var result: [String: PlaylistOwnership] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT playlist, user_id, public, comment FROM playlist_owner") {
                result[row[0]] = PlaylistOwnership(userId: row[1], isPublic: row[2], comment: row[3])
            }
            return result
        }
    }

    package func playlistOwnership(_ name: String) throws -> PlaylistOwnership {
        try pool.read { db in
            try Row.fetchOne(db, sql: "SELECT user_id, public, comment FROM playlist_owner WHERE playlist = ?", arguments: [name])
                .map { PlaylistOwnership(userId: $0[0], isPublic: $0[1], comment: $0[2]) } ?? .libraryOwners
        }
    }

    package func setPlaylistOwnership(_ name: String, _ ownership: PlaylistOwnership) throws {
        try pool.write { db in
            try db.execute(sql: """
                INSERT INTO playlist_owner (playlist, user_id, public, comment) VALUES (?, ?, ?, ?)
                ON CONFLICT (playlist) DO UPDATE SET user_id = excluded.user_id, public = excluded.public, comment = excluded.comment
                """, arguments: [name, ownership.userId, ownership.isPublic, ownership.comment])
        }
    }

    package func removePlaylistOwnership(_ name: String) throws {
        try pool.write { db in
            try db.execute(sql: "DELETE FROM playlist_owner WHERE playlist = ?", arguments: [name])
        }
    }

    /// Forgets the rows of playlists whose files are gone (removed by another program, such as real MPD),
    /// so a playlist saved later under the same name is not taken for the old one. Each file is looked
    /// for as its row is judged: a playlist being made has its file before its row.
    package func forgetPlaylistOwnerships(without playlists: StoredPlaylists) throws {
        let stale = try playlistOwnerships().keys.filter { (try? playlists.exists($0)) != true }
        guard !stale.isEmpty else { return }
        try pool.write { db in
            for name in stale {
                try db.execute(sql: "DELETE FROM playlist_owner WHERE playlist = ?", arguments: [name])
            }
        }
    }
}

/// The row changes that follow a stored playlist's file, made by `StoredPlaylists` in the transaction
/// that holds the file change.
extension PlaylistOwnership {
    /// A renamed playlist keeps its owner, flag and comment; a row left under the new name by a
    /// playlist whose file is gone is dropped.
    static func move(_ db: Database, from name: String, to newName: String) throws {
        try forget(db, newName)
        try db.execute(sql: "UPDATE playlist_owner SET playlist = ? WHERE playlist = ?", arguments: [newName, name])
    }

    /// A removed playlist's row, or a row whose file is gone before a new playlist takes the name:
    /// a playlist made without one is the library owner's, public.
    static func forget(_ db: Database, _ name: String) throws {
        try db.execute(sql: "DELETE FROM playlist_owner WHERE playlist = ?", arguments: [name])
    }
}
