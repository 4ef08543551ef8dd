import Foundation
import XZAudio
import XZCatalogue
import XZPlaybackValues
import XZProtocol
import XZSystem

/// `readcomments URI`: every raw tag the file carries (Vorbis comments, ID3v2 TXXX frames ...), as MPD lists them.
extension MPDCommands {
    static let commentCommands: [MPDCommand] = [
        MPDCommand("readcomments", 1...1, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in
            let text = call.arguments[0]
            // MPD answers a name it cannot follow, for whatever reason, with "no such song"; a folder, a
            // FIFO or a device is no song (a FIFO would block the read).
            guard !QueueItem.isStreamURL(text), let path = try? call.location(text).path,
                  (try? RegularFile.check(path)) != nil else {
                throw MPDError.noExist("No such song")
            }
            // A file whose tags cannot be read has no comments to list, as MPD answers it.
            for (key, value) in (try? AudioTags.comments(path: path)) ?? []
            where isCommentName(key) && !value.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
                call.response.add(key, value)
            }
        },
    ]

    /// MPD lists a comment only under a name that makes a protocol key: a letter, then letters, digits,
    /// '_' and '-' (its value on one line, without control characters).
    static func isCommentName(_ key: String) -> Bool {
        guard let first = key.utf8.first, (0x41...0x5A).contains(first) || (0x61...0x7A).contains(first) else { return false }
        return key.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || byte == 0x5F || byte == 0x2D
        }
    }
}
