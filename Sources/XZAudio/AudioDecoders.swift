import XZText

/// One decoder library as MPD lists it in `decoders`: what it is called, the suffixes and MIME types it
/// reads, how it recognises its content, and how it opens a track.
package struct DecoderPlugin: Sendable {
    package let name: String
    package let suffixes: [String]
    package let mimeTypes: [String]
    /// True when the first bytes are this plug-in's format.
    let claims: @Sendable (ContentHead) -> Bool
    let open: @Sendable (AudioInput) throws -> AudioDecoder
    /// The format and length of a file without decoding its audio, for folder scans; nil: open a decoder.
    var measure: (@Sendable (String) throws -> (AudioFormat, lengthInSamples: Int?))? = nil
}

/// The first bytes of a file, and those after an ID3v2 tag at its start (FLAC files may carry one).
struct ContentHead {
    static let size = 64
    let bytes: [UInt8]
    let afterID3: [UInt8]?

    /// The bytes that identify the container: those after an ID3v2 tag when there is one.
    var container: [UInt8] { afterID3 ?? bytes }

    func starts(with magic: String, at offset: Int = 0, in data: [UInt8]? = nil) -> Bool {
        let data = data ?? container
        let magic = Array(magic.utf8)
        return data.count >= offset + magic.count && Array(data[offset..<offset + magic.count]) == magic
    }

    /// Where an ID3v2 tag at the start of `bytes` says it ends (header, body, footer).
    static func id3v2End(_ bytes: [UInt8]) -> Int64? {
        guard bytes.count >= 10, bytes[0] == 0x49, bytes[1] == 0x44, bytes[2] == 0x33,
              bytes[6] | bytes[7] | bytes[8] | bytes[9] < 0x80 else { return nil }
        let size = bytes[6...9].reduce(0) { $0 << 7 | Int64($1) }
        return 10 + size + (bytes[5] & 0x10 != 0 ? 10 : 0)
    }

    /// An MPEG audio frame header (layer I–III, valid bitrate and rate indexes); AAC's ADTS has layer 0.
    var startsWithMPEGFrame: Bool {
        let b = container
        guard b.count >= 4, b[0] == 0xFF, b[1] & 0xE0 == 0xE0 else { return false }
        let layer = (b[1] >> 1) & 3
        let version = (b[1] >> 3) & 3
        let bitrate = b[2] >> 4
        let rate = (b[2] >> 2) & 3
        return layer != 0 && version != 1 && bitrate != 15 && rate != 3
    }
}

