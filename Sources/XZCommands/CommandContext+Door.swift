import Foundation
import XZCatalogue
import XZHostCore
import XZHostAssembly
import XZProtocol
import XZPlaybackValues

extension CommandContext {
    /// The door player commands go through: the prompt's, else one to the library's running host.
    func playerDoor() throws -> HostDoor {
        if let door { return door }
        guard let opened = try connectToHost() else { throw CommandError.noHost }
        door = opened
        return opened
    }

    /// A door to the library's running host, if one answers on its socket.
    func connectToHost() throws -> HostDoor? {
        try HostDoor.connect(library: folder)
    }

    /// Runs `body` against the player; the host's refusal and its loss become this command's one-line errors.
    func withPlayer<T>(_ body: (HostDoor) throws -> T) throws -> T {
        let door = try playerDoor()
        do {
            return try body(door)
        } catch let failure as HostDoor.Failure {
            throw CommandError.door(failure)
        }
    }

    /// How the host names songs: its music folder, and this library for the rest.
    func songNaming(_ door: HostDoor) throws -> SongNaming {
        SongNaming(musicDirectory: URL(fileURLWithPath: try door.musicDirectory()), library: folder)
    }

    /// The host's current song as this library knows it (title, lyrics, lyric shift); nil when there is none.
    func currentItem(_ door: HostDoor) throws -> QueueItem? {
        guard let song = try door.currentSong() else { return nil }
        let database = try database
        var item = QueueItem(Playable(hostURI: song.file, naming: try songNaming(door), catalogue: database), database: database)
        item.takeStreamTags(of: song)
        return item
    }
}

extension QueueItem {
    /// A stream outside the catalogue as the host shows it: what the station says of itself (its name, the
    /// title and artist on now), which only the host playing it hears.
    mutating func takeStreamTags(of song: SongRecord) {
        guard isStream, songKey == nil else { return }
        name = song["Name"]
        title = song.title ?? ""
        singer = song.artists.first ?? ""
    }

    /// The song as the prompt names it: title — artist; a stream that names nothing yet by its station's name,
    /// else its URL, and a station's name after what is on.
    var shownTitle: String {
        let heading = title.isEmpty ? (name ?? path) : title
        let who = singer.isEmpty ? "" : " — \(singer)"
        let station = title.isEmpty ? "" : name.map { "  (\($0))" } ?? ""
        return (heading + who + station).safe
    }
}

extension MPDRequest {
    /// `add` for each song, named as the host takes names from a client on its socket.
    static func adds(_ playables: [Playable]) -> [MPDRequest] {
        playables.map { playable in
            let uri = switch playable {
            case .song(let song): song.isLocal ? song.localPath : song.audioURL
            case .file(let path): path
            case .stream(let url): url
            }
            // A playlist's URL (by its suffix) queues the list's songs, as `load` reads it.
            if case .stream = playable, RemotePlaylist.format(ofURL: uri) != nil { return MPDRequest(name: "load", arguments: [uri]) }
            return MPDRequest(name: "add", arguments: [uri])
        }
    }
}

extension CommandError {
    /// The door's failure as a command's one-line error.
    static func door(_ failure: HostDoor.Failure) -> CommandError {
        switch failure.kind {
        case .refused: .refusedByHost(failure.ack?.command ?? "a request", failure.message)
        case .lost: .lostHost(failure)
        case .listTooLarge: .usage("that many songs make \(failure.message): name fewer")
        }
    }
}
