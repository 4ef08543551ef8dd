import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the container says: its timestamps' sentinel and end, error text, metadata, where a cut-short file ends.
extension FFmpegDecoder {
    static let noTimestamp = Int64.min  // AV_NOPTS_VALUE
    /// AVERROR_EOF: FFERRTAG('E','O','F',' '), the negated four-character code.
    static let errorEndOfFile = -Int32(bitPattern: UInt32(0x45) | UInt32(0x4F) << 8 | UInt32(0x46) << 16 | UInt32(0x20) << 24)

    static func describe(_ code: Int32) -> String {
        var text = [CChar](repeating: 0, count: 256)
        if libav.av_strerror(code, &text, text.count) < 0 { return "error \(code)" }
        return text.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    static func metadata(_ key: String, _ container: UnsafeMutablePointer<AVFormatContext>,
                                 _ stream: UnsafeMutablePointer<AVStream>) -> String? {
        for dictionary in [container.pointee.metadata, stream.pointee.metadata] {
            if let entry = libav.av_dict_get(dictionary, key, nil, 0), let value = entry.pointee.value {
                return String(cString: value)
            }
        }
        return nil
    }

    /// The timestamp of the first packet not wholly in a plain file: where a cut-short MP4's audio ends.
    static func firstMissingPacket(_ stream: UnsafeMutablePointer<AVStream>, source: ByteSource) -> Int64? {
        guard source.growingFile == nil, let size = source.size else { return nil }
        let count = libav.avformat_index_get_entries_count(stream)
        guard count > 0 else { return nil }
        for index in 0..<count {
            guard let entry = libav.avformat_index_get_entry(stream, index) else { continue }
            if entry.pointee.pos + Int64(entry.pointee.size) > size { return entry.pointee.timestamp }
        }
        return nil
    }
}
