import Foundation
import XZPlayback

/// The tags this host knows, under MPD's names (what `tagtypes` lists).
public enum SongTag: String, Sendable, CaseIterable {
    // In the order MPD lists a song's tags.
    case artist = "Artist", title = "Title", album = "Album", track = "Track", date = "Date"

    public init?(name: String) {
        guard let tag = SongTag.allCases.first(where: { $0.rawValue.caseInsensitiveCompare(name) == .orderedSame }) else {
            return nil
        }
        self = tag
    }

    /// Every tag name MPD 0.23 knows; clients may enable or disable any of them, held or not.
    static let protocolNames: Set<String> = [
        "artist", "artistsort", "album", "albumsort", "albumartist", "albumartistsort", "title", "track", "name",
        "genre", "date", "originaldate", "composer", "performer", "conductor", "work", "ensemble", "movement",
        "movementnumber", "location", "grouping", "comment", "disc", "label", "musicbrainz_artistid",
        "musicbrainz_albumid", "musicbrainz_albumartistid", "musicbrainz_trackid", "musicbrainz_releasetrackid",
        "musicbrainz_workid",
    ]

    func value(of item: QueueItem) -> String? {
        let text: String?
        switch self {
        case .artist: text = item.singer
        case .album: text = item.album
        case .title: text = item.title
        case .track: text = item.track.map(String.init)
        case .date: text = item.year.map(String.init)
        }
        return text.flatMap { $0.isEmpty ? nil : $0 }
    }
}

extension MPDResponse {
    /// A song as MPD lists it: `file`, `Last-Modified`, its tags, `Time`, `duration`, then queue fields.
    mutating func addSong(_ item: QueueItem, uri: String, tags: Set<SongTag>, durationMs: Int?) {
        add("file", uri)
        if let modified = (try? FileManager.default.attributesOfItem(atPath: item.path))?[.modificationDate] as? Date {
            add("Last-Modified", MPDResponse.timestamp(modified))
        }
        for tag in SongTag.allCases where tags.contains(tag) {
            if let value = tag.value(of: item) { add(tag.rawValue, value) }
        }
        if let ms = durationMs ?? item.durationMs {
            add("Time", (ms + 500) / 1000)
            add("duration", MPDResponse.seconds(ms))
        }
    }

    mutating func addQueueEntry(_ entry: QueueEntry, position: Int, host: PlayerHost, tags: Set<SongTag>,
                                durationMs: Int? = nil) {
        addSong(entry.item, uri: host.uri(of: entry.item), tags: tags, durationMs: durationMs)
        add("Pos", position)
        add("Id", entry.id)
        if entry.priority > 0 { add("Prio", entry.priority) }
    }

    /// Seconds with three decimals, as MPD writes `elapsed` and `duration`.
    static func seconds(_ ms: Int) -> String {
        let ms = max(0, ms)
        let fraction = ms % 1000
        return "\(ms / 1000).\(fraction < 10 ? "00" : fraction < 100 ? "0" : "")\(fraction)"
    }

    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
