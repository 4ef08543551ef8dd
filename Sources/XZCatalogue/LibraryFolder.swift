import Foundation
import XZSystem

/// Where a library lives: `--library DIR`, else `$XZMUSIC_HOME`, else `$XDG_DATA_HOME/xzmusic`,
/// else `~/.local/share/xzmusic`. Everything the program writes stays inside this folder.
package struct LibraryFolder: Sendable, Equatable {
    package let url: URL

    package init(url: URL) { self.url = url.standardizedFileURL }

    package static func resolve(explicit: String?,
                               environment: [String: String] = ProcessEnvironment.variables("XZMUSIC_HOME", "XDG_DATA_HOME", "HOME"))
        -> LibraryFolder {
        if let explicit, !explicit.isEmpty { return LibraryFolder(url: URL(fileURLWithPath: expandTilde(explicit))) }
        if let home = environment["XZMUSIC_HOME"], !home.isEmpty {
            return LibraryFolder(url: URL(fileURLWithPath: expandTilde(home)))
        }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return LibraryFolder(url: URL(fileURLWithPath: data).appendingPathComponent("xzmusic"))
        }
        let home = environment["HOME"] ?? NSHomeDirectory()
        return LibraryFolder(url: URL(fileURLWithPath: home).appendingPathComponent(".local/share/xzmusic"))
    }

    /// `~` and `~/…` name $HOME (as in a shell, so a changed HOME counts); `~user/…` that user's home.
    package static func expandTilde(_ path: String, environment: [String: String] = ProcessEnvironment.variables("HOME")) -> String {
        HomePath.expand(path, environment: environment)
    }

    package var databasePath: String { url.appendingPathComponent("library.sqlite").path }
    package var historyPath: String { url.appendingPathComponent("history").path }
    package var demoFolder: URL { url.appendingPathComponent("demo") }

    package func create() throws {
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CatalogueError.io("cannot create library folder \(url.path): \((error as NSError).localizedDescription)")
        }
    }

    /// Opens the library's database; a library opened for the first time gets the demo songs
    /// from `demoSource` (a folder holding catalogue.jsonl and the files it names), if given.
    package func open(seedingDemoFrom demoSource: URL?) throws -> LibraryDatabase {
        try create()
        removeLeftoverTemporaryFiles()
        let isNew = !FileManager.default.fileExists(atPath: databasePath)
        let database = try LibraryDatabase(path: databasePath)
        if isNew, let demoSource {
            _ = try seedDemo(from: demoSource, into: database)
        }
        return database
    }

    /// Removes what writes cut short by a crash left in the library's folders (the host's state file,
    /// the stored playlists); a write in progress is young enough to be left alone.
    package func removeLeftoverTemporaryFiles() {
        AtomicFile.removeLeftovers(in: url.path)
        AtomicFile.removeLeftovers(in: StoredPlaylists(library: self).folder.path)
    }

    /// Copies the demo into the library folder and imports its catalogue from there.
    package func seedDemo(from source: URL, into database: LibraryDatabase) throws -> ImportSummary {
        let manager = FileManager.default
        do {
            if manager.fileExists(atPath: demoFolder.path) { try manager.removeItem(at: demoFolder) }
            try manager.copyItem(at: source, to: demoFolder)
        } catch {
            throw CatalogueError.io("cannot copy the demo library: \((error as NSError).localizedDescription)")
        }
        return try database.importFeed(at: demoFolder.appendingPathComponent("catalogue.jsonl"),
                                       resolveBundledFiles: true)
    }
}
