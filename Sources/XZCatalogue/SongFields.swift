import GRDB

/// One column of `song`: how the writer fills it and how `Song` reads it, so both come from `all`.
struct SongField: Sendable {
    /// How an update treats the column.
    enum Update {
        /// Compared with the stored value (a difference makes the song updated) and rewritten.
        case compared
        /// Rewritten, never compared: it follows from compared columns (the title's folded keys).
        case derived
        /// Written once, by the insert.
        case never
    }

    /// A value to bind: bytes of the batch's arena, text, an integer (nil is NULL), or none given (a
    /// local path the input leaves as the library has it: '' on insert, the stored value on update).
    enum Value {
        case bytes(Range<Int>)
        case text(String)
        case integer(Int64?)
        case kept
    }

    /// What the writer knows of a song besides the song itself.
    struct Context {
        let singerId: Int64
        let albumId: Int64?
        let now: String
    }

    /// Sets the song's part from the row's column at the index (the column's place in `Song.selection`).
    typealias Read = @Sendable (inout Song, Row, Int) -> Void

    let column: String
    let update: Update
    let value: @Sendable (PreparedSong, Context) -> Value
    /// nil: `Song` does not read the column (search keys, the album's id: it reads the album's title).
    let read: Read?

    init(_ column: String, _ update: Update = .compared, read: Read?,
         _ value: @escaping @Sendable (PreparedSong, Context) -> Value) {
        self.column = column
        self.update = update
        self.read = read
        self.value = value
    }

    private static func integer(_ value: Int?) -> Value { .integer(value.map(Int64.init)) }

    /// Text that holds nothing reads as nil.
    private static func text(_ row: Row, _ index: Int) -> String? {
        let text: String = row[index]
        return text.isEmpty ? nil : text
    }

    /// A column holding several values, separated by U+001F; '' holds none.
    private static func values(_ row: Row, _ index: Int) -> [String] {
        let text: String = row[index]
        if text.isEmpty { return [] }
        return text.utf8.split(separator: 0x1F, omittingEmptySubsequences: false).map { String(Substring($0)) }
    }

    /// Every column, each once. The writer's insert, change check and update and `Song`'s selection and
    /// decoding are built from this list, so a column-backed tag is one line here (plus its migration in
    /// schema.sql; `SongFieldsTests` checks the two agree).
    static let all: [SongField] = [
        SongField("song_key", .never, read: { $0.fields.key = $1[$2] }) { song, _ in .bytes(song.key) },
        SongField("title", read: { $0.fields.title = $1[$2] }) { song, _ in .bytes(song.title) },
        SongField("singer_id", read: { $0.singerId = $1[$2] }) { _, context in .integer(context.singerId) },
        SongField("album_id", read: nil) { _, context in .integer(context.albumId) },
        SongField("track", read: { $0.fields.track = $1[$2] }) { song, _ in integer(song.input.track) },
        SongField("year", read: { $0.fields.year = $1[$2] }) { song, _ in integer(song.input.year) },
        SongField("duration_ms", read: { $0.fields.durationMs = $1[$2] }) { song, _ in integer(song.input.durationMs) },
        SongField("audio_url", read: { $0.fields.audioURL = $1[$2] }) { song, _ in .bytes(song.audioURL) },
        SongField("lyrics_url", read: { $0.fields.lyricsURL = $1[$2] }) { song, _ in .bytes(song.lyricsURL) },
        SongField("local_path", read: { $0.fields.localPath = $1[$2] }) { song, _ in
            song.input.localPath == nil ? .kept : .bytes(song.localPath)
        },
        SongField("lyrics_path", read: { $0.fields.lyricsPath = $1[$2] }) { song, _ in
            song.input.lyricsPath == nil ? .kept : .bytes(song.lyricsPath)
        },
        SongField("size", read: { $0.fields.size = $1[$2] }) { song, _ in .integer(song.input.size) },
        SongField("sha256", read: { $0.fields.sha256 = $1[$2] }) { song, _ in .bytes(song.sha256) },
        SongField("file_mtime", read: { $0.fields.fileMtime = $1[$2] }) { song, _ in .integer(song.input.fileMtime) },
        SongField("added_at", .never, read: { $0.addedAt = $1[$2] }) { _, context in .text(context.now) },
        SongField("title_key", .derived, read: nil) { song, _ in .bytes(song.titleKey) },
        SongField("title_pinyin", .derived, read: nil) { song, _ in .bytes(song.titlePinyin) },
        SongField("title_initials", .derived, read: nil) { song, _ in .bytes(song.titleInitials) },
        SongField("artists", read: { $0.fields.artists = values($1, $2) }) { song, _ in .text(song.input.artistsColumn) },
        SongField("album_artist", read: { $0.fields.albumArtist = text($1, $2) }) { song, _ in
            .text(song.input.albumArtist ?? "")
        },
        SongField("genre", read: { $0.fields.genres = values($1, $2) }) { song, _ in .text(song.input.genreColumn) },
        SongField("disc", read: { $0.fields.disc = $1[$2] }) { song, _ in integer(song.input.disc) },
        SongField("date", read: { $0.fields.date = text($1, $2) }) { song, _ in .text(song.input.date ?? "") },
        SongField("sample_rate", read: { $0.fields.sampleRate = $1[$2] }) { song, _ in integer(song.input.sampleRate) },
        SongField("channels", read: { $0.fields.channels = $1[$2] }) { song, _ in integer(song.input.channels) },
        SongField("sample_format", read: { $0.fields.sampleFormat = text($1, $2) }) { song, _ in
            .text(song.input.sampleFormat ?? "")
        },
        SongField("more_tags", read: { $0.fields.moreTags = MoreTagsColumn.decode($1[$2]) }) { song, _ in
            .text(song.input.moreTagsColumn)
        },
        SongField("untagged", read: { $0.fields.untagged = UntaggedFields(rawValue: $1[$2]) }) { song, _ in
            .integer(Int64(song.input.untagged.rawValue))
        },
        // A CUE part is read from its three columns in this order: a file, then its bounds.
        SongField("cue_file", read: { $0.fields.cuePart = text($1, $2).map { CuePart(file: $0, startFrame: 0, endFrame: nil) } }) {
            song, _ in .text(song.input.cuePart?.file ?? "")
        },
        SongField("cue_start", read: { song, row, index in
            if let start: Int = row[index] { song.fields.cuePart?.startFrame = start } else { song.fields.cuePart = nil }
        }) { song, _ in integer(song.input.cuePart?.startFrame) },
        SongField("cue_end", read: { $0.fields.cuePart?.endFrame = $1[$2] }) { song, _ in integer(song.input.cuePart?.endFrame) },
        SongField("has_cue_sheet", read: { $0.fields.hasCueSheet = ($1[$2] as Int) != 0 }) { song, _ in
            .integer(song.input.hasCueSheet ? 1 : 0)
        },
        SongField("cue_tags", read: { $0.fields.cueTags = MoreTagsColumn.decode(ordered: $1[$2]) }) { song, _ in
            .text(MoreTagsColumn.encode(ordered: song.input.cueTags))
        },
        SongField("cue_image_ms", read: { $0.fields.cueImageMs = $1[$2] }) { song, _ in integer(song.input.cueImageMs) },
    ]

