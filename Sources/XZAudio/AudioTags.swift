import CTagLibShim
import XZSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Tags of every format TagLib reads (MP3, FLAC, Ogg Vorbis, Opus, MP4/M4A, WAV, AIFF, APE, WavPack, ASF…),
/// named as MPD names them, with mis-encoded text repaired.
package enum AudioTags {
    package static func read(path: String) throws -> TrackTags {
        try TagLibFile(path: path, audioProperties: false).tags()
    }

    /// Tags and TagLib's reading of the audio stream's header (length, rate), in one open.
    static func readWithProperties(path: String) throws -> (TrackTags, TagAudioProperties?) {
        let file = try TagLibFile(path: path, audioProperties: true)
        return (file.tags(), file.audioProperties())
    }

    /// The file's ReplayGain tags; nil when it has none or cannot be read.
    package static func replayGain(path: String) -> ReplayGainTags? {
        // Unreadable tags carry no gain: the song plays at the settings' missing-gain level instead.
        guard let gain = try? read(path: path).replayGain, !gain.isEmpty else { return nil }
        return gain
    }

    /// The file's MixRamp tags; nil when it has neither or cannot be read.
    package static func mixRamp(path: String) -> (start: String?, end: String?)? {
        guard let tags = try? read(path: path), tags.mixRampStart != nil || tags.mixRampEnd != nil else { return nil }
        return (tags.mixRampStart, tags.mixRampEnd)
    }

    /// An MP4's iTunSMPB item (encoder delay, padding and length, as hex fields); nil when it has none.
    static func iTunSMPB(path: String) throws -> String? {
        try TagLibFile(path: path, audioProperties: false).iTunSMPB
    }

    /// The file's raw tags, for MPD's `readcomments`, in file order: every Vorbis comment of a FLAC, Ogg
    /// Vorbis or Opus file (keys as written), an MP3's ID3v2 TXXX frames but the MusicBrainz ids, TagLib's
    /// properties for other formats. Keys and values as the file has them: the caller checks them.
    package static func comments(path: String) throws -> [(key: String, value: String)] {
        let file = try TagLibFile(path: path, audioProperties: false)
        return try VorbisComments.read(path: path, format: file.format) ?? file.comments()
    }

    /// The CUE sheet the file carries in a `CUESHEET` comment, which MPD reads as the file's playlist; nil when
    /// it has none, or one larger than a sheet file may be.
    package static func cueSheet(path: String) throws -> String? {
        try comments(path: path).first { $0.key.uppercased() == "CUESHEET" && !$0.value.isEmpty }
            .flatMap { $0.value.utf8.count <= CueSheet.maxBytes ? $0.value : nil }
    }

    /// The embedded picture: the front cover when there is one (MPD's choice too), else the first.
    package static func picture(path: String) throws -> EmbeddedPicture? {
        try TagLibFile(path: path, audioProperties: false).picture()
    }
}

/// What TagLib reads from the stream headers without decoding.
struct TagAudioProperties: Sendable, Equatable {
    let lengthMs: Int
    let sampleRate: Int
    let channels: Int
    /// nil for formats without a fixed depth (MP3, Vorbis, Opus, AAC).
    let bitsPerSample: Int?
    let bitrateKbps: Int?
}

/// One file opened through the TagLib shim; closed on deinit.
private final class TagLibFile {
    private let handle: OpaquePointer
    let path: String

    init(path: String, audioProperties: Bool) throws {
        self.path = path
        // TagLib opens by name: a FIFO named like a song would block it, so only regular files reach it.
        try RegularFile.checkAudio(path)
        var status = TL_OK
        var errorNumber: Int32 = 0
        guard let handle = tl_open(path, audioProperties ? 1 : 0, &status, &errorNumber) else {
            throw Self.error(status, errorNumber, path: path)
        }
        self.handle = handle
    }

    deinit { tl_close(handle) }

    private static func error(_ status: tl_status, _ errorNumber: Int32, path: String) -> AudioError {
        switch status {
        case TL_CANNOT_OPEN:
            return AudioError.unreadable("cannot open the file: " + String(cString: strerror(errorNumber)), file: path)
        case TL_IS_FOLDER:
            return AudioError.unreadable("is a folder, not an audio file", file: path)
        case TL_UNKNOWN_FORMAT:
            return AudioError.tagsUnreadable("cannot read its tags: not an audio format TagLib knows, or damaged", file: path)
        default:
            return AudioError.tagsUnreadable("cannot read its tags: TagLib failed while reading the file", file: path)
        }
    }

    var format: String { String(cString: tl_format(handle)) }

    var iTunSMPB: String? { tl_mp4_itunsmpb(handle).map { String(cString: $0) } }

