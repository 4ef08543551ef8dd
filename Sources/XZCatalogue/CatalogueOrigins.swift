import Foundation
import GRDB

/// A song an open catalogue offers: the values a feed line carries, plus where it came from.
package struct CatalogueSong: Codable, Sendable, Equatable {
    /// The source's name ("archive", "jamendo", "ccmixter").
    package var source: String
    /// The song's id at the source, as `catalogue add` takes it.
    package var id: String
    package var title: String
    package var singer: String
    package var album: String?
    package var track: Int?
    package var year: Int?
    package var durationMs: Int?
    package var genre: String?
    package var audioURL: String
    package var size: Int64?
    package var sha256: String = ""
    package var md5: String = ""
    package var sha1: String = ""
    /// The licence's URL (or name when the source gives no URL).
    package var licence: String = ""
    /// The song's page at the source.
    package var page: String = ""
    /// False when the source allows streaming only: `download` refuses it, online play still works.
    package var downloadAllowed = true

    package init(source: String, id: String, title: String, singer: String, audioURL: String) {
        self.source = source
        self.id = id
        self.title = title
        self.singer = singer
        self.audioURL = audioURL
    }

    /// Keys as feed lines and `--json` output write them.
    enum CodingKeys: String, CodingKey {
        case source, id, title, singer, album, track, year, genre, size, sha256, md5, sha1, licence, page
        case durationMs = "duration_ms", audioURL = "audio_url", downloadAllowed = "download_allowed"
    }

    /// The catalogue key: one per source and id, so adding again updates the same song.
    package var songKey: String { "src:\(source):\(id)" }

    var input: SongInput {
        var input = SongInput(key: songKey, title: title, singer: singer)
        input.album = album.flatMap { $0.isEmpty ? nil : $0 }
        input.track = track
        input.year = year
        input.durationMs = durationMs
        input.genres = genre.flatMap { $0.isEmpty ? nil : [$0] } ?? []
        input.audioURL = audioURL
        input.size = size
        input.sha256 = sha256.lowercased()
        return input
    }
}

extension LibraryDatabase {
    /// Adds (or updates) catalogue songs and their origins in one transaction.
    package func addCatalogueSongs(_ songs: [CatalogueSong]) throws -> ImportSummary {
        try pool.write { db in
            var summary = ImportSummary()
            let writer = try CatalogueWriter(db)
            for song in songs {
                summary.count(try writer.upsert(song.input))
                try db.execute(sql: """
                    INSERT OR REPLACE INTO song_origin (song_key, source, licence, page, md5, sha1, download_allowed)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, arguments: [song.songKey, song.source, song.licence, song.page, song.md5.lowercased(),
                                     song.sha1.lowercased(), song.downloadAllowed])
            }
            for outcome in try writer.finish() { summary.count(outcome) }
            return summary
        }
    }

    /// The open-catalogue song a library song was added as: where it came from, its licence and checksums,
    /// as `info` shows them and downloads check them; nil for any other song.
    package func songOrigin(songKey: String) throws -> CatalogueSong? {
        try pool.read { db in
            guard let song = try Song.fetchOne(db, sql: "SELECT \(Song.selection) FROM song \(Song.joins) WHERE song.song_key = ?",
                                               arguments: [songKey]),
                  let origin = try Row.fetchOne(db, sql: """
                      SELECT source, licence, page, md5, sha1, download_allowed FROM song_origin WHERE song_key = ?
                      """, arguments: [songKey])
            else { return nil }
            let source: String = origin["source"]
            var offered = CatalogueSong(source: source, id: String(songKey.dropFirst("src:\(source):".count)),
                                        title: song.title, singer: song.singer, audioURL: song.audioURL)
            offered.album = song.album
            offered.track = song.track
            offered.year = song.year
            offered.durationMs = song.durationMs
            offered.genre = song.genres.first
            offered.size = song.size
            offered.sha256 = song.sha256
            offered.md5 = origin["md5"]
            offered.sha1 = origin["sha1"]
            offered.licence = origin["licence"]
            offered.page = origin["page"]
            offered.downloadAllowed = origin["download_allowed"]
            return offered
        }
    }

    /// Keeps a search's results in place of the last one's.
    package func rememberCatalogueSearch(_ songs: [CatalogueSong]) throws {
        let encoder = JSONEncoder()
        let rows = try songs.map { (source: $0.source, id: $0.id, json: String(decoding: try encoder.encode($0), as: UTF8.self)) }
        try pool.write { db in
            try db.execute(sql: "DELETE FROM catalogue_search_result")
            for (position, row) in rows.enumerated() {
                try db.execute(sql: "INSERT INTO catalogue_search_result (position, source, item_id, song) VALUES (?, ?, ?, ?)",
                               arguments: [position, row.source, row.id, row.json])
            }
        }
    }

    /// The last search's results from `source`, in listing order; rows that no longer decode are left out.
    package func lastCatalogueSearch(source: String) throws -> [CatalogueSong] {
        let texts = try pool.read { db in
            try String.fetchAll(db, sql: "SELECT song FROM catalogue_search_result WHERE source = ? ORDER BY position",
                                arguments: [source])
        }
        let decoder = JSONDecoder()
        return texts.compactMap { try? decoder.decode(CatalogueSong.self, from: Data($0.utf8)) }
    }
}
