import Foundation
import XZAudio
import XZCatalogue
import XZHostCore
import XZPlaybackEngine
import XZPlaybackValues
import XZProtocol
import XZSystem

extension SongTag {
    /// The tag's value in what the queue keeps of a song that is not in the catalogue.
    func value(of item: QueueItem) -> String? {
        let text: String?
        switch self {
        case .artist: text = item.singer
        case .album: text = item.album
        case .title: text = item.title
        case .track: text = item.track.map(String.init)
        case .date: text = item.year.map(String.init)
        case .name: text = item.name
        // The queue keeps what playing needs; catalogue answers (find, lsinfo) carry the others.
        default: text = nil
        }
        return text.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The tag's values in a file's own tags (a file the catalogue does not hold), as the scan files them.
    func values(of tags: TrackTags) -> [String] {
        let values: [String]
        switch self {
        case .artist: values = tags.artists.count > 1 ? tags.artists : tags.artist.map { [$0] } ?? []
        case .albumArtist: values = tags.albumArtist.map { [$0] } ?? []
        case .album: values = tags.album.map { [$0] } ?? []
        case .title: values = tags.title.map { [$0] } ?? []
        case .track: values = tags.track.map { [String($0)] } ?? []
        case .date: values = tags.date.map { [$0] } ?? []
        case .genre: values = tags.genres
        case .disc: values = tags.disc.map { [String($0)] } ?? []
        case .composer: values = tags.composers
        case .performer: values = tags.performers
        default:
            values = tags.more.first { SongTag($0.key) == self }?.value
                ?? tags.musicBrainz.first { SongTag($0.key) == self }.map { [$0.value] } ?? []
        }
        return values.filter { !$0.isEmpty }
    }
}

extension Song {
    /// Takes a file's own tags (a file the catalogue does not hold) for those it was made with: a name the
    /// queue made up for the prompt is no tag.
    mutating func take(fileTags tags: TrackTags) {
        fields.untagged = [.title, .artist]
        fields.title = ""
        fields.album = nil
        fields.track = nil
        take(QueueItem.ListedTags(tags: SongTags.listed.flatMap { tag in tag.values(of: tags).map { (tag.name, $0) } },
                                  durationMs: nil))
    }

    /// Takes the tags a playlist file gave it in place of its own of the same kinds (what `addTags` lists).
    mutating func take(_ listed: QueueItem.ListedTags) {
        var given: [SongTag: [String]] = [:]
        for named in listed.tags { if let tag = SongTag(named.name) { given[tag, default: []].append(named.value) } }
        for (tag, values) in given {
            switch tag {
            case .title: fields.title = values[0]; fields.untagged.remove(.title)
            case .artist: fields.artists = values; fields.singer = values[0]; fields.untagged.remove(.artist)
            case .album: fields.album = values[0]
            case .albumArtist: fields.albumArtist = values[0]
            case .track: fields.track = Int(values[0])
            case .date: fields.date = values[0]
            case .genre: fields.genres = values
            case .disc: fields.disc = Int(values[0])
            default: fields.moreTags[tag] = values
            }
        }
    }
}

extension MPDResponse {
    /// A song as MPD lists it: `file`, `Last-Modified`, its tags, `Time`, `duration`, then queue fields.
    /// The catalogue's entry, when the item has one, gives every value of every tag it holds.
    mutating func addSong(_ item: QueueItem, uri: String, tags: SongTags, durationMs: Int?, catalogue: Song? = nil) {
        add("file", uri)
        if let range = item.range { add("Range", range.mpdText) }
        // The catalogue's time is the file's as last scanned, as MPD answers from its database; other
        // files are asked; one that cannot be asked, or a stream, has no time to give: the line is left out.
        if let mtime = catalogue?.fileMtime {
            add("Last-Modified", timestamp: Date(timeIntervalSince1970: TimeInterval(mtime)))
        } else if let modified = FileStatus(path: item.path)?.modified {
            add("Last-Modified", timestamp: modified)
        }
        if let catalogue {
            addFormat(of: catalogue)
        } else if let format = item.fileInfo?.format {
            add("Format", "\(format.sampleRate):\(format.sample == .float32 ? "f" : "\(format.bits)"):\(format.channels)")
        }
        let listed = item.listed?.tags.compactMap { named in SongTag(named.name).map { TagEntry($0, named.value) } }
        addTags(tags, listed: listed ?? [], sheet: catalogue?.cueTags ?? []) { tag in
            if let song = catalogue { return tag.values(of: song) }
            if let file = item.fileInfo { return tag.values(of: file.tags) }
            return tag.value(of: item).map { [$0] } ?? []
        }
        // A part's length is its range's, whatever a list says (as MPD's).
        let listedMs = item.range == nil ? item.listed?.durationMs : nil
        if let whole = listedMs ?? durationMs ?? item.durationMs {
            // A part's length is its own, as MPD lists it.
            let ms = item.range.map { ($0.endMs ?? whole) - $0.startMs } ?? whole
            add("Time", (ms + 500) / 1000)
            add("duration", milliseconds: ms)
        }
    }

