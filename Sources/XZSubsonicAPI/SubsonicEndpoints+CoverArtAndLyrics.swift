import XZCatalogue

extension SubsonicEndpoints {
    static let coverArtAndLyrics: [SubsonicEndpoint] = [
        SubsonicEndpoint("getCoverArt") { call in
            let id = try call.id("id")
            let size = try call.text("size") == nil ? nil
                : try call.clampedInt("size", default: CoverArtCache.sizes.upperBound, in: CoverArtCache.sizes)
            return .bytes(try call.library.covers.cover(id, size: size))
        },
        SubsonicEndpoint("getLyrics") { call in
            let artist = try call.text("artist"), title = try call.text("title")
            let words = [artist, title].compactMap { $0 }.joined(separator: " ")
            guard words.contains(where: { !$0.isWhitespace }) else {
                return .document(SubsonicDocument("lyrics", SubsonicLyrics(artist: artist, title: title, value: "")))
            }
            let database = call.library.database
            // The best match that has lyrics, among the search's first few.
            for song in try database.search(words, limit: lyricsCandidates).songs where song.isLocal {
                if let lyrics = try SongLyricsLayers.read(for: song, database: database) {
                    return .document(SubsonicDocument("lyrics", SubsonicLyrics(artist: song.singer, title: song.title,
                                                                               value: lyrics.plainText)))
                }
            }
            return .document(SubsonicDocument("lyrics", SubsonicLyrics(artist: artist, title: title, value: "")))
        },
        SubsonicEndpoint("getLyricsBySongId") { call in
            guard case .song(let row) = try call.id("id"), let song = try call.library.database.songs(ids: [row]).first else {
                throw SubsonicError.notFound("no song has that id")
            }
            let enhanced = try call.bool("enhanced", default: false)
            guard let lyrics = try SongLyricsLayers.read(for: song, database: call.library.database) else {
                return .document(SubsonicDocument("lyricsList", LyricsList(structuredLyrics: [])))
            }
            return .document(SubsonicDocument("lyricsList", LyricsList(lyrics, song: song, enhanced: enhanced)))
        },
    ]

    /// How many of `getLyrics`' search hits are looked at for lyrics.
    static let lyricsCandidates = 5
}

/// `getLyrics`' payload: one song's lyrics as plain text.
package struct SubsonicLyrics: Encodable, Sendable, Equatable, SubsonicXMLText {
    package var artist: String?
    package var title: String?
    package var value: String

    package static let xmlTextKey = "value"
}

/// `getLyricsBySongId`'s payload (the `songLyrics` extension).
package struct LyricsList: Encodable, Sendable, Equatable {
    package var structuredLyrics: [StructuredLyrics]

    package init(structuredLyrics: [StructuredLyrics]) {
        self.structuredLyrics = structuredLyrics
    }

    /// The song's lyrics, and with `enhanced` (the extension's version 2) each entry's `kind` and the
    /// translation as an entry of its own; version 1 clients get the main layer alone, as the spec says.
    init(_ lyrics: SongLyricsLayers, song: Song, enhanced: Bool) {
        let artist = lyrics.artist ?? song.singer, title = lyrics.title ?? song.title
        func entry(_ lines: [SongLyricsLayers.Line], lang: String, kind: String) -> StructuredLyrics {
            var entry = StructuredLyrics(lang: lang, synced: lyrics.synced,
                                         line: lines.map { StructuredLyricsLine(start: $0.startMs, value: $0.text) },
                                         displayArtist: artist, displayTitle: title,
                                         // Every offset is in the times already.
                                         offset: lyrics.synced ? 0 : nil)
            guard enhanced else { return entry }
            entry.kind = kind
            // Word timing, where the LRC has it (start times only, so no cue has an end).
            let cueLines = lines.enumerated().compactMap { index, line -> CueLine? in
                guard lyrics.synced, !line.words.isEmpty else { return nil }
                return CueLine(index: index, start: line.startMs, value: line.text, cue: line.words.map {
                    Cue(start: $0.startMs, byteStart: $0.bytes.lowerBound, byteEnd: $0.bytes.upperBound, value: $0.text)
                })
            }
            if !cueLines.isEmpty { entry.cueLine = cueLines }
            return entry
        }
        structuredLyrics = [entry(lyrics.main, lang: lyrics.language ?? "und", kind: "main")]
        if enhanced && !lyrics.translation.isEmpty {
            structuredLyrics.append(entry(lyrics.translation, lang: "und", kind: "translation"))
        }
    }
}

package struct StructuredLyrics: Encodable, Sendable, Equatable {
    package var lang: String
    package var synced: Bool
    package var line: [StructuredLyricsLine]
    package var displayArtist: String?
    package var displayTitle: String?
    /// Milliseconds; positive shows the lyrics sooner.
    package var offset: Int?
    /// main or translation; only for `enhanced=true`.
    package var kind: String?
    /// Word timing of the lines that have it; only for `enhanced=true`.
    package var cueLine: [CueLine]?

    package init(lang: String, synced: Bool, line: [StructuredLyricsLine], displayArtist: String?, displayTitle: String?,
                 offset: Int?, kind: String? = nil, cueLine: [CueLine]? = nil) {
        self.lang = lang
        self.synced = synced
        self.line = line
        self.displayArtist = displayArtist
        self.displayTitle = displayTitle
        self.offset = offset
        self.kind = kind
        self.cueLine = cueLine
    }
}

/// The words of line `index` (`songLyrics` version 2): its text, and each word's start and bytes in it.
package struct CueLine: Encodable, Sendable, Equatable {
    package var index: Int
    package var start: Int?
    package var value: String
    package var cue: [Cue]
}

/// A word of a `CueLine`: its start in milliseconds, and its UTF-8 bytes in the line's text (inclusive).
package struct Cue: Encodable, Sendable, Equatable, SubsonicXMLText {
    package var start: Int
    package var byteStart: Int
    package var byteEnd: Int
    package var value: String

    package static let xmlTextKey = "value"
}

/// One lyric line: its start in milliseconds (synced lyrics only) and its text.
package struct StructuredLyricsLine: Encodable, Sendable, Equatable, SubsonicXMLText {
    package var start: Int?
    package var value: String

    package static let xmlTextKey = "value"
}
