import Foundation
import XZAudio
import XZCatalogue

/// What a song's `Child` holds beyond the song's own row, read for many songs at once
/// (`SubsonicSongDetails.read`): its album's row, the rows of its artists by name, its measured loudness.
package struct SubsonicSongDetails: Sendable {
    /// Song row id → album row id.
    package var albumIDs: [Int64: Int64] = [:]
    /// Singer name → singer row id, for the artists a song names.
    package var singerIDs: [String: Int64] = [:]
    /// Song key → a loudness scan's measurement.
    package var loudness: [String: LoudnessRecord] = [:]
    /// Song row id → the ReplayGain tags of its file, for songs no scan measured (read for short lists only).
    package var taggedGains: [Int64: ReplayGainTags] = [:]

    package init(albumIDs: [Int64: Int64] = [:], singerIDs: [String: Int64] = [:], loudness: [String: LoudnessRecord] = [:],
                 taggedGains: [Int64: ReplayGainTags] = [:]) {
        self.albumIDs = albumIDs
        self.singerIDs = singerIDs
        self.loudness = loudness
        self.taggedGains = taggedGains
    }
}

extension SubsonicSongDetails {
    /// The song's gains: a loudness scan's measurement of its file as it is now, else its file's tags.
    func gains(of song: Song) -> ReplayGainTags? {
        guard song.isLocal else { return nil }
        if let record = loudness[song.songKey], record.measures(path: song.localPath) {
            return ReplayGainTags(trackGain: record.trackGain, trackPeak: record.trackPeak,
                                  albumGain: record.albumGain, albumPeak: record.albumPeak)
        }
        return taggedGains[song.id]
    }
}

extension SubsonicChild {
    /// A catalogue song (a CUE sheet's track included) as clients list it. `annotation` is what the asking
    /// user has of it; `details` what was read beside the songs; `naming` the host's, which names the
    /// song's `path` as MPD clients see it.
    package init(song: Song, details: SubsonicSongDetails, naming: SongNaming, annotation: SubsonicAnnotation = .none) {
        self.init(id: SubsonicID.song(song.id).text, title: song.title)
        // A local song without an album is in its singer's "[Unknown Album]", as the tag view lists it.
        let listedAlbum: ListedAlbum? = details.albumIDs[song.id].map(ListedAlbum.album)
            ?? (song.isLocal ? .albumless(singerId: song.singerId) : nil)
        let albumID = listedAlbum.map { SubsonicID($0).text }
        let artistID = SubsonicID.artist(song.singerId).text
        if let folder = Self.folderPath(of: song, naming: naming) {
            parent = SubsonicID.folder(folder).text
        } else {
            parent = albumID
        }
        album = song.album ?? (listedAlbum == nil ? nil : ListedAlbum.albumlessTitle)
        artist = song.singer
        track = song.track
        year = song.year
        genre = song.genres.first
        // The album's cover when there is one: clients keep one picture per id, not one per song. Songs
        // without an album are unrelated files, each with its own.
        coverArt = details.albumIDs[song.id] == nil ? id : albumID
        size = song.size
        // A CUE track is played from its image, whose format it has.
        let file = song.isLocal ? song.audioFile : song.audioURL
        let fileSuffix = SubsonicMediaFormat.suffix(ofPath: file)
        if !fileSuffix.isEmpty {
            suffix = fileSuffix
            contentType = SubsonicMediaFormat.contentType(ofSuffix: fileSuffix)
        }
        if let sent = SubsonicMedia.plainTranscode(of: song) {
            transcodedContentType = sent.contentType
            transcodedSuffix = sent.fileExtension
        }
        if let milliseconds = song.durationMs, milliseconds >= 0 {
            duration = Int(clamping: (Double(milliseconds) / 1000).rounded(.down), to: 0...Int(Int32.max))
        }
        bitRate = Self.bitRate(of: song)
        if SubsonicMediaFormat.isLossless(suffix: fileSuffix), let depth = song.sampleFormat.flatMap({ Int($0) }), depth > 0 {
            bitDepth = depth
        }
        samplingRate = song.sampleRate
        channelCount = song.channels
        path = naming.uri(of: song)
        isVideo = false
        discNumber = song.disc
        created = SubsonicDate(stamp: song.addedAt)
        albumId = albumID
        artistId = artistID
        type = "music"
        mediaType = "song"
        sortName = ArtistIndexGrouping.sortName(of: song.title)
        musicBrainzId = song.moreTags[.musicBrainzTrackID]?.first
        if !song.genres.isEmpty { genres = song.genres.map { ItemGenre(name: $0) } }
        displayArtist = song.singer
        let named = song.artists.isEmpty ? [song.singer] : song.artists
        artists = named.count == 1
            ? [ArtistID3(id: artistID, name: named[0])]
            : named.map { ArtistID3(id: details.singerIDs[$0].map { SubsonicID.artist($0).text } ?? artistID, name: $0) }
        // An album is filed under the song's singer, so without an album artist tag that singer is it.
        let albumArtist = song.albumArtist ?? song.singer
        displayAlbumArtist = albumArtist
        albumArtists = [ArtistID3(id: details.singerIDs[albumArtist].map { SubsonicID.artist($0).text } ?? artistID, name: albumArtist)]
        if let composers = song.moreTags[.composer], !composers.isEmpty { displayComposer = composers.joined(separator: ", ") }
        // As the player has them: a scan measured only files whose tags carry no gains.
        if let gains = details.gains(of: song) {
            // JSON holds no infinity or NaN: a value that is none of a number is left out.
            func finite(_ value: Double?) -> Double? { value.flatMap { $0.isFinite ? $0 : nil } }
            replayGain = ReplayGain(trackGain: finite(gains.trackGain), albumGain: finite(gains.albumGain),
                                    trackPeak: finite(gains.trackPeak), albumPeak: finite(gains.albumPeak))
        }
        apply(annotation)
    }

    /// The folder holding the song, relative to the music folder ("" is the music folder itself): a CUE
    /// track's is its sheet's folder. nil for a song whose file is not in the music folder.
    package static func folderPath(of song: Song, naming: SongNaming) -> String? {
        guard song.isLocal else { return nil }
        let music = naming.musicDirectory.hasSuffix("/") ? naming.musicDirectory : naming.musicDirectory + "/"
        guard let relative = SongNaming.relative(song.localPath, insideFolder: music) else { return nil }
        var components = relative.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        // "sheet.cue/track0001": the sheet stands in the folder like a file.
        if song.cuePart != nil, !components.isEmpty { components = components.dropLast() }
        return components.joined(separator: "/")
    }

    /// kbit/s: the file's whole size over its whole length (a CUE track's image's), when nothing better is known.
    static func bitRate(of song: Song) -> Int? {
        guard let size = song.size, size > 0 else { return nil }
        let milliseconds = song.cuePart == nil ? song.durationMs : (song.cueImageMs ?? nil)
        guard let milliseconds, milliseconds > 0 else { return nil }
        return Int(clamping: Double(size) * 8 / Double(milliseconds), to: 0...Int(Int32.max))
    }
}
