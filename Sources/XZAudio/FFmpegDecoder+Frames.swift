import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Frames out of the decoder, packet by packet, and the part of each that is audio to hand out.
extension FFmpegDecoder {
    enum FrameResult {
        case frame
        /// A packet or frame that did not decode; decoding carries on.
        case failed(Int32)
        /// The end of the stream, with the reading error that ended it if it was not a clean end.
        case end(Int32?)
    }

    /// The next decoded frame into `file.frame`, reading packets as the decoder asks for them.
    static func nextFrame(_ file: OpenedFile, source: ByteSource, name: String, position: Int,
                                  damage: inout DamageTracker) throws -> FrameResult {
        let codec = file.codec.pointer
        let frame = file.frame.pointer
        let packet = file.packet.pointer
        while true {
            let received = libav.avcodec_receive_frame(codec, frame)
            if received == 0 { return .frame }
            if received == errorEndOfFile { return .end(file.readError) }
            if received != -EAGAIN {
                damage.note(position: position, packet: file.lastPacketPosition, error: received)
                return .failed(received)
            }
            let read = libav.av_read_frame(file.container.pointer, packet)
            if read < 0 {
                if let failure = source.failure { throw failure }
                if read != errorEndOfFile {
                    file.readError = read
                    // Demuxers step past a bad packet; one that keeps failing, or a broken file, ends the stream.
                    file.readFailures += 1
                    let atEnd = file.container.pointer.pointee.pb.map { $0.pointee.eof_reached != 0 } ?? true
                    if !atEnd && file.readFailures < 32 && read != -EIO {
                        damage.note(position: position, packet: nil, error: read)
                        continue
                    }
                }
                // Starts draining the decoder; an error only says it already is.
                _ = libav.avcodec_send_packet(codec, nil)
                continue
            }
            defer { libav.av_packet_unref(packet) }
            guard packet.pointee.stream_index == file.streamIndex else { continue }
            file.readFailures = 0
            file.lastPacketPosition = packet.pointee.pos
            if packet.pointee.flags & AV_PKT_FLAG_CORRUPT != 0 {
                damage.note(position: position, packet: packet.pointee.pos, error: nil)
            }
            let sent = libav.avcodec_send_packet(codec, packet)
            if sent < 0 && sent != -EAGAIN && sent != errorEndOfFile {
                damage.note(position: position, packet: packet.pointee.pos, error: sent)
            }
        }
    }

    /// A frame's timestamp in stream time-base units: its own, else where the previous frame ended.
    static func frameTimestamp(_ frame: UnsafeMutablePointer<AVFrame>, expected: Int64?) -> Int64? {
        let own = frame.pointee.pts != noTimestamp ? frame.pointee.pts : frame.pointee.best_effort_timestamp
        return own != noTimestamp ? own : expected
    }

    /// The samples of one frame to hand out.
    struct Chunk {
        let first: Int
        let count: Int
        let frameSamples: Int
        let timestamp: Int64?
        let reachesEnd: Bool

        func dropping(_ samples: Int) -> Chunk {
            Chunk(first: first + samples, count: count - samples, frameSamples: frameSamples, timestamp: timestamp,
                  reachesEnd: reachesEnd)
        }
    }

    /// The part of `frame` inside the timeline (when it clips) and at or after `target` (a seek's, in
    /// time-base units); nil when none of it is.
    static func clip(_ frame: UnsafeMutablePointer<AVFrame>, timestamp: Int64?, timeline: Timeline,
                             target: Int64?) -> Chunk? {
        let total = Int(frame.pointee.nb_samples)
        guard total > 0 else { return nil }
        var first = 0
        var end = total
        var reachesEnd = false
        if let timestamp {
            let rate = AVRational(num: 1, den: frame.pointee.sample_rate > 0 ? frame.pointee.sample_rate : 1)
            let offset = { (pts: Int64) in Int(libav.av_rescale_q(pts - timestamp, timeline.timeBase, rate)) }
            if timeline.clips {
                first = max(first, offset(timeline.start))
                if let stop = timeline.end, offset(stop) <= end {
                    end = max(0, offset(stop))
                    reachesEnd = true
                }
            }
            if let target { first = max(first, offset(target)) }
        }
        first = min(max(first, 0), total)
        guard end > first else { return nil }
        return Chunk(first: first, count: end - first, frameSamples: total, timestamp: timestamp, reachesEnd: reachesEnd)
    }
}
