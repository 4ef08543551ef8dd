import GRDB

extension LibraryDatabase {
    /// The local paths of the tracks of these CUE sheets (`album.cue/track0001` ...), in order: what adding
    /// a sheet, or a folder holding one, queues.
    package func cueTrackPaths(ofSheets sheets: [String]) throws -> [String] {
        guard !sheets.isEmpty else { return [] }
        return try pool.read { db in
            var paths: [String] = []
            // Names under "SHEET/" sort between "SHEET/" and "SHEET0" ('0' follows '/'): one range of the index.
            for sheet in sheets {
                paths += try String.fetchAll(db, sql: """
                    SELECT local_path FROM song WHERE local_path <> '' AND local_path > ? AND local_path < ? ORDER BY local_path
                    """, arguments: [sheet + "/", sheet + "0"])
            }
            return paths
        }
    }

    /// Which of these files are images whose CUE sheet tracks stand for them (MPD lists no such image).
    package func cueImages(among files: [String]) throws -> Set<String> {
        guard !files.isEmpty else { return [] }
        return try pool.read { db in
            var images = Set<String>()
            try Self.forEachRow(db, "SELECT DISTINCT cue_file FROM song WHERE cue_file IN", keys: files) { images.insert($0[0]) }
            return images
        }
    }
}
