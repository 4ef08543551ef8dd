import GRDB

/// What a folder scan (XZFolderScan, which reads the files) asks of the catalogue: what it recorded at the
/// last scan, and one write of the new result.
extension LibraryDatabase {
    /// A scanned file as the catalogue last recorded it.
    package struct FileStamp: Sendable, Equatable {
        package var size: Int64?
        package var mtime: Int64?
        package var lyricsPath: String
    }

    /// Size, mtime and recorded lyrics file of every song whose key starts with `keyPrefix`, by key.
    package func fileStamps(keyPrefix: String) throws -> [String: FileStamp] {
        try pool.read { db in
            try CatalogueWriter.fileStamps(db, keyPrefix: keyPrefix).mapValues {
                FileStamp(size: $0.size, mtime: $0.mtime, lyricsPath: $0.lyricsPath)
            }
        }
    }

    /// Writes a scan's songs and removes the keys of files that vanished, in one transaction; `summary`
    /// gains the outcomes.
    package func applyFolderScan(_ inputs: [SongInput], removing vanished: [String],
                                into summary: ImportSummary) throws -> ImportSummary {
        try pool.write { db in
            var summary = summary
            let writer = try CatalogueWriter(db)
            for input in inputs {
                summary.count(try writer.upsert(input))
            }
            summary.removed = try writer.remove(keys: vanished.sorted())
            for outcome in try writer.finish() { summary.count(outcome) }
            return summary
        }
    }
}
