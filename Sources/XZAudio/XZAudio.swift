// XZAudio layer: MP3 decoding and tag reading through libmpg123.

/// PCM is always signed 16-bit, native-endian, interleaved.
public struct AudioFormat: Sendable, Equatable {
    public let sampleRate: Int
    public let channels: Int

    public init(sampleRate: Int, channels: Int) {
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// Bytes of one sample frame (all channels).
    public var bytesPerFrame: Int { channels * 2 }
}

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
    /// ID3v2 USLT unsynchronised lyrics.
    public var lyrics: String?

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

/// A picture embedded in the tag (ID3v2 APIC).
public struct EmbeddedPicture: Sendable, Equatable {
    public let mimeType: String
    public let data: [UInt8]

    public init(mimeType: String, data: [UInt8]) {
        self.mimeType = mimeType
        self.data = data
    }
}
