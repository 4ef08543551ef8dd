/// What `search2`/`search3` ask for: a query (nil lists everything) and a page of each kind.
struct SearchRequest: Equatable {
    /// `count` items from `offset`.
    struct Window: Equatable {
        var count: Int
        var offset: Int
        /// One past the page's last item; never overflows (both are clamped).
        var end: Int { offset + count }
        var range: Range<Int> { offset..<end }
    }

    /// The most items of one kind a page holds.
    static let maxCount = 500
    /// Offsets are clamped here: past every row a library can hold, and far from overflowing `end`.
    static let maxOffset = Int(Int32.max)

    /// The words to search for; nil when the query is empty (list everything, in a stable order).
    var text: String?
    var artists: Window
    var albums: Window
    var songs: Window

    init(text: String?, artists: Window, albums: Window, songs: Window) {
        self.text = text
        self.artists = artists
        self.albums = albums
        self.songs = songs
    }

    /// The call's `query` and windows. `musicFolderId` names the one music folder, else error 70.
    init(_ call: SubsonicCall) throws {
        try call.checkMusicFolder()
        text = Self.searchText(try call.text("query"))
        func window(_ kind: String) throws -> Window {
            Window(count: try call.clampedInt("\(kind)Count", default: 20, in: 0...Self.maxCount),
                   offset: try call.clampedInt("\(kind)Offset", default: 0, in: 0...Self.maxOffset))
        }
        artists = try window("artist")
        albums = try window("album")
        songs = try window("song")
    }

    /// The words of a query, or nil for one that asks for everything: missing, empty, blank, or only
    /// quotes and stars (Symfonium syncs with `""`; some clients send `*`).
    static func searchText(_ query: String?) -> String? {
        guard let query else { return nil }
        let meaningful = query.unicodeScalars.contains { scalar in
            !(scalar == "\"" || scalar == "*" || scalar.properties.isWhitespace)
        }
        return meaningful ? query : nil
    }
}
