extension StreamTag {
    /// Longest comment value an Ogg header carries, in UTF-8 bytes: every late listener is sent the header,
    /// so a file's oversized tag is cut rather than repeated to each.
    static let commentValueLimit = 4_096

    /// The tag as Vorbis comments (Ogg Vorbis and Opus headers), empty fields left out, each value cut at
    /// `commentValueLimit` on a character boundary.
    var vorbisComments: [(name: String, value: String)] {
        [("TITLE", title), ("ARTIST", artist), ("ALBUM", album)].compactMap { name, value in
            guard let value, !value.isEmpty else { return nil }
            guard value.utf8.count > Self.commentValueLimit else { return (name, value) }
            var cut = ""
            for character in value {
                guard cut.utf8.count + character.utf8.count <= Self.commentValueLimit else { break }
                cut.append(character)
            }
            return (name, cut)
        }
    }
}
