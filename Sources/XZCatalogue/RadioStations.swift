import Foundation
import GRDB
import XZSystem

/// An internet radio station: a stream URL with a name.
package struct RadioStation: Sendable, Equatable {
    package var id: Int64
    package var name: String
    package var streamURL: String
    /// '' when none.
    package var homepageURL: String

    package init(id: Int64 = 0, name: String, streamURL: String, homepageURL: String = "") {
        self.id = id
        self.name = name
        self.streamURL = streamURL
        self.homepageURL = homepageURL
    }
}

/// A refused station change.
package struct RadioStationError: KindedError {
    package enum Kind: Hashable, Sendable { case noSuchStation, badStation, tooMany }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let noSuchStation = RadioStationError(kind: .noSuchStation, message: "no such radio station")
    package static let badStation = RadioStationError(kind: .badStation, message: "bad radio station")
    package static let tooMany = RadioStationError(kind: .tooMany, message: "too many radio stations")
}

/// The library's internet radio stations (Subsonic's), which MPD clients see too as the stored playlist
/// `playlistName`, rewritten after every change: `listplaylists` lists it and `load` queues its streams.
package struct RadioStations: Sendable {
    package static let playlistName = "Internet radio"
    package static let maxCount = 1_000
    package static let maxURLBytes = 2_048
    package static let maxNameCharacters = 256

    package let database: LibraryDatabase
    package let playlists: StoredPlaylists

    package init(database: LibraryDatabase, playlists: StoredPlaylists) {
        self.database = database
        self.playlists = playlists
    }

    package func all() throws -> [RadioStation] {
        try database.pool.read { db in
            try Row.fetchAll(db, sql: "SELECT id, name, stream_url, homepage_url FROM radio_station ORDER BY id").map {
                RadioStation(id: $0[0], name: $0[1], streamURL: $0[2], homepageURL: $0[3])
            }
        }
    }

    /// Adds a station; returns it with its id. Refused (`badStation`, `tooMany`) with nothing changed.
    @discardableResult
    package func add(_ station: RadioStation) throws -> RadioStation {
        let station = try Self.validated(station)
        let id = try database.pool.write { db -> Int64 in
            guard try Int.fetchOne(db, sql: "SELECT count(*) FROM radio_station") ?? 0 < Self.maxCount else {
                throw RadioStationError.tooMany("at most \(Self.maxCount) radio stations are kept")
            }
            try db.execute(sql: "INSERT INTO radio_station (name, stream_url, homepage_url) VALUES (?, ?, ?)",
                           arguments: [station.name, station.streamURL, station.homepageURL])
            return db.lastInsertedRowID
        }
        try writePlaylist()
        var added = station
        added.id = id
        return added
    }

    /// Replaces station `station.id`'s name and URLs.
    package func update(_ station: RadioStation) throws {
        let station = try Self.validated(station)
        try database.pool.write { db in
            try db.execute(sql: "UPDATE radio_station SET name = ?, stream_url = ?, homepage_url = ? WHERE id = ?",
                           arguments: [station.name, station.streamURL, station.homepageURL, station.id])
            guard db.changesCount > 0 else { throw RadioStationError.noSuchStation }
        }
        try writePlaylist()
    }

    package func remove(id: Int64) throws {
        try database.pool.write { db in
            try db.execute(sql: "DELETE FROM radio_station WHERE id = ?", arguments: [id])
            guard db.changesCount > 0 else { throw RadioStationError.noSuchStation }
        }
        try writePlaylist()
    }

    /// The stored playlist in step with the stations: one `#EXTINF` line naming each; none when there are none.
    package func writePlaylist() throws {
        let stations = try all()
        guard !stations.isEmpty else {
            do { try playlists.remove(Self.playlistName) } catch CatalogueError.noSuchPlaylist {}
            return
        }
        try playlists.write(Self.playlistName, stations.prefix(playlists.maxLength).map {
            PlaylistEntry(location: $0.streamURL, title: $0.name)
        })
    }

    /// The station with its text checked: a name of 1 to 256 characters without control characters, an
    /// http(s) stream URL and an empty or http(s) homepage, each at most 2,048 bytes of printable ASCII.
    package static func validated(_ station: RadioStation) throws -> RadioStation {
        var station = station
        station.name = station.name.trimmingCharacters(in: .whitespaces)
        guard !station.name.isEmpty, station.name.count <= maxNameCharacters,
              !station.name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw RadioStationError.badStation("a station's name is 1 to \(maxNameCharacters) characters, without control characters")
        }
        guard isWebURL(station.streamURL) else {
            throw RadioStationError.badStation("a station's stream URL is an http or https URL of at most \(maxURLBytes) bytes")
        }
        guard station.homepageURL.isEmpty || isWebURL(station.homepageURL) else {
            throw RadioStationError.badStation("a station's homepage is an http or https URL of at most \(maxURLBytes) bytes")
        }
        return station
    }

    /// An http(s) URL with a host, of printable ASCII (so it stays one playlist line and one protocol line).
    package static func isWebURL(_ text: String) -> Bool {
        guard text.utf8.count <= maxURLBytes, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }),
              let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty else { return false }
        return true
    }
}
