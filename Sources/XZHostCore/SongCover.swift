import Foundation
import XZAudio
import XZSystem

/// A song's picture, as MPD's `albumart` and `readpicture` find it and MPRIS shows it: a cover file
/// beside the song, or the picture in its tags.
package struct SongCover: Sendable, Equatable {
    /// The tag's MIME type; nil for a cover file, whose type only its bytes tell.
    package let mimeType: String?
    package let data: [UInt8]

    package init(mimeType: String?, data: [UInt8]) {
        self.mimeType = mimeType
        self.data = data
    }

    /// The names of a folder's cover file, in the order looked for (MPD's).
    package static let fileNames = ["cover.png", "cover.jpg", "cover.jpeg", "cover.webp", "folder.jpg", "folder.png"]
    /// A cover larger than this is no cover: it is not read whole into memory.
    package static let sizeLimit = 64 << 20

    /// The cover file in the folder of `path`.
    package static func folderFile(besides path: String) -> SongCover? {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        for name in fileNames {
            if let data = RegularFile.contents(atPath: folder.appendingPathComponent(name).path, limit: sizeLimit) {
                return SongCover(mimeType: nil, data: data)
            }
        }
        return nil
    }

    /// The picture in the tags of the file at `path`.
    package static func embedded(in path: String) -> SongCover? {
        // Tags that cannot be read hold no picture.
        guard let picture = try? AudioTags.picture(path: path) else { return nil }
        return SongCover(mimeType: picture.mimeType.isEmpty ? nil : picture.mimeType, data: picture.data)
    }

    /// The first of the two sources that has one, the tag's picture first when `embeddedFirst`.
    package static func find(for path: String, embeddedFirst: Bool) -> SongCover? {
        embeddedFirst ? embedded(in: path) ?? folderFile(besides: path) : folderFile(besides: path) ?? embedded(in: path)
    }
}
