import XZAudio

/// One entry of the play queue. Only `path` is needed to play; the rest is for display and stats.
package struct QueueItem: Sendable, Equatable {
    package var songId: Int64?
    package var songKey: String?
    package var path: String
    /// The file holding the audio when it is not `path`: a CUE sheet's track (`album.cue/track0001`) is a
    /// part (`range`) of its image.
    package var audioFile: String?
    package var title: String
    package var singer: String
    package var album: String?
    package var track: Int?
    package var year: Int?
    /// From the catalogue; the decoder's exact length wins once the file is open.
    package var durationMs: Int?
    /// An LRC file to sync while this item plays.
    package var lyricsPath: String?
    /// Synced lyrics kept in the library (fetched), for an item without an LRC file.
    package var lyricsText: String?
    /// Per-song shift of the lyrics; positive shows them sooner (as LRC `[offset:]`).
    package var lyricsAdjustmentMs: Int
    /// Gains measured by a loudness scan, for a song whose tags carry none; nil: the file's tags decide.
    package var replayGain: ReplayGainTags?
    /// The part of the song to play (MPD's `rangeid`); nil: all of it.
    package var range: PlayRange?
    /// A radio station's name (ICY `icy-name`, MPD's `Name`), as its stream says while it plays.
    package var name: String?
    /// What the playlist file it was loaded from says of it (MPD's tag names and values, in the file's
    /// order, and a length), which MPD's queue lists over the song's own tags.
    package var listed: ListedTags?
    /// A file the catalogue does not hold: its own tags and format, read once where the item was made,
    /// which MPD lists as it lists a database song's (never a name made from the file's).
    package var fileInfo: TrackInfo?

    package struct ListedTags: Sendable, Equatable {
        package var tags: [(name: String, value: String)]
        package var durationMs: Int?

        package init(tags: [(name: String, value: String)], durationMs: Int?) {
            self.tags = tags
            self.durationMs = durationMs
        }

        package static func == (a: Self, b: Self) -> Bool {
            a.durationMs == b.durationMs && a.tags.elementsEqual(b.tags) { $0 == $1 }
        }
    }

    package init(songId: Int64? = nil, songKey: String? = nil, path: String, title: String = "", singer: String = "",
                album: String? = nil, track: Int? = nil, year: Int? = nil,
                durationMs: Int? = nil, lyricsPath: String? = nil, lyricsAdjustmentMs: Int = 0,
                replayGain: ReplayGainTags? = nil) {
        self.replayGain = replayGain
        self.album = album
        self.track = track
        self.year = year
        self.songId = songId
        self.songKey = songKey
        self.path = path
        self.title = title
        self.singer = singer
        self.durationMs = durationMs
        self.lyricsPath = lyricsPath
        self.lyricsAdjustmentMs = lyricsAdjustmentMs
    }

    /// What a playing stream says of itself: the station's name, and the title and artist of what is on
    /// (a value it does not say is cleared).
    package mutating func take(_ tags: StreamTags) {
        name = tags.name
        title = tags.title ?? ""
        singer = tags.artist ?? ""
    }
    /// The file the decoder opens.
    package var decodedPath: String { audioFile ?? path }

    /// An http(s) URL, played through the player's stream opener rather than from a file.
    @inlinable package var isStream: Bool { QueueItem.isStreamURL(path) }

    @inlinable package static func isStreamURL(_ text: String) -> Bool {
        // Most names are paths: ruled out by their first byte, before any copy of the head.
        guard let first = text.utf8.first, first | 0x20 == UInt8(ascii: "h") else { return false }
        let head = text.utf8.prefix(8).map { $0 >= 0x41 && $0 <= 0x5A ? $0 | 0x20 : $0 }
        return head.starts(with: "http://".utf8) || head.starts(with: "https://".utf8)
    }
}
