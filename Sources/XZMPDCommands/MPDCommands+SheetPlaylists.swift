import Foundation
import XZAudio

extension MPDCommands {
    /// A folder of a CUE sheet's tracks (`album.cue`) is the sheet, a playlist file too: MPD lists it as
    /// `playlist:` just before the folder (with its time where `full`).
    static func addSheetPlaylist(_ call: inout Invocation, folder: String, full: Bool) {
        guard CueSheet.isSheetName(folder) else { return }
        call.response.add("playlist", folder)
        if full, let date = modificationDate(call, uri: folder) { call.response.add("Last-Modified", timestamp: date) }
    }
}
