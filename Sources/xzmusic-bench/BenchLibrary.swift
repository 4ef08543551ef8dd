import Foundation
import XZCatalogue

/// A library folder holding `songCount` synthetic songs (the search benchmark's catalogue), imported
/// on first use and kept for later runs.
enum BenchLibrary {
    static func prepared(in folder: URL, songCount: Int) throws -> URL {
        let done = folder.appendingPathComponent("imported-\(songCount)")
        if FileManager.default.fileExists(atPath: done.path) { return folder }
        try? FileManager.default.removeItem(at: folder)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        print("building a \(songCount)-song library in \(folder.path) (once)…")
        let feed = folder.appendingPathComponent("catalogue.jsonl")
        try SyntheticCatalogue(songCount: songCount, singerCount: max(1, songCount / 10)).write(to: feed)
        let database = try LibraryDatabase(path: folder.appendingPathComponent("library.sqlite").path)
        _ = try database.importFeed(at: feed)
        try FileManager.default.removeItem(at: feed)
        _ = FileManager.default.createFile(atPath: done.path, contents: nil)
        return folder
    }
}