/// The decoder registry: picks a decoder by content (magic bytes), the file name only as a hint, as MPD
/// picks a `DecoderPlugin`. Adding a format is one decoder file and one entry in `plugins`.
package enum AudioDecoders {
    /// In the order they are asked; FFmpeg, which knows most containers, comes last.
    package static let plugins: [DecoderPlugin] = [
        MP3Decoder.plugin, FLACDecoder.plugin, VorbisDecoder.plugin, OpusDecoder.plugin, PCMFileDecoder.plugin,
        FFmpegDecoder.plugin,
    ]

    /// Every suffix some plug-in reads, lower-case without the dot: what a folder scan looks at.
    package static let suffixes: Set<String> = Set(plugins.flatMap(\.suffixes))

    /// True when the file's name ends in a suffix some decoder reads. Asked of every name a folder scan
    /// sees, so it reads bytes and allocates nothing.
    package static func hasAudioSuffix(_ path: String) -> Bool {
        var packed: UInt64 = 0
        var length = 0
        var bytes = path.utf8.reversed().makeIterator()
        while let byte = bytes.next() {
            if byte == UInt8(ascii: ".") {
                // A name that is only ".flac" is hidden, not a FLAC file.
                guard length > 0, let before = bytes.next(), before != UInt8(ascii: "/") else { return false }
                return packedSuffixes.contains(packed)
            }
            guard byte != UInt8(ascii: "/"), length < 8 else { return false }
            packed = packed << 8 | UInt64(byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
            length += 1
        }
        return false
    }

    /// Each suffix's bytes, last first, in one integer: the form `hasAudioSuffix` builds.
    private static let packedSuffixes: Set<UInt64> = Set(suffixes.map { $0.utf8.reversed().reduce(0) { $0 << 8 | UInt64($1) } })

    package static func open(path: String) throws -> AudioDecoder {
        try open(.file(path: path))
    }

    /// Opens `input` with the decoder its content calls for.
    package static func open(_ input: AudioInput) throws -> AudioDecoder {
        let plugin = try choose(for: input)
        let decoder = try plugin.open(input)
        try checkFormat(decoder.format, name: input.name)
        return decoder
    }

    /// A file's header is outside data: a format MPD would refuse (`audio_valid_sample_rate`, at most 8
    /// channels) is refused here, before any sum of rates and lengths can overflow.
    static func checkFormat(_ format: AudioFormat, name: String) throws {
        guard (1..<(1 << 30)).contains(format.sampleRate), (1...8).contains(format.channels) else {
            throw AudioError.unsupportedFormat("has an impossible format (\(format.sampleRate) Hz, \(format.channels) channels)", file: name)
        }
    }

    /// The plug-in `input`'s content calls for; throws a one-line reason when none reads it.
    static func choose(for input: AudioInput) throws -> DecoderPlugin {
        let head = try readHead(input)
        if head.bytes.isEmpty {
            throw AudioError.unsupportedFormat("is empty, not an audio file", file: input.name)
        }
        if let plugin = plugins.first(where: { $0.claims(head) }) { return plugin }
        // Content no plug-in recognises: an MP3 may start with junk before its first frame, which
        // libmpg123 skips within its resync limit; only the name says to try.
        if let suffix = suffix(of: input.name), MP3Decoder.plugin.suffixes.contains(suffix) {
            return MP3Decoder.plugin
        }
        throw AudioError.unsupportedFormat("not an audio file XZMusic can decode: its content is none of "
            + "MP3, FLAC, Ogg Vorbis, Opus, MP4/M4A, WAV, AIFF or another format FFmpeg recognises", file: input.name)
    }

    /// Tags, format and duration of a file, for folder scans: the decoder its content calls for reads the
    /// format and length (no audio is decoded), TagLib the tags.
    package static func probe(path: String) throws -> TrackInfo {
        let plugin = try choose(for: .file(path: path))
        let format: AudioFormat
        let length: Int?
        if let measure = plugin.measure {
            (format, length) = try measure(path)
        } else {
            let decoder = try plugin.open(.file(path: path))
            (format, length) = (decoder.format, decoder.lengthInSamples)
        }
        try checkFormat(format, name: path)
        let tags = try AudioTags.read(path: path)
        let durationMs = length.map { max(0, SampleTime.milliseconds(atSample: $0, sampleRate: format.sampleRate)) }
        return TrackInfo(tags: tags, format: format, durationMs: durationMs)
    }

    /// Decodes the first blocks of `path` (a finished download) and returns the suffix its content calls
    /// for ("mp3", "flac", "m4a"…); throws when it is not audio a decoder reads.
    package static func checkDecodes(path: String) throws -> String {
        let input = AudioInput.file(path: path)
        let head = try readHead(input)
        let decoder = try open(input)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { buffer.deallocate() }
        var decoded = 0
        for _ in 0 ..< 4 {
            let n = try decoder.read(into: buffer)
            if n == 0 { break }
            decoded += n
        }
        guard decoded > 0 else { throw AudioError.unsupportedFormat("holds no audio", file: path) }
        return contentSuffix(head)
    }

    /// The usual suffix for the format `head` shows.
    static func contentSuffix(_ head: ContentHead) -> String {
        if head.starts(with: "ftyp", at: 4) { return "m4a" }
        if head.starts(with: "RIFF") { return "wav" }
        if head.starts(with: "FORM") { return "aiff" }
        if head.starts(with: "OggS") { return head.starts(with: "OpusHead", at: 28) ? "opus" : "ogg" }
        if head.starts(with: "fLaC") { return "flac" }
        return (plugins.first { $0.claims(head) } ?? MP3Decoder.plugin).suffixes.first ?? "mp3"
    }

    /// The name of the plug-in that would decode `path`, for `info` and tests.
    package static func pluginName(forFile path: String) throws -> String {
        try choose(for: .file(path: path)).name
    }

    private static func readHead(_ input: AudioInput) throws -> ContentHead {
        let source = try ByteSource(input)
        var bytes = [UInt8](repeating: 0, count: 4096)
        let n = bytes.withUnsafeMutableBytes { source.readFully(into: $0) }
        if n < 0 {
            throw source.failure ?? AudioError.unreadable("cannot read the file", file: input.name)
        }
        bytes.removeSubrange(n...)
        var afterID3: [UInt8]?
        if let end = ContentHead.id3v2End(bytes) {
            source.seek(end, whence: SEEK_SET)
            var next = [UInt8](repeating: 0, count: ContentHead.size)
            let got = next.withUnsafeMutableBytes { source.readFully(into: $0) }
            afterID3 = got > 0 ? Array(next[0..<got]) : []
        }
        return ContentHead(bytes: bytes, afterID3: afterID3)
    }

    static func suffix(of path: String) -> String? {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return nil }
        let suffix = name[name.index(after: dot)...].lowercased()
        return suffix.isEmpty ? nil : suffix
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
