import Foundation
import XZAudio
import XZCatalogue
import XZHostCore
import XZPlaybackValues

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
        for uri in songURIs where passesThroughSheet(uri) {
            var path = ""
            for component in uri.split(separator: "/").dropLast() {
                let parent = path
                path = path.isEmpty ? String(component) : path + "/" + component
                if CueSheet.isSheetName(path) { found[parent, default: []].insert(path) }
            }
        }
        return found.mapValues { SongSelection.folderNamesInOrder(Array($0)) }
    }

    /// Whether a name holds ".cue/" in any case: one pass over its bytes, as every song of a listing is asked.
    private static func passesThroughSheet(_ uri: String) -> Bool {
        var matched = 0
        for byte in uri.utf8 {
            let lower = byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte
            switch (matched, lower) {
            case (_, UInt8(ascii: ".")): matched = 1
            case (1, UInt8(ascii: "c")), (2, UInt8(ascii: "u")), (3, UInt8(ascii: "e")): matched += 1
            case (4, UInt8(ascii: "/")): return true
            default: matched = 0
            }
        }
        return false
    }
}

extension MPDCommands {
    /// A CUE sheet of the music folder as a playlist (`load`, `listplaylist`, `listplaylistinfo`), as MPD's
    /// cue playlist plugin reads it: each track named by its image and playing its part of it, with the
    /// track's record. nil: `name` is no sheet whose tracks the catalogue holds.
    static func sheetPlaylist(_ name: String, _ call: Invocation) -> [(item: QueueItem, song: Song?)]? {
        guard CueSheet.isSheetName(name) else { return embeddedSheetPlaylist(name, call) }
        guard let location = try? call.location(name), location.kind == .musicFolder,
              let tracks = try? call.host.database.cueTrackPaths(ofSheets: [location.path]), !tracks.isEmpty else { return nil }
        let items = QueueItem.items(tracks.map(Playable.file), database: call.host.database).map { track -> QueueItem in
            var item = track
            item.path = track.decodedPath
            item.audioFile = nil
            return item
        }
        let songs = Dictionary(((try? call.host.database.songs(ids: items.compactMap(\.songId))) ?? []).map { ($0.id, $0) }) { first, _ in first }
        return items.map { ($0, $0.songId.flatMap { songs[$0] }) }
    }

    /// A music-folder file carrying a CUE sheet in its tags, as MPD's embedded-cue plugin reads it: each track
    /// a part of the file, with the sheet's tags over the file's own. The tracks are not catalogue songs: the
    /// sheet is read from the file as it is asked for. Tracks are held to the file's length by the rule of a
    /// sheet beside its image (`CueSheet.Track.endFrame(inImageOf:)`). nil: no such file, or no track in it.
    private static func embeddedSheetPlaylist(_ name: String, _ call: Invocation) -> [(item: QueueItem, song: Song?)]? {
        guard AudioDecoders.hasAudioSuffix(name), let location = try? call.location(name), location.kind == .musicFolder,
              let text = (try? AudioTags.cueSheet(path: location.path)) ?? nil else { return nil }
        let sheet = CueSheet.parse(text: text)
        guard !sheet.tracks.isEmpty else { return nil }
        let file = QueueItem(.file(location.path), database: call.host.database)
        let song = file.songId.flatMap { id in (try? call.host.database.songs(ids: [id]))?.first }
        // A file the catalogue has not read yet is probed; one that cannot be has no known length, and its tracks stand.
        let fileMs = song?.durationMs ?? (try? AudioDecoders.probe(path: location.path))?.durationMs
        let tracks = sheet.tracks.compactMap { track in track.endFrame(inImageOf: fileMs).map { (track, $0) } }
        guard !tracks.isEmpty else { return nil }
        return tracks.map { track, endFrame in
            var item = file
            item.range = PlayRange(cdFrames: PlayRange.CDFrames(start: track.startFrame, end: endFrame))
            item.listed = QueueItem.ListedTags(tags: track.tags, durationMs: nil)
            return (item, song)
        }
    }
}