    func audioProperties() -> TagAudioProperties? {
        var audio = tl_audio_properties()
        guard tl_audio(handle, &audio) != 0 else { return nil }
        return TagAudioProperties(lengthMs: Int(audio.length_ms), sampleRate: Int(audio.sample_rate),
                                  channels: Int(audio.channels),
                                  bitsPerSample: audio.bits_per_sample > 0 ? Int(audio.bits_per_sample) : nil,
                                  bitrateKbps: audio.bitrate_kbps > 0 ? Int(audio.bitrate_kbps) : nil)
    }

    func picture() -> EmbeddedPicture? {
        var mime: UnsafePointer<CChar>?
        var data: UnsafePointer<UInt8>?
        var size = 0
        guard tl_picture(handle, &mime, &data, &size) != 0, let data, size > 0 else { return nil }
        return EmbeddedPicture(mimeType: mime.map { String(cString: $0) } ?? "",
                               data: Array(UnsafeBufferPointer(start: data, count: size)))
    }

    func comments() -> [(key: String, value: String)] {
        (0..<tl_comment_count(handle)).map {
            (String(cString: tl_comment_key(handle, $0)), String(cString: tl_comment_value(handle, $0)))
        }
    }

    func tags() -> TrackTags {
        TagMapping(values: values(), isOpus: format == "Ogg Opus").tags
    }

    /// Every value by key, ID3v2.3 artist and genre lists already split.
    private func values() -> [String: [TagValue]] {
        // ID3v2.3 has no value lists: artists and genres are written "A/B" there.
        let id3v2Version = tl_id3v2_version(handle)
        let slashLists = id3v2Version > 0 && id3v2Version < 4
        var byKey: [String: [TagValue]] = [:]
        for index in 0..<tl_property_count(handle) {
            let key = String(cString: tl_property_key(handle, index))
            let text = String(cString: tl_property_value(handle, index))
            let source = tl_property_source(handle, index)
            if slashLists && source == TL_SOURCE_ID3V2 && (key == "ARTIST" || key == "GENRE") {
                byKey[key, default: []] += text.split(separator: "/").map { TagValue(text: String($0), source: source) }
            } else {
                byKey[key, default: []].append(TagValue(text: text, source: source))
            }
        }
        return byKey
    }
}

private struct TagValue {
    let text: String
    let source: tl_source

    /// Genre numbers in ID3 tags refer to the ID3v1 list.
    var isID3: Bool { source == TL_SOURCE_ID3V2 || source == TL_SOURCE_ID3V1 }
}

/// TagLib's property names to TrackTags, following MPD's reading of each format.
private struct TagMapping {
    let values: [String: [TagValue]]
    let isOpus: Bool

    /// Cleaned values of the first key that has any, duplicates dropped.
    func all(_ keys: String...) -> [String] {
        for key in keys {
            let cleaned = TagText.unique((values[key] ?? []).compactMap { TagText.cleanLine($0.text) })
            if !cleaned.isEmpty { return cleaned }
        }
        return []
    }

    func first(_ keys: String...) -> String? {
        for key in keys {
            if let value = (values[key] ?? []).lazy.compactMap({ TagText.cleanLine($0.text) }).first { return value }
        }
        return nil
    }

    /// MPD's names of the tags kept in `TrackTags.more`, and the properties each comes from (the first
    /// that has values). Vorbis MOVEMENT is the movement's number, as MPD reads it; ID3 MVIN is TagLib's
    /// MOVEMENTNUMBER, MVNM its MOVEMENTNAME.
    static let moreKeys: [(mpd: String, properties: [String])] = [
        ("Conductor", ["CONDUCTOR"]), ("Work", ["WORK"]), ("Grouping", ["GROUPING"]), ("Label", ["LABEL"]),
        ("ArtistSort", ["ARTISTSORT"]), ("AlbumArtistSort", ["ALBUMARTISTSORT"]), ("AlbumSort", ["ALBUMSORT"]),
        ("TitleSort", ["TITLESORT"]), ("OriginalDate", ["ORIGINALDATE"]), ("ComposerSort", ["COMPOSERSORT"]),
        ("Movement", ["MOVEMENTNAME"]), ("MovementNumber", ["MOVEMENTNUMBER", "MOVEMENT"]),
        ("Ensemble", ["ENSEMBLE"]), ("Location", ["LOCATION"]),
    ]

    static let musicBrainzKeys = [
        "MUSICBRAINZ_ARTISTID", "MUSICBRAINZ_ALBUMID", "MUSICBRAINZ_ALBUMARTISTID", "MUSICBRAINZ_TRACKID",
        "MUSICBRAINZ_RELEASETRACKID", "MUSICBRAINZ_WORKID",
    ]

