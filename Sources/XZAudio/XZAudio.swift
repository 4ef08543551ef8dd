// XZAudio layer: the decoder seam (AudioDecoder, AudioDecoders), tags through TagLib, loudness.

public struct TrackTags: Sendable, Equatable {
    public var title: String?
    /// Every artist the tag names, joined with " / " for display; `artists` holds them one by one.
    public var artist: String?
    public var artists: [String] = []
    public var albumArtist: String?
    /// Genre names (ID3v1 genre numbers resolved), in tag order.
    public var genres: [String] = []
    public var disc: Int?
    /// The recording date as the tag writes it ("2008-05-01", "1993"); `year` is its year.
    public var date: String?
    public var album: String?
    public var track: Int?
    public var year: Int?
    /// Unsynchronised lyrics embedded in the tag: ID3v2 USLT, Vorbis LYRICS, MP4 ©lyr.
    public var lyrics: String?
    public var replayGain = ReplayGainTags()
    public var composers: [String] = []
    public var performers: [String] = []
    public var comment: String?
    /// MusicBrainz identifiers by MPD's tag names (MUSICBRAINZ_TRACKID, MUSICBRAINZ_ALBUMID, …).
    public var musicBrainz: [String: String] = [:]
    /// The other tags MPD knows, by MPD's names: Conductor, Work, Grouping, Label, ArtistSort,
    /// AlbumArtistSort, AlbumSort, TitleSort, OriginalDate.
    public var more: [String: [String]] = [:]

    public init(title: String? = nil, artist: String? = nil, album: String? = nil,
                track: Int? = nil, year: Int? = nil, lyrics: String? = nil) {
        self.title = title
        self.artist = artist
        self.artists = artist.map { [$0] } ?? []
        self.album = album
        self.track = track
        self.year = year
        self.lyrics = lyrics
    }
}

public struct TrackInfo: Sendable {
    public let tags: TrackTags
    public let format: AudioFormat
    public let durationMs: Int?

    public init(tags: TrackTags, format: AudioFormat, durationMs: Int?) {
        self.tags = tags
        self.format = format
        self.durationMs = durationMs
    }
}

public struct AudioError: Error, CustomStringConvertible, Sendable {
    public let file: String
    public let message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}

/// A picture embedded in the tag (ID3v2 APIC, FLAC PICTURE, MP4 covr, …); the MIME type may be empty.
public struct EmbeddedPicture: Sendable, Equatable {
    public let mimeType: String
    public let data: [UInt8]

    public init(mimeType: String, data: [UInt8]) {
        self.mimeType = mimeType
        self.data = data
    }
}

/// ReplayGain as a file's tags carry it: gains in dB against ReplayGain's reference, peaks as linear
/// sample values (1.0 is full scale). Opus R128 gains arrive here already moved to that reference.
public struct ReplayGainTags: Sendable, Equatable {
    public var trackGain: Double?
    public var trackPeak: Double?
    public var albumGain: Double?
    public var albumPeak: Double?

    public init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    public var isEmpty: Bool { trackGain == nil && albumGain == nil }
}
