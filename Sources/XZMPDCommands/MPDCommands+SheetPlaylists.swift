import Foundation
import XZAudio
import XZCatalogue

extension MPDCommands {
    /// The folders of CUE sheets' tracks (`album.cue`) among one folder's subfolders are the sheets, playlist
    /// files too: MPD lists them as `playlist:` after the folder's songs and before its subfolders (with
    /// their times where `full`).
    static func addSheetPlaylists(_ call: inout Invocation, folders: [String], full: Bool) {
        for folder in folders where CueSheet.isSheetName(folder) {
            call.response.add("playlist", folder)
            if full, let date = modificationDate(call, uri: folder) { call.response.add("Last-Modified", timestamp: date) }
        }
    }

    /// For a recursive listing: the sheet folders on the way to these songs, by the folder holding them
    /// ("" for the root), each in MPD's folder order.
    static func sheetFoldersByParent(_ songURIs: [String]) -> [String: [String]] {
        var found: [String: Set<String>] = [:]
        for uri in songURIs where uri.range(of: ".cue/", options: .caseInsensitive) != nil {
            var path = ""
            for component in uri.split(separator: "/").dropLast() {
                let parent = path
                path = path.isEmpty ? String(component) : path + "/" + component
                if CueSheet.isSheetName(path) { found[parent, default: []].insert(path) }
            }
        }
        return found.mapValues { SongSelection.folderNamesInOrder(Array($0)) }
    }
}