    var tags: TrackTags {
        var tags = TrackTags()
        tags.title = first("TITLE")
        tags.artists = all("ARTIST")
        tags.artist = tags.artists.isEmpty ? nil : tags.artists.joined(separator: " / ")
        tags.album = first("ALBUM")
        // Vorbis comments often spell it with a space; MPD reads both.
        tags.albumArtist = first("ALBUMARTIST", "ALBUM ARTIST")
        tags.track = first("TRACKNUMBER").flatMap(TagText.trackNumber)
        tags.disc = first("DISCNUMBER").flatMap(TagText.trackNumber)
        let date = first("DATE")
        tags.year = date.flatMap(TagText.yearNumber)
        tags.date = tags.year == nil ? nil : date
        tags.genres = genres()
        tags.lyrics = lyrics()
        tags.composers = all("COMPOSER")
        tags.performers = performers()
        tags.comment = first("COMMENT", "DESCRIPTION")
        for key in Self.musicBrainzKeys {
            if let id = first(key) { tags.musicBrainz[key] = id }
        }
        for (mpd, properties) in Self.moreKeys {
            let found = properties.lazy.map { all($0) }.first { !$0.isEmpty } ?? []
            if !found.isEmpty { tags.more[mpd] = found }
        }
        tags.replayGain = replayGain()
        tags.mixRampStart = first("MIXRAMP_START")
        tags.mixRampEnd = first("MIXRAMP_END")
        tags.hasCueSheet = values["CUESHEET"]?.isEmpty == false
        return tags
    }

    /// ID3 genre numbers become names; an ID3v1 genre outside the list is no genre.
    private func genres() -> [String] {
        let names = (values["GENRE"] ?? []).compactMap { value -> String? in
            guard let text = TagText.cleanLine(value.text) else { return nil }
            guard value.isID3 else { return text }
            let name = TagText.genreName(text)
            if value.source == TL_SOURCE_ID3V1 && name == text { return nil }
            return name
        }
        return TagText.unique(names)
    }

    /// ID3 USLT (with or without a description), Vorbis LYRICS, MP4 ©lyr; foobar2000 writes UNSYNCEDLYRICS.
    private func lyrics() -> String? {
        let described = values.keys.filter { $0.hasPrefix("LYRICS:") }.sorted()
        for key in ["LYRICS"] + described + ["UNSYNCEDLYRICS"] {
            if let text = (values[key] ?? []).lazy.compactMap({ TagText.cleanLyrics($0.text) }).first { return text }
        }
        return nil
    }

    /// Vorbis PERFORMER, ID3 TMCL credits (TagLib's PERFORMER:<instrument>), and ID3 TPE4, which TagLib
    /// calls REMIXER and MPD reads as a performer.
    private func performers() -> [String] {
        let credited = values.keys.filter { $0.hasPrefix("PERFORMER:") }.sorted()
        var keys = ["PERFORMER"] + credited
        if values["REMIXER"]?.contains(where: \.isID3) == true { keys.append("REMIXER") }
        let found = keys.flatMap { (values[$0] ?? []).compactMap { TagText.cleanLine($0.text) } }
        return TagText.unique(found)
    }

    private func replayGain() -> ReplayGainTags {
        func number(_ key: String) -> Double? {
            (values[key] ?? []).lazy.compactMap { Self.decibels($0.text) }.first
        }
        /// Opus R128 gains: Q7.8 fixed point against −23 LUFS, 5 dB below ReplayGain's reference.
        func r128(_ key: String) -> Double? {
            guard isOpus, let raw = values[key]?.first.map({ $0.text.trimmingWhitespace() }), let q78 = Int16(raw) else { return nil }
            return Double(q78) / 256 + 5
        }
        var gain = ReplayGainTags()
        gain.trackGain = number("REPLAYGAIN_TRACK_GAIN") ?? r128("R128_TRACK_GAIN")
        gain.trackPeak = number("REPLAYGAIN_TRACK_PEAK")
        gain.albumGain = number("REPLAYGAIN_ALBUM_GAIN") ?? r128("R128_ALBUM_GAIN")
        gain.albumPeak = number("REPLAYGAIN_ALBUM_PEAK")
        return gain
    }

    /// "-6.54 dB", "+1.2dB", "0.988" -> the number.
    static func decibels(_ text: String) -> Double? {
        var number = text.trimmingWhitespace()
        if number.lowercased().hasSuffix("db") { number = String(number.dropLast(2)).trimmingWhitespace() }
        guard let value = Double(number), value.isFinite else { return nil }
        return value
    }
}
