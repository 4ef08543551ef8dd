/// What a radio stream says of itself while it plays: the station's name (ICY `icy-name`), and the title
/// and artist of what is on now (ICY `StreamTitle`, or the comments of a new link of a chained Ogg stream).
/// Every value is cleaned as tags are (control characters gone, mis-encodings repaired) and capped.
package struct StreamTags: Sendable, Equatable {
    /// The most UTF-8 bytes a value keeps: an ICY block holds at most 16 × 255 bytes in all.
    package static let maxValueBytes = 1024

    package var name: String?
    package var title: String?
    package var artist: String?

    package init(name: String? = nil, title: String? = nil, artist: String? = nil) {
        self.name = name.flatMap(Self.clean)
        self.title = title.flatMap(Self.clean)
        self.artist = artist.flatMap(Self.clean)
    }

    package var isEmpty: Bool { name == nil && title == nil && artist == nil }

    /// Bytes a server sent: UTF-8 when they are, else one byte a character (Latin-1, repaired as tags are).
    package static func text(_ bytes: some Collection<UInt8>) -> String {
        String(validating: bytes, as: UTF8.self) ?? String(String.UnicodeScalarView(bytes.map { Unicode.Scalar($0) }))
    }

    /// Cleaned as a tag line and cut to `maxValueBytes` on a character boundary; nil when nothing is left.
    static func clean(_ text: String) -> String? {
        guard var line = TagText.cleanLine(text) else { return nil }
        if line.utf8.count > maxValueBytes {
            var cut = ""
            for character in line {
                guard cut.utf8.count + character.utf8.count <= maxValueBytes else { break }
                cut.append(character)
            }
            line = cut
        }
        return line.isEmpty ? nil : line
    }
}
