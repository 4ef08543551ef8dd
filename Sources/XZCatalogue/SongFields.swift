import GRDB

/// The columns of `song` the writer fills, each once: its name, the value a song gives it and whether an
/// update rewrites it. The writer's insert, its change check and its update are built from this list, so a
/// column-backed tag is one line here (plus its migration in schema.sql; `SongFieldsTests` checks the two
/// agree).
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

    let column: String
    let update: Update
    let value: @Sendable (PreparedSong, Context) -> Value

    init(_ column: String, _ update: Update = .compared, _ value: @escaping @Sendable (PreparedSong, Context) -> Value) {
        self.column = column
        self.update = update
        self.value = value
    }

    private static func integer(_ value: Int?) -> Value { .integer(value.map(Int64.init)) }

    static let all: [SongField] = [
        SongField("song_key", .never) { song, _ in .bytes(song.key) },
        SongField("title") { song, _ in .bytes(song.title) },
        SongField("singer_id") { _, context in .integer(context.singerId) },
        SongField("album_id") { _, context in .integer(context.albumId) },
        SongField("track") { song, _ in integer(song.input.track) },
        SongField("year") { song, _ in integer(song.input.year) },
        SongField("duration_ms") { song, _ in integer(song.input.durationMs) },
        SongField("audio_url") { song, _ in .bytes(song.audioURL) },
        SongField("lyrics_url") { song, _ in .bytes(song.lyricsURL) },
        SongField("local_path") { song, _ in song.input.localPath == nil ? .kept : .bytes(song.localPath) },
        SongField("lyrics_path") { song, _ in song.input.lyricsPath == nil ? .kept : .bytes(song.lyricsPath) },
        SongField("size") { song, _ in .integer(song.input.size) },
        SongField("sha256") { song, _ in .bytes(song.sha256) },
        SongField("file_mtime") { song, _ in .integer(song.input.fileMtime) },
        SongField("added_at", .never) { _, context in .text(context.now) },
        SongField("title_key", .derived) { song, _ in .bytes(song.titleKey) },
        SongField("title_pinyin", .derived) { song, _ in .bytes(song.titlePinyin) },
        SongField("title_initials", .derived) { song, _ in .bytes(song.titleInitials) },
        SongField("artists") { song, _ in .text(song.input.artistsColumn) },
        SongField("album_artist") { song, _ in .text(song.input.albumArtist ?? "") },
        SongField("genre") { song, _ in .text(song.input.genreColumn) },
        SongField("disc") { song, _ in integer(song.input.disc) },
        SongField("date") { song, _ in .text(song.input.date ?? "") },
        SongField("sample_rate") { song, _ in integer(song.input.sampleRate) },
        SongField("channels") { song, _ in integer(song.input.channels) },
        SongField("sample_format") { song, _ in .text(song.input.sampleFormat ?? "") },
        SongField("more_tags") { song, _ in .text(song.input.moreTagsColumn) },
        SongField("untagged") { song, _ in .integer(Int64(song.input.untagged.rawValue)) },
        SongField("cue_file") { song, _ in .text(song.input.cuePart?.file ?? "") },
        SongField("cue_start") { song, _ in integer(song.input.cuePart?.startFrame) },
        SongField("cue_end") { song, _ in integer(song.input.cuePart?.endFrame) },
        SongField("has_cue_sheet") { song, _ in .integer(song.input.hasCueSheet ? 1 : 0) },
        SongField("cue_tags") { song, _ in .text(MoreTagsColumn.encode(ordered: song.input.cueTags)) },
        SongField("cue_image_ms") { song, _ in integer(song.input.cueImageMs) },
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
