import Foundation
import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZProtocol
import XZStats
import XZSystem

/// `sticker get|set|delete|list|find song …` with MPD 0.23's answers, over the library's sticker store
/// (XZMusic's likes and play statistics among the stickers).
extension MPDCommands {
    static let stickerCommands: [MPDCommand] = [
        MPDCommand("sticker", 3...Int.max, .changesState, .lookup, paths: [2]) { call throws(MPDError) in
            let arguments = call.arguments
            guard arguments[1] == "song" else { throw MPDError.arg("unknown sticker domain") }
            let store = StickerStore(database: call.host.database)
            let uri = arguments[2]
            switch (arguments[0], arguments.count) {
            case ("get", 4):
                let song = try stickerSong(uri, call)
                if arguments[3] == lyricsSticker, let kind = lyricsKind(songKey: song.key, call) {
                    call.response.add("sticker", "\(lyricsSticker)=\(kind.rawValue)")
                    return
                }
                guard let value = try stickerCall({ try store.value(songKey: song.key, name: arguments[3]) }) else {
                    throw MPDError.noExist("no such sticker")
                }
                call.response.add("sticker", "\(arguments[3])=\(value)")
            case ("list", 3):
                let song = try stickerSong(uri, call)
                var stickers = try stickerCall({ try store.all(songKey: song.key) })
                if let kind = lyricsKind(songKey: song.key, call) {
                    stickers.removeAll { $0.name == lyricsSticker }
                    stickers.append((lyricsSticker, kind.rawValue))
                    stickers.sort { $0.name < $1.name }
                }
                for (name, value) in stickers {
                    call.response.add("sticker", "\(name)=\(value)")
                }
            case ("set", 5):
                let song = try stickerSong(uri, call)
                try stickerCall {
                    try store.set(songKey: song.key, name: arguments[3], value: arguments[4], title: song.title,
                                  singer: song.singer)
                }
                call.host.wrote(.stickers)
            case ("delete", 3), ("delete", 4):
                let song = try stickerSong(uri, call)
                try stickerCall { try store.delete(songKey: song.key, name: arguments.count > 3 ? arguments[3] : nil) }
                call.host.wrote(.stickers)
            case ("find", 4), ("find", 6):
                let name = arguments[3]
                var comparison: (StickerStore.Comparison, String)?
                if arguments.count == 6 {
                    guard let operation = StickerStore.Comparison(rawValue: arguments[4]) else {
                        throw MPDError.arg("bad operator")
                    }
                    comparison = (operation, arguments[5])
                }
                // Songs below the folder URI; "" is the whole library.
                let folder = uri.isEmpty || uri == "/" ? "" : (uri.hasSuffix("/") ? uri : uri + "/")
                let found = try stickerCall { try store.find(name: name, comparison) }.compactMap { match -> (String, String)? in
                    guard let path = match.path else { return nil }
                    let songURI = call.host.naming.uri(ofFile: path, inCatalogue: !match.songKey.hasPrefix("file:"))
                    return songURI.hasPrefix(folder) ? (songURI, match.value) : nil
                }
                for (songURI, value) in found.sorted(by: { $0.0 < $1.0 }) {
                    call.response.add("file", songURI)
                    call.response.add("sticker", "\(name)=\(value)")
                }
            default:
                throw MPDError.arg("bad request")
            }
        },
    ]


    /// A sticker no client writes: which lyrics the song has (synced, plain or instrumental), so a client
    /// can show which songs have them.
    static let lyricsSticker = "lyrics"

    static func lyricsKind(songKey: String, _ call: Invocation) -> FetchedLyricsKind? {
        guard let song = try? call.host.database.song(key: songKey) else { return nil }
        return SongLyrics.kind(for: song, database: call.host.database)
    }

    /// The song a sticker URI names: a catalogue song by its key, any other audio file as "file:<path>"
    /// (the key its plays are recorded under).
    static func stickerSong(_ uri: String, _ call: Invocation) throws(MPDError) -> (key: String, title: String, singer: String) {
        // MPD answers a name it cannot follow, for whatever reason, with "no such song".
        guard let location = try? call.location(uri) else { throw MPDError.noExist("No such song") }
        let path = location.path
        // Not readable from the catalogue, the file is keyed as any file outside it.
        if let song = try? call.host.database.song(localPath: path) { return (song.songKey, song.title, song.singer) }
        guard location.kind != .catalogueSong, (try? RegularFile.check(path)) != nil else {
            throw MPDError.noExist("No such song")
        }
        let item = QueueItem(.file(path), database: call.host.database)
        return ("file:\(path)", item.title, item.singer)
    }

    @discardableResult
    static func stickerCall<T>(_ body: () throws -> T) throws(MPDError) -> T {
        do {
            return try body()
        } catch let error as StatsError where error == .noSuchSticker {
            throw MPDError.noExist("no such sticker")
        } catch let error as StatsError where error == .stickerRefused {
            throw MPDError.arg(error.description)
        } catch {
            throw MPDError(failure: error)
        }
    }
}
