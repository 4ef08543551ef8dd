import CFLAC
import COpusFile
import CVorbisFile
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Vorbis comments exactly as the file holds them, in order and with their keys' spelling: TagLib keeps them
/// in a map by upper-cased key, which loses both, and MPD's `readcomments` shows both.
enum VorbisComments {
    /// The comments of a FLAC, Ogg Vorbis or Opus file (`format` as TagLib names it); nil for other formats.
    static func read(path: String, format: String) throws -> [(key: String, value: String)]? {
        let entries: [[UInt8]]
        switch format {
        case "FLAC": entries = try flac(path)
        case "Ogg Vorbis": entries = try vorbis(path)
        case "Ogg Opus": entries = try opus(path)
        default: return nil
        }
        return entries.compactMap { entry in
            // "KEY=value"; an entry without "=" is no comment.
            guard let equals = entry.firstIndex(of: 0x3D), equals > 0 else { return nil }
            return (String(decoding: entry[..<equals], as: UTF8.self),
                    String(decoding: entry[(equals + 1)...], as: UTF8.self))
        }
    }

    private static func unreadable(_ path: String) -> AudioError {
        AudioError.tagsUnreadable("cannot read its comments", file: path)
    }

    private static func flac(_ path: String) throws -> [[UInt8]] {
        var block: UnsafeMutablePointer<FLAC__StreamMetadata>?
        guard FLAC__metadata_get_tags(path, &block) != 0, let block else { throw unreadable(path) }
        defer { FLAC__metadata_object_delete(block) }
        let comments = block.pointee.data.vorbis_comment
        return (0..<Int(comments.num_comments)).map { index in
            let entry = comments.comments[index]
            return Array(UnsafeBufferPointer(start: entry.entry, count: Int(entry.length)))
        }
    }

    private static func vorbis(_ path: String) throws -> [[UInt8]] {
        var file = OggVorbis_File()
        guard ov_fopen(path, &file) == 0 else { throw unreadable(path) }
        defer { ov_clear(&file) }
        guard let comment = ov_comment(&file, -1) else { return [] }
        return (0..<Int(comment.pointee.comments)).compactMap { index in
            guard let text = comment.pointee.user_comments[index] else { return nil }
            return text.withMemoryRebound(to: UInt8.self, capacity: 1) {
                Array(UnsafeBufferPointer(start: $0, count: Int(comment.pointee.comment_lengths[index])))
            }
        }
    }

    private static func opus(_ path: String) throws -> [[UInt8]] {
        var error: Int32 = 0
        guard let file = op_open_file(path, &error) else { throw unreadable(path) }
        defer { op_free(file) }
        guard let tags = op_tags(file, -1) else { return [] }
        return (0..<Int(tags.pointee.comments)).compactMap { index in
            guard let text = tags.pointee.user_comments[index] else { return nil }
            return text.withMemoryRebound(to: UInt8.self, capacity: 1) {
                Array(UnsafeBufferPointer(start: $0, count: Int(tags.pointee.comment_lengths[index])))
            }
        }
    }
}
