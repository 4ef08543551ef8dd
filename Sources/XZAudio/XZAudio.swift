// XZAudio layer: the decoder seam (AudioDecoder, AudioDecoders), tags through TagLib, loudness.
import XZSystem

package struct TrackTags: Sendable, Equatable {
    package var title: String?
    /// Every artist the tag names, joined with " / " for display; `artists` holds them one by one.
    package var artist: String?
    package var artists: [String] = []
    package var albumArtist: String?
    /// Genre names (ID3v1 genre numbers resolved), in tag order.
    package var genres: [String] = []
    package var disc: Int?
    /// The recording date as the tag writes it ("2008-05-01", "1993"); `year` is its year.
    package var date: String?
    package var album: String?
    package var track: Int?
    package var year: Int?
    /// Unsynchronised lyrics embedded in the tag: ID3v2 USLT, Vorbis LYRICS, MP4 ©lyr.
    package var lyrics: String?
    package var replayGain = ReplayGainTags()
    /// MixRamp's loudness profiles of the song's start and end ("dB seconds;…"), for MPD's `mixrampdb`.
    package var mixRampStart: String?
    package var mixRampEnd: String?
    package var composers: [String] = []
    package var performers: [String] = []
    package var comment: String?
    /// MusicBrainz identifiers by MPD's tag names (MUSICBRAINZ_TRACKID, MUSICBRAINZ_ALBUMID, …).
    package var musicBrainz: [String: String] = [:]
    /// The other tags MPD knows, by MPD's names: Conductor, Work, Grouping, Label, ArtistSort,
    /// AlbumArtistSort, AlbumSort, TitleSort, OriginalDate, ComposerSort, Movement, MovementNumber,
    /// Ensemble, Location.
    package var more: [String: [String]] = [:]
    /// The file carries a CUE sheet in its tags (a Vorbis CUESHEET comment): MPD lists it as a playlist too.
    package var hasCueSheet = false

    package init(title: String? = nil, artist: String? = nil, album: String? = nil,
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

package struct TrackInfo: Sendable, Equatable {
    package let tags: TrackTags
    package let format: AudioFormat
    package let durationMs: Int?

    package init(tags: TrackTags, format: AudioFormat, durationMs: Int?) {
        self.tags = tags
        self.format = format
        self.durationMs = durationMs
    }
}

/// Why a file could not be decoded, measured or have its tags read: a kind to match (`error == .damaged`,
/// `catch AudioError.unsupportedFormat`), the file it is about, and the one line users see.
package struct AudioError: KindedError {
    package enum Kind: Hashable, Sendable {
        case unreadable, unsupportedFormat, damaged, cannotSeek, libraryFailed, measurementFailed, tagsUnreadable
        case invalidArgument
    }

    package let kind: Kind
    /// The file (or a stream's URL) the error is about; empty in a bare kind.
    package let file: String
    /// What went wrong, without the file's name.
    package var message: String

    package init(kind: Kind, message: String) {
        self.init(kind: kind, file: "", message: message)
    }

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    private init(kind: Kind, file: String, message: String) {
        self.kind = kind
        self.file = file
        self.message = message
    }

    /// This kind about `file`, saying `message`: `AudioError.damaged("broken FLAC header", file: path)`.
    package func callAsFunction(_ message: String, file: String) -> AudioError {
        AudioError(kind: kind, file: file, message: message)
    }

    /// The bytes cannot be had: no such file, no permission, a folder, a download that failed.
    package static let unreadable = AudioError(kind: .unreadable, message: "")
    /// The content is no format a decoder here reads (or needs FFmpeg, which is missing), or holds no audio.
    package static let unsupportedFormat = AudioError(kind: .unsupportedFormat, message: "")
    /// A known format, but broken: a bad header, data the decoder gives up on, a stream that changes mid-way.
    package static let damaged = AudioError(kind: .damaged, message: "")
    /// The place asked for cannot be reached.
    package static let cannotSeek = AudioError(kind: .cannotSeek, message: "")
    /// A decoding library could not be set up, or ran out of memory.
    package static let libraryFailed = AudioError(kind: .libraryFailed, message: "")
    /// The loudness of the audio could not be measured.
    package static let measurementFailed = AudioError(kind: .measurementFailed, message: "")
    /// TagLib could not read the file's tags.
    package static let tagsUnreadable = AudioError(kind: .tagsUnreadable, message: "")
    /// A call the decoder cannot serve, such as a buffer smaller than one sample frame.
    package static let invalidArgument = AudioError(kind: .invalidArgument, message: "")

    /// "FILE: MESSAGE", or the kind's name for a bare kind.
    package var description: String {
        file.isEmpty && message.isEmpty ? "AudioError.\(kind)" : "\(file): \(message)"
    }
}


/// A picture embedded in the tag (ID3v2 APIC, FLAC PICTURE, MP4 covr, …); the MIME type may be empty.
package struct EmbeddedPicture: Sendable, Equatable {
    package let mimeType: String
    package let data: [UInt8]

    package init(mimeType: String, data: [UInt8]) {
        self.mimeType = mimeType
        self.data = data
    }
}

/// ReplayGain as a file's tags carry it: gains in dB against ReplayGain's reference, peaks as linear
/// sample values (1.0 is full scale). Opus R128 gains arrive here already moved to that reference.
package struct ReplayGainTags: Sendable, Equatable {
    package var trackGain: Double?
    package var trackPeak: Double?
    package var albumGain: Double?
    package var albumPeak: Double?

    package init(trackGain: Double? = nil, trackPeak: Double? = nil, albumGain: Double? = nil, albumPeak: Double? = nil) {
        self.trackGain = trackGain
        self.trackPeak = trackPeak
        self.albumGain = albumGain
        self.albumPeak = albumPeak
    }

    package var isEmpty: Bool { trackGain == nil && albumGain == nil }
}
