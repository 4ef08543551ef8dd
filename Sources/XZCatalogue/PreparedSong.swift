import Foundation
import XZSystem

/// A string compared and hashed by its UTF-8 bytes, as SQLite's unique indexes compare text
/// (String's own == treats canonically equivalent spellings as equal, and hashes slowly for them).
struct ByteKey: Hashable {
    let string: String

    static func == (a: ByteKey, b: ByteKey) -> Bool { a.string.utf8.elementsEqual(b.string.utf8) }

    func hash(into hasher: inout Hasher) {
        var s = string
        s.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// A singer name with its search forms, folded once however many songs name the singer.
final class SingerForms: Sendable {
    let name: String
    let key: String
    let pinyin: String
    let initials: String
    let firstLetter: String
    /// The name's search terms, which every one of the singer's song documents repeats.
    let document: [UInt8]
    /// Set by the writer thread only (the folding thread never reads them): the singer's row id
    /// once known, and how many songs the bulk load gave the singer. Relaxed atomics, which cost what
    /// plain fields do: one thread uses them, and the hand-off between the threads orders the rest.
    private let row = Atomic<Int64>(0)
    private let songs = Atomic<Int>(0)
    var rowId: Int64 {
        get { row.load(ordering: .relaxed) }
        set { row.store(newValue, ordering: .relaxed) }
    }
    var bulkSongs: Int {
        get { songs.load(ordering: .relaxed) }
        set { songs.store(newValue, ordering: .relaxed) }
    }

    init(name: String, field: inout FoldedField) {
        self.name = name
        field.fold(name)
        key = field.keyString
        pinyin = field.pinyinKeyString
        initials = field.initialsString
        firstLetter = field.firstLetter
        var document: [UInt8] = []
        field.appendDocument(to: &document)
        self.document = document
    }
}

/// One album of one singer, shared by the songs that name it.
final class AlbumForms: Sendable {
    let title: String
    /// Set by the writer thread only; relaxed, as in `SingerForms`.
    private let row = Atomic<Int64>(0)
    var rowId: Int64 {
        get { row.load(ordering: .relaxed) }
        set { row.store(newValue, ordering: .relaxed) }
    }

    init(title: String) { self.title = title }
}

/// A song ready for the writer: its text, folded keys and search document in the batch's arena, to bind.
struct PreparedSong {
    typealias Bytes = Range<Int>
    var input: SongInput
    var singer: SingerForms
    var album: AlbumForms?
    /// An earlier line of the same feed has this key.
    var isRepeat: Bool
    var key, title, audioURL, lyricsURL, localPath, lyricsPath, sha256: Bytes
    var titleKey, titlePinyin, titleInitials, document: Bytes
}

/// Folds songs for the writer, one per thread. The dictionaries that tell singers, albums and
/// repeated keys apart live here, on the folding thread, not on the writer's.
struct SongFolder {
    private var field = FoldedField()
    private var singers: [ByteKey: SingerForms] = [:]
    private var albums: [AlbumRef: AlbumForms] = [:]
    private var keys = Set<ByteKey>()

    private struct AlbumRef: Hashable {
        let singer: ObjectIdentifier
        let title: ByteKey
    }

    mutating func singer(_ name: String) -> SingerForms {
        if let known = singers[ByteKey(string: name)] { return known }
        let forms = SingerForms(name: name, field: &field)
        singers[ByteKey(string: name)] = forms
        return forms
    }

    /// The same keys and document as `SearchText.analyze` / `SearchText.document`, written to `arena`.
    mutating func prepare(_ input: SongInput, arena: inout [UInt8]) -> PreparedSong {
        let singer = singer(input.singer)
        var album: AlbumForms?
        if let title = input.album {
            let ref = AlbumRef(singer: ObjectIdentifier(singer), title: ByteKey(string: title))
            if let known = albums[ref] {
                album = known
            } else {
                let forms = AlbumForms(title: title)
                albums[ref] = forms
                album = forms
            }
        }
        let isRepeat = !keys.insert(ByteKey(string: input.key)).inserted
        func text(_ s: String) -> Range<Int> {
            let start = arena.count
            var s = s
            s.withUTF8 { arena.append(contentsOf: $0) }
            return start..<arena.count
        }
        let key = text(input.key), title = text(input.title)
        let audioURL = text(input.audioURL), lyricsURL = text(input.lyricsURL)
        let localPath = text(input.localPath ?? ""), lyricsPath = text(input.lyricsPath ?? "")
        let sha256 = text(input.sha256)

        field.fold(input.title)
        var start = arena.count
        arena.append(contentsOf: field.text)
        let titleKey = start..<arena.count
        start = arena.count
        field.appendPinyinKey(to: &arena)
        let titlePinyin = start..<arena.count
        start = arena.count
        _ = field.appendInitials(to: &arena)
        let titleInitials = start..<arena.count
        let documentStart = arena.count
        field.appendDocument(to: &arena, from: documentStart)
        if !singer.document.isEmpty {
            if arena.count > documentStart { arena.append(0x20) }
            arena.append(contentsOf: singer.document)
        }
        if let album = input.album {
            field.fold(album)
            field.appendDocument(to: &arena, from: documentStart)
        }
        return PreparedSong(input: input, singer: singer, album: album, isRepeat: isRepeat, key: key, title: title,
                            audioURL: audioURL, lyricsURL: lyricsURL, localPath: localPath, lyricsPath: lyricsPath,
                            sha256: sha256, titleKey: titleKey, titlePinyin: titlePinyin,
                            titleInitials: titleInitials, document: documentStart..<arena.count)
    }
}