    static let compared = all.filter { $0.update == .compared }
    static let updated = all.filter { $0.update != .never }

    /// One row per song: every field, in list order.
    static let insertSQL = """
        INSERT INTO song (\(all.map(\.column).joined(separator: ", ")))
        VALUES (\(all.map { _ in "?" }.joined(separator: ", ")))
        """

    /// The row id then every compared field, in list order: what an update checks against.
    static let selectSQL = "SELECT id, \(compared.map(\.column).joined(separator: ", ")) FROM song WHERE song_key = ?"

    /// The updated fields in list order, then the row id.
    static let updateSQL = "UPDATE song SET \(updated.map { "\($0.column) = ?" }.joined(separator: ", ")) WHERE id = ?"
}

extension RawStatement {
    /// Binds a field's value as an insert writes it (`.kept`: '', what an insert knows of a path it was
    /// not given).
    func bind(_ index: Int32, _ value: SongField.Value, arena: UnsafeBufferPointer<UInt8>) {
        switch value {
        case .bytes(let range): bind(index, arena, range)
        case .text(let text): bind(index, text)
        case .integer(let number): bind(index, number)
        case .kept: bind(index, "")
        }
    }

    func bind(_ index: Int32, _ value: DatabaseValue) {
        switch value.storage {
        case .null: bind(index, nil as Int64?)
        case .int64(let number): bind(index, number)
        case .string(let text): bind(index, text)
        case .double(let number): bind(index, number)
        case .blob(let data): bind(index, data)
        }
    }
}

extension SongField.Value {
    /// Whether the stored value already holds this one (`.kept` always does).
    func matches(_ stored: DatabaseValue, arena: UnsafeBufferPointer<UInt8>) -> Bool {
        switch (self, stored.storage) {
        case (.kept, _): return true
        case (.bytes(let range), .string(let text)):
            return text.utf8.elementsEqual(UnsafeBufferPointer(rebasing: arena[range]))
        case (.text(let new), .string(let text)): return new.utf8.elementsEqual(text.utf8)
        case (.integer(nil), .null): return true
        case (.integer(let new?), .int64(let number)): return new == number
        default: return false
        }
    }
}
