import Foundation
import XZCatalogue
import XZHostCore
import XZSystem

/// Streams and downloads: raw files with ranges, transcodes with their cache and their cap. Neither ever
/// counts as a play: a client reports plays through `scrobble`.
package final class SubsonicMedia: Sendable {
    private let host: PlayerHost
    package let transcodes: TranscodeSlots
    let cache: TranscodeCache

    package init(host: PlayerHost, settings: SubsonicSettings) {
        self.host = host
        transcodes = TranscodeSlots(limit: settings.maxTranscodes)
        cache = TranscodeCache(folder: settings.cacheFolder.appendingPathComponent("transcodes"),
                               capacity: settings.transcodeCacheBytes)
    }

    /// `stream`: the file as it is (with its `Range`), or a transcode to `format` at `maxBitRate` from
    /// `timeOffset` seconds (the `transcodeOffset` extension; a raw or absent format sends the whole file and
    /// ignores it). `raw` is the file whatever the cap; no format with a cap below the file's rate is MP3.
    /// A CUE sheet's track is a part of its image, so it is always transcoded (FLAC when no format is named, so "raw" stays lossless). A song without a
    /// local file is not found: the API serves only what the library holds on disk.
    package func stream(_ request: SubsonicRequest) throws -> SubsonicReply {
        let (song, file) = try localSong(request)
        let formatText = try request.text("format")
        let asked = TranscodeFormat(parameter: formatText)
        let isRaw = formatText?.lowercased() == "raw"
        let maxBitRate = try request.clampedInt("maxBitRate", default: 0, in: 0...1_000_000)
        let offset = try Self.timeOffset(request)
        let estimate = try request.bool("estimateContentLength", default: false)
        let own = TranscodeFormat(fileName: file.path)
        let fileKbps = song.durationMs.flatMap { ms in ms > 0 ? Int(file.size * 8 / Int64(ms)) : nil }
        let overCap = maxBitRate > 0 && (fileKbps ?? Int.max) > maxBitRate

        let format: TranscodeFormat
        if let plain = Self.plainTranscode(of: song) {
            format = asked ?? (maxBitRate > 0 ? .mp3 : plain)
        } else if let asked {
            // The file's own format is the file, unless a cap below its rate or an offset asks for more.
            if asked == own && offset == 0 && (asked.isLossless || !overCap) { return try raw(file, request) }
            format = asked
        } else if overCap && !isRaw {
            // No format but a cap below the file's rate: MP3 at the cap, as Navidrome's default.
            format = .mp3
        } else {
            return try raw(file, request)
        }
        return try transcode(song, file, format: format, kbps: format.kbps(maxBitRate: maxBitRate), offset: offset,
                             estimate: estimate, isHead: request.isHead, range: request.range)
    }

    /// What a `stream` without a format or a cap sends instead of the file as it is: a CUE sheet's track is
    /// cut from its image as FLAC. nil: the file is sent as it is.
    package static func plainTranscode(of song: Song) -> TranscodeFormat? {
        song.cuePart != nil ? .flac : nil
    }

    /// `download`: the original file as an attachment, named after it. A CUE sheet's track is its part of
    /// the image, as FLAC, named after the track.
    package func download(_ request: SubsonicRequest) throws -> SubsonicReply {
        let (song, file) = try localSong(request)
        if song.cuePart != nil {
            let base = song.title.isEmpty ? "track" : song.title
            let disposition = ("Content-Disposition", Self.attachment(base + ".flac"))
            switch try transcode(song, file, format: .flac, kbps: 0, offset: 0, estimate: false, isHead: request.isHead,
                                 range: request.range) {
            case .stream(var reply):
                reply.headers.append(disposition)
                return .stream(reply)
            case .file(var cached):
                cached.headers.append(disposition)
                return .file(cached)
            case let other:
                return other
            }
        }
        let name = (file.path as NSString).lastPathComponent
        return .file(FileReply(path: file.path, contentType: MediaContentType.of(path: file.path), size: file.size,
                               range: try ByteRange.parse(request.range, size: file.size),
                               headers: [("Content-Disposition", Self.attachment(name))]))
    }

    // MARK: Replies

    private func raw(_ file: SongFile, _ request: SubsonicRequest) throws -> SubsonicReply {
        .file(FileReply(path: file.path, contentType: MediaContentType.of(path: file.path), size: file.size,
                        range: try ByteRange.parse(request.range, size: file.size)))
    }

    private func transcode(_ song: Song, _ file: SongFile, format: TranscodeFormat,
                           kbps: Int, offset: Double, estimate: Bool, isHead: Bool, range: String?) throws -> SubsonicReply {
        let key = TranscodeCacheKey(songKey: song.songKey, fileSize: file.size, fileModifiedMs: file.modifiedMs,
                                    format: format, kbps: kbps)
        let fromStart = offset == 0
        if fromStart, let cached = cache.lookup(key) {
            return .file(FileReply(path: cached.path, contentType: format.contentType, size: cached.size,
                                   range: try ByteRange.parse(range, size: cached.size)))
        }
        // A HEAD request's body is never produced: it takes no place under the cap.
        let lease = isHead ? nil : try transcodes.acquire()
        let seconds = Double(song.durationMs ?? 0) / 1000
        let job = TranscodeJob(path: file.path,
                               cueFrames: song.cuePart.map { ($0.startFrame, $0.endFrame) },
                               offsetSeconds: min(offset, seconds > 0 ? seconds : offset), format: format, kbps: kbps)
        // The estimate is the body's exact length: what the encoder makes past it is cut, and a shorter
        // transcode is padded with zero bytes (which decoders skip as junk after the last frame).
        let length = estimate ? format.estimatedLength(seconds: seconds - job.offsetSeconds, kbps: kbps) : nil
        let cache = self.cache
        return .stream(StreamReply(contentType: format.contentType, estimatedLength: length) { sink in
            defer { lease?.release() }
            let client = ExactLength(sink, length: length)
            if fromStart {
                try cache.fill(key, forward: client.write) { write in try Transcoder.run(job, write: write) }
            } else {
                try Transcoder.run(job, write: client.write)
            }
            try client.finish()
        })
    }

    // MARK: Parameters

    /// The song `id` names with its file on disk (a CUE track's image): size and time too, for the cache.
    private func localSong(_ request: SubsonicRequest) throws -> (Song, SongFile) {
        guard case .song(let id) = try request.id("id") else {
            throw SubsonicError.notFound("no song has the id given as 'id'")
        }
        guard let song = try host.database.song(id: id) else { throw SubsonicError.notFound("song not found") }
        let path = song.audioFile
        guard song.isLocal, !path.isEmpty else {
            throw SubsonicError.notFound("the song has no file in the library to stream")
        }
        guard let status = FileStatus(path: path, followingLinks: true), status.kind == .regular else {
            throw SubsonicError.notFound("the song's file is gone")
        }
        let modifiedMs = Int64(clamping: Int(clamping: status.modified.timeIntervalSince1970 * 1000))
        return (song, SongFile(path: path, size: status.size, modifiedMs: modifiedMs))
    }

    /// `timeOffset` in seconds (whole, or with a fraction), held within 0…10⁷; anything else is error 0.
    static func timeOffset(_ request: SubsonicRequest) throws -> Double {
        guard let text = try request.text("timeOffset") else { return 0 }
        guard text.utf8.count <= 64, let value = Double(text), !value.isNaN else {
            throw SubsonicError.generic("parameter 'timeOffset' is not a number")
        }
        return value.clamped(to: 0...10_000_000, nan: 0)
    }

    /// `attachment` with the name as plain ASCII (no control characters, quotes, slashes or backslashes)
    /// and as RFC 5987 UTF-8 for clients that read it.
    package static func attachment(_ name: String) -> String {
        let cleaned = String(String.UnicodeScalarView(name.unicodeScalars.filter { scalar in
            scalar.properties.generalCategory != .control && scalar.properties.generalCategory != .format
                && !"\"/\\".unicodeScalars.contains(scalar)
        })).prefix(200)
        let safe = cleaned.trimmingCharacters(in: .whitespaces).isEmpty ? "download" : String(cleaned)
        let ascii = String(String.UnicodeScalarView(safe.unicodeScalars.map { $0.isASCII ? $0 : "_" }))
        var encoded = ""
        for byte in safe.utf8 {
            let isPlain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "!#$&+-.^_`|~".utf8.contains(byte)
            encoded += isPlain ? String(UnicodeScalar(byte)) : String(format: "%%%02X", byte)
        }
        return "attachment; filename=\"\(ascii)\"; filename*=UTF-8''\(encoded)"
    }
}

/// A song's file on disk as it is now: its size and time tell a cached transcode of it from a stale one.
private struct SongFile {
    var path: String
    var size: Int64
    var modifiedMs: Int64
}

/// The client's side of a transcode: every byte, or, when a length was announced, exactly that many (cut
/// past it, padded with zeros short of it).
private final class ExactLength {
    private let sink: any MediaSink
    private let length: Int64?
    private var sent: Int64 = 0

    init(_ sink: any MediaSink, length: Int64?) {
        self.sink = sink
        self.length = length
    }

    func write(_ bytes: [UInt8]) throws {
        guard let length else { return try sink.write(bytes) }
        let room = length - sent
        guard room > 0 else { return }
        let piece = Int64(bytes.count) <= room ? bytes : Array(bytes.prefix(Int(room)))
        try sink.write(piece)
        sent += Int64(piece.count)
    }

    func finish() throws {
        guard let length else { return }
        while sent < length {
            let zeros = [UInt8](repeating: 0, count: Int(min(length - sent, 64 * 1024)))
            try sink.write(zeros)
            sent += Int64(zeros.count)
        }
    }
}
