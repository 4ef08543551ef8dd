import Foundation
import XZAudio
import XZCatalogue
import XZHostCore
import XZLyrics
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem

/// MPRIS's `Metadata` of the current queue entry: its id as an object path, its tags, its cover extracted
/// to the cache as a `file://` URL, and its lyrics as plain text.
struct TrackMetadata: Equatable {
    struct Entry: Equatable {
        let key: String
        let value: MetadataValue
    }

    let entries: [Entry]

    /// The spec's path for "no track".
    static let noTrackPath = "/org/mpris/MediaPlayer2/TrackList/NoTrack"
    static let none = TrackMetadata(entries: [Entry(key: "mpris:trackid", value: .objectPath(noTrackPath))])

    /// Queue ids name tracks: stable while the entry stays, never reused in the player's life.
    static func trackPath(id: Int) -> String { "/org/xzmusic/track/\(id)" }

    /// Lyrics longer than this are cut: a widget shows a song's words, not a file of any size.
    static let lyricsLimit = 256 << 10

    init(entries: [Entry]) { self.entries = entries }

    init(entry: QueueEntry, host: PlayerHost, covers: CoverCache) {
        let item = entry.item
        var entries = [Entry(key: "mpris:trackid", value: .objectPath(Self.trackPath(id: entry.id)))]
        func add(_ key: String, _ value: MetadataValue) { entries.append(Entry(key: key, value: value)) }
        if let length = item.playedLengthMs { add("mpris:length", .int64(Microseconds(ms: length))) }
        let title = item.name.flatMap { $0.isEmpty ? nil : $0 } ?? item.title
        if !title.isEmpty { add("xesam:title", .string(title)) }
        if !item.singer.isEmpty { add("xesam:artist", .strings([item.singer])) }
        if let album = item.album, !album.isEmpty { add("xesam:album", .string(album)) }
        // The catalogue's album artist; a file outside it, its tag's. Unreadable, it is left out.
        let albumArtist = item.songKey != nil ? (try? item.songKey.flatMap { try host.database.song(key: $0) })?.albumArtist
            : item.isStream ? nil : (try? AudioTags.read(path: item.decodedPath))?.albumArtist
        if let albumArtist, !albumArtist.isEmpty { add("xesam:albumArtist", .strings([albumArtist])) }
        if let track = item.track { add("xesam:trackNumber", .int32(Int32(clamping: track))) }
        add("xesam:url", .string(item.isStream ? item.path : URL(fileURLWithPath: item.path).absoluteString))
        if !item.isStream, let cover = SongCover.find(for: item.decodedPath, embeddedFirst: true),
           let file = covers.file(for: cover) {
            add("mpris:artUrl", .string(URL(fileURLWithPath: file).absoluteString))
        }
        if let lyrics = Self.plainLyrics(of: item, database: host.database) {
            add("xesam:asText", .string(lyrics.utf8.count <= Self.lyricsLimit
                ? lyrics : String(decoding: lyrics.utf8.prefix(Self.lyricsLimit), as: UTF8.self)))
        }
        self.entries = entries
    }

    /// The words of the item's lyrics without time stamps: its LRC file, the synced lyrics fetched for
    /// it, the plain lyrics fetched, else its tag's; nil when it has none.
    static func plainLyrics(of item: QueueItem, database: LibraryDatabase) -> String? {
        func words(_ document: LRCDocument) -> String? {
            document.lines.isEmpty ? nil : document.lines.map(\.text).joined(separator: "\n")
        }
        if let path = item.lyricsPath, let bytes = RegularFile.contents(atPath: path, limit: LRCParser.fileLimit),
           let text = words(LRCParser.parse(bytes: bytes)) {
            return text
        }
        if let text = item.lyricsText, let plain = words(LRCParser.parse(text)) { return plain }
        // Unreadable, fetched lyrics are none; the tag's are tried.
        if let key = item.songKey, let fetched = try? database.fetchedLyrics(songKey: key), !fetched.text.isEmpty {
            if fetched.kind == .synced, let plain = words(LRCParser.parse(fetched.text)) { return plain }
            if fetched.kind == .plain { return fetched.text }
        }
        guard !item.isStream, let tagged = (try? AudioTags.read(path: item.decodedPath))?.lyrics, !tagged.isEmpty else { return nil }
        return LyricStamps.isSynced(tagged) ? words(LRCParser.parse(tagged)) ?? tagged : tagged
    }
}

extension QueueItem {
    /// What plays of it: a part's length (rangeid, a CUE track), else the whole.
    var playedLengthMs: Int? {
        guard let durationMs else { return range?.endMs.map { $0 - (range?.startMs ?? 0) } }
        return (range?.endMs ?? durationMs) - (range?.startMs ?? 0)
    }
}

/// Milliseconds as MPRIS's microseconds, held to Int64 however large.
func Microseconds(ms: Int) -> Int64 {
    let (product, overflow) = Int64(clamping: ms).multipliedReportingOverflow(by: 1000)
    return overflow ? (ms < 0 ? .min : .max) : product
}

/// Covers extracted for `mpris:artUrl`, one file per picture (named by its bytes' hash, so an album's
/// songs share one), at most `maxFiles` of them: the oldest go first.
struct CoverCache {
    let folder: URL
    static let maxFiles = 200

    /// The cover's file, written when it is not there yet; nil when it cannot be written.
    func file(for cover: SongCover) -> String? {
        let path = folder.appendingPathComponent(Self.name(for: cover)).path
        if FileManager.default.fileExists(atPath: path) { return path }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try AtomicFile.write(Data(cover.data), toPath: path)
        } catch {
            return nil
        }
        prune(keeping: path)
        return path
    }

    private func prune(keeping kept: String) {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: folder.path), names.count > Self.maxFiles else { return }
        let dated = names.filter { $0.hasPrefix("cover-") }.map { name -> (String, Date) in
            let path = folder.appendingPathComponent(name).path
            return (path, ((try? manager.attributesOfItem(atPath: path))?[.modificationDate] as? Date) ?? .distantPast)
        }.filter { $0.0 != kept }.sorted { $0.1 < $1.1 }
        for (path, _) in dated.prefix(names.count - Self.maxFiles) { try? manager.removeItem(atPath: path) }
    }

    /// `cover-HASH.EXT`: FNV-1a of the bytes, the extension from the tag's type or the bytes' signature.
    static func name(for cover: SongCover) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in cover.data {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return "cover-" + String(repeating: "0", count: 16 - hex.count) + hex + "-\(cover.data.count)." + fileExtension(cover)
    }

    private static func fileExtension(_ cover: SongCover) -> String {
        let bytes = cover.data
        if bytes.starts(with: [0x89, 0x50, 0x4E, 0x47]) || cover.mimeType == "image/png" { return "png" }
        if bytes.starts(with: [0x47, 0x49, 0x46]) { return "gif" }
        if bytes.count >= 12, bytes[8..<12].elementsEqual(Array("WEBP".utf8)) { return "webp" }
        return "jpg"
    }
}