    /// A catalogue song as find, search and lsinfo list it: every value of a tag on a line of its own.
    /// `listed`: what the playlist file naming it says of it, merged as MPD merges it. `inPlaylist`: the
    /// song is an entry of a playlist (`listplaylistinfo`), not of the database.
    mutating func addCatalogueSong(_ song: Song, uri: String, tags: SongTags, listed: PlaylistTags? = nil, inPlaylist: Bool = false) {
        add("file", uri)
        // A CUE sheet's track is a part of its image, as MPD lists it.
        if let part = song.cuePart {
            add("Range", PlayRange(cdFrames: PlayRange.CDFrames(start: part.startFrame, end: part.endFrame)).mpdText)
        }
        // A file that cannot be asked has no time to give: the line is left out.
        if let mtime = song.fileMtime {
            add("Last-Modified", timestamp: Date(timeIntervalSince1970: TimeInterval(mtime)))
        } else if let modified = FileStatus(path: song.localPath)?.modified {
            add("Last-Modified", timestamp: modified)
        }
        addFormat(of: song)
        addTags(tags, listed: listed?.items ?? [], sheet: song.cueTags) { $0.values(of: song) }
        // A part's length is its range's, whatever a list says (as MPD's).
        if let ms = (song.cuePart == nil ? listed?.durationMs : nil) ?? song.durationMs {
            add("Time", (ms + 500) / 1000)
            add("duration", milliseconds: ms)
        }
        // A file with a CUE sheet in its tags is a playlist too, as MPD's database lists it after the song.
        if song.hasCueSheet && !inPlaylist { add("playlist", uri) }
    }

    /// The tags a playlist file gave first, then a CUE track's as MPD's cue parser made them (the sheet's
    /// in its order, Track as written, "01"), then the song's own of the kinds neither gave: the one place
    /// a list's and a sheet's tags meet a song's, as MPD's songs complement each other
    /// (`TagBuilder::Complement`). `own`: the song's values of a tag.
    private mutating func addTags(_ shown: SongTags, listed: [TagEntry], sheet: [TagEntry], own: (SongTag) -> [String]) {
        var given = SongTags()
        for entry in listed {
            given.insert(entry.tag)
            if shown.contains(entry.tag) { add(entry.tag.name, entry.value) }
        }
        var fromSheet = SongTags()
        for entry in sheet where !given.contains(entry.tag) {
            fromSheet.insert(entry.tag)
            if shown.contains(entry.tag) { add(entry.tag.name, entry.value) }
        }
        given.formUnion(fromSheet)
        for tag in SongTags.listed where shown.contains(tag) && !given.contains(tag) {
            for value in own(tag) where !value.isEmpty { add(tag.name, value) }
        }
    }

    /// `Format: RATE:BITS:CHANNELS` where the file's format is known, as MPD lists it: what the decoder
    /// gives ("f" for float) and what the `AudioFormat` filter matches.
    private mutating func addFormat(of song: Song) {
        guard let rate = song.sampleRate, let channels = song.channels else { return }
        add("Format", "\(rate):\(song.sampleFormat ?? "16"):\(channels)")
    }

    /// `catalogue`: the entry's catalogue song, read by the caller (`catalogueSongs`) with the others listed.
    mutating func addQueueEntry(_ entry: QueueEntry, position: Int, host: PlayerHost, tags: SongTags,
                                durationMs: Int? = nil, catalogue: Song?) {
        addSong(entry.item, uri: host.uri(of: entry.item), tags: tags, durationMs: durationMs, catalogue: catalogue)
        add("Pos", position)
        add("Id", entry.id)
        if entry.priority > 0 { add("Prio", entry.priority) }
    }
}
