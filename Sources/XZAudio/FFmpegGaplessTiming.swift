import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// Which samples of a stream are audio: the timeline, and the MP4 edit list or iTunSMPB that sets it.

extension FFmpegDecoder {

    /// Where position 0 and the end of the audio lie on the stream's timestamps (time-base units).
    struct Timeline {
        var start: Int64
        var end: Int64?
        /// Frames are trimmed to `start..<end` by their timestamps: an MP4 whose boxes say which samples are audio.
        var clips: Bool
        var timeBase: AVRational
        /// False when frames come without timestamps or the container's cannot be trusted after a jump:
        /// seeks then decode their way from the start.
        var seeksByTimestamp = true
    }

    /// iTunes' gapless note: ` 00000000 DELAY PADDING LENGTH …`, hexadecimal sample counts.
    struct ITunSMPB {
        let priming: Int64
        let length: Int64

        init?(_ text: String) {
            let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count >= 4, let priming = Int64(fields[1], radix: 16), Int64(fields[2], radix: 16) != nil,
                  let length = Int64(fields[3], radix: 16), length > 0, priming >= 0 else { return nil }
            self.priming = priming
            self.length = length
        }
    }

    /// An MP4 track's timing as its own boxes give it. libavformat keeps the media's exact length private and
    /// takes the edit list at the movie's timescale, which FFmpeg-written files set to milliseconds: a track
    /// whose length is no whole number of milliseconds would lose or keep up to one millisecond of samples.
    struct MP4Timing {
        let movieTimescale: Int64
        let mediaTimescale: Int64
        /// The sum of the sample durations (`stts`).
        let mediaDuration: Int64
        /// `elst` entries: duration in movie units, start in media units (-1: an empty edit).
        let edits: [(duration: Int64, mediaTime: Int64)]

        /// The audio's samples in FFmpeg's timestamps (media units, shifted so the edit's start is 0), or
        /// nil when the timing is beyond this reading (several edits, fragments) and FFmpeg's own trimming applies.
        func window(iTunSMPB: ITunSMPB?) -> Range<Int64>? {
            guard mediaDuration > 0, movieTimescale > 0, mediaTimescale > 0 else { return nil }
            if edits.isEmpty {
                if let smpb = iTunSMPB, smpb.priming + smpb.length <= mediaDuration {
                    return smpb.priming..<smpb.priming + smpb.length
                }
                return 0..<mediaDuration
            }
            guard edits.count == 1, let edit = edits.first, edit.mediaTime >= 0, edit.mediaTime < mediaDuration else {
                return nil
            }
            var end = edit.duration == 0 ? mediaDuration
                : edit.mediaTime + libav.av_rescale(edit.duration, mediaTimescale, movieTimescale)
            // Within one movie tick of the media's end, the edit meant the end: the tick only rounded it.
            let tick = (mediaTimescale + movieTimescale - 1) / movieTimescale
            if end < mediaDuration && mediaDuration - end < tick { end = mediaDuration }
            end = min(end, mediaDuration)
            return 0..<end - edit.mediaTime
        }

        /// Reads the `moov` box of the file behind `source` and the track numbered `trackID`; the source's
        /// position is restored.
        static func read(from source: ByteSource, trackID: Int32, timeBase: AVRational) -> MP4Timing? {
            let saved = source.position
            defer { source.seek(saved, whence: SEEK_SET) }
            guard let moov = findTopLevelBox("moov", in: source) else { return nil }
            var movieTimescale: Int64?
            for (type, body) in boxes(in: moov, moov.indices) {
                if type == "mvhd" { movieTimescale = timescale(moov, body) }
                if type == "mvex" { return nil }  // fragmented: the samples are not all in `stts`
            }
            for (type, body) in boxes(in: moov, moov.indices) where type == "trak" {
                guard let timing = track(moov, body, trackID: trackID, movieTimescale: movieTimescale) else { continue }
                // FFmpeg's timestamps count in the media timescale; anything else is beyond this reading.
                guard timeBase.num == 1, Int64(timeBase.den) == timing.mediaTimescale else { return nil }
                return timing
            }
            return nil
        }

        private static func track(_ data: [UInt8], _ trak: Range<Int>, trackID: Int32, movieTimescale: Int64?) -> MP4Timing? {
            var id: Int64?
            var edits: [(Int64, Int64)] = []
            var mediaTimescale: Int64?
            var mediaDuration: Int64?
            for (type, body) in boxes(in: data, trak) {
                switch type {
                case "tkhd":
                    let version = body.isEmpty ? 0 : data[body.lowerBound]
                    id = integer(data, body.lowerBound + (version == 1 ? 20 : 12), 4)
                case "edts":
                    for (inner, list) in boxes(in: data, body) where inner == "elst" { edits = editList(data, list) ?? [] }
                case "mdia":
                    for (inner, part) in boxes(in: data, body) {
                        if inner == "mdhd" { mediaTimescale = timescale(data, part) }
                        if inner == "minf" { mediaDuration = sampleTableDuration(data, part) }
                    }
                default: break
                }
            }
            guard let id, id == Int64(trackID), let movieTimescale, let mediaTimescale, let mediaDuration else { return nil }
            return MP4Timing(movieTimescale: movieTimescale, mediaTimescale: mediaTimescale,
                             mediaDuration: mediaDuration, edits: edits)
        }

