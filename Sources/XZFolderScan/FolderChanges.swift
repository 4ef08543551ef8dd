import Foundation
import XZCatalogue
import XZSystem

extension LibraryDatabase {
    /// Brings the catalogue up to date with folders seen to change inside the music folder `root`: a
    /// folder that is there is imported as `importFolder` does (its subfolders too); one that is gone
    /// (deleted, moved away) loses its songs. A gone `root` changes nothing, so an unmounted music
    /// folder never empties the catalogue. One summary for all.
    package func importChanges(in folders: [String], root: String) throws -> ImportSummary {
        defer { FreedMemory.returnToSystem() }
        var total = ImportSummary()
        var info = stat()
        guard stat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return total }
        for folder in folders {
            var summary: ImportSummary
            if stat(folder, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
                summary = try scanFolder(at: URL(fileURLWithPath: folder), musicRoot: root)
            } else {
                let prefix = folder.hasSuffix("/") ? folder : folder + "/"
                let vanished = try fileStamps(keyPrefix: "file:" + prefix).keys
                let playlistsGone = try replaceFolderPlaylists(under: prefix, with: [])
                if vanished.isEmpty && !playlistsGone { continue }
                summary = try applyFolderScan([], removing: Array(vanished), into: ImportSummary())
                summary.playlistsChanged = summary.playlistsChanged || playlistsGone
            }
            total.added += summary.added
            total.updated += summary.updated
            total.skipped += summary.skipped
            total.failed += summary.failed
            total.removed += summary.removed
            total.playlistsChanged = total.playlistsChanged || summary.playlistsChanged
            total.problems += summary.problems
        }
        return total
    }
}