        /// `mvhd` and `mdhd` share their layout up to the timescale.
        private static func timescale(_ data: [UInt8], _ body: Range<Int>) -> Int64? {
            guard !body.isEmpty else { return nil }
            let offset = body.lowerBound + (data[body.lowerBound] == 1 ? 20 : 12)
            guard offset + 4 <= body.upperBound else { return nil }
            return integer(data, offset, 4)
        }

        private static func editList(_ data: [UInt8], _ body: Range<Int>) -> [(Int64, Int64)]? {
            guard body.count >= 8, let count = integer(data, body.lowerBound + 4, 4) else { return nil }
            let wide = data[body.lowerBound] == 1
            let entrySize = wide ? 20 : 12
            guard count <= (body.count - 8) / entrySize else { return nil }
            return (0..<Int(count)).compactMap { index in
                let at = body.lowerBound + 8 + index * entrySize
                guard let duration = integer(data, at, wide ? 8 : 4), let time = integer(data, at + (wide ? 8 : 4), wide ? 8 : 4) else {
                    return nil
                }
                // media_time is signed: -1 marks an empty edit.
                let mediaTime = wide ? Int64(bitPattern: UInt64(bitPattern: time)) : Int64(Int32(truncatingIfNeeded: time))
                return (duration, mediaTime)
            }
        }

        private static func sampleTableDuration(_ data: [UInt8], _ minf: Range<Int>) -> Int64? {
            for (type, stbl) in boxes(in: data, minf) where type == "stbl" {
                for (inner, stts) in boxes(in: data, stbl) where inner == "stts" {
                    guard stts.count >= 8, let count = integer(data, stts.lowerBound + 4, 4),
                          count <= (stts.count - 8) / 8 else { return nil }
                    var total: Int64 = 0
                    for index in 0..<Int(count) {
                        let at = stts.lowerBound + 8 + index * 8
                        guard let samples = integer(data, at, 4), let delta = integer(data, at + 4, 4) else { return nil }
                        total += samples * delta
                    }
                    return total
                }
            }
            return nil
        }

        /// The child boxes in `range`: type and body.
        private static func boxes(in data: [UInt8], _ range: Range<Int>) -> [(String, Range<Int>)] {
            var found: [(String, Range<Int>)] = []
            var offset = range.lowerBound
            while offset + 8 <= range.upperBound {
                guard var size = integer(data, offset, 4) else { break }
                var header = 8
                if size == 1 {
                    guard offset + 16 <= range.upperBound, let large = integer(data, offset + 8, 8) else { break }
                    size = large
                    header = 16
                } else if size == 0 {
                    size = Int64(range.upperBound - offset)
                }
                guard size >= Int64(header), Int64(offset) + size <= Int64(range.upperBound) else { break }
                let type = String(decoding: data[offset + 4..<offset + 8], as: UTF8.self)
                found.append((type, offset + header..<offset + Int(size)))
                offset += Int(size)
            }
            return found
        }

        /// The body of the first top-level box of `type`, read whole (up to 64 MiB).
        private static func findTopLevelBox(_ type: String, in source: ByteSource) -> [UInt8]? {
            guard let box = topLevelBox(type, in: source) else { return nil }
            guard box.bodySize > 0, box.bodySize <= 64 << 20 else { return nil }
            var body = [UInt8](repeating: 0, count: Int(box.bodySize))
            source.seek(box.bodyOffset, whence: SEEK_SET)
            let read = body.withUnsafeMutableBytes { source.readFully(into: $0) }
            return read == body.count ? body : nil
        }

        /// True for an MP4 (`ftyp` first) with no `moov` box: nothing says where its samples are.
        static func lacksIndex(_ source: ByteSource) -> Bool {
            var head = [UInt8](repeating: 0, count: 8)
            source.seek(0, whence: SEEK_SET)
            guard head.withUnsafeMutableBytes({ source.readFully(into: $0) }) == 8,
                  Array(head[4..<8]) == Array("ftyp".utf8) else { return false }
            return topLevelBox("moov", in: source) == nil
        }

        /// Walks the top-level box headers to the first box of `type`.
        private static func topLevelBox(_ type: String, in source: ByteSource) -> (bodyOffset: Int64, bodySize: Int64)? {
            var offset: Int64 = 0
            for _ in 0..<4096 {
                var header = [UInt8](repeating: 0, count: 16)
                source.seek(offset, whence: SEEK_SET)
                let got = header.withUnsafeMutableBytes { source.readFully(into: $0) }
                guard got >= 8, var size = integer(header, 0, 4) else { return nil }
                var headerSize: Int64 = 8
                if size == 1 {
                    guard got >= 16, let large = integer(header, 8, 8) else { return nil }
                    size = large
                    headerSize = 16
                }
                if String(decoding: header[4..<8], as: UTF8.self) == type {
                    let bodySize = size == 0 ? (source.size ?? 0) - offset - headerSize : size - headerSize
                    return (offset + headerSize, bodySize)
                }
                guard size >= headerSize else { return nil }
                offset += size
            }
            return nil
        }

        /// A big-endian unsigned integer of `width` bytes at `offset`, nil past the end.
        private static func integer(_ data: [UInt8], _ offset: Int, _ width: Int) -> Int64? {
            guard offset >= 0, offset + width <= data.count else { return nil }
            var value: UInt64 = 0
            for byte in data[offset..<offset + width] { value = value << 8 | UInt64(byte) }
            return Int64(bitPattern: value)
        }
    }
}
