import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The FFmpeg handles one decoding owns, each freed in deinit, and how a frame's samples are laid out.
extension FFmpegDecoder {
    /// Where each channel's samples lie in a frame, planar or packed.
    struct PlaneLayout {
        /// The frame's `extended_data`: one plane per channel when planar, else one.
        let planes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>
        let planar: Bool
        let channels: Int
        let first: Int
        let count: Int

        func plane(_ index: Int) -> UnsafeRawPointer { UnsafeRawPointer(planes[index]!) }

        /// The plane and sample index of `sample` (from `first`) of `channel`.
        func place(channel: Int, sample: Int) -> (UnsafeRawPointer, Int) {
            planar ? (plane(channel), first + sample) : (plane(0), (first + sample) * channels + channel)
        }

        func interleave<Source, Target>(_: Source.Type, into out: UnsafeMutableRawPointer, _ convert: (Source) -> Target) {
            let target = out.bindMemory(to: Target.self, capacity: count * channels)
            if planar && channels == 2 {
                // Stereo, the usual case: both planes in one pass, writing the output in order.
                let left = plane(0).assumingMemoryBound(to: Source.self) + first
                let right = plane(1).assumingMemoryBound(to: Source.self) + first
                for i in 0..<count {
                    target[2 * i] = convert(left[i])
                    target[2 * i + 1] = convert(right[i])
                }
            } else if planar {
                for channel in 0..<channels {
                    let source = plane(channel).assumingMemoryBound(to: Source.self) + first
                    for i in 0..<count { target[i * channels + channel] = convert(source[i]) }
                }
            } else {
                let source = plane(0).assumingMemoryBound(to: Source.self) + first * channels
                for i in 0..<count * channels { target[i] = convert(source[i]) }
            }
        }
    }

    /// libavformat's reader over a `ByteSource`: reads and seeks go to the source, whose size answers AVSEEK_SIZE.
    final class IOContext {
        let pointer: UnsafeMutablePointer<AVIOContext>
        /// Reached from C through an unretained pointer; held here so it outlives the context.
        let source: ByteSource

        init(source: ByteSource, name: String) throws {
            self.source = source
            let size = 65536
            guard let buffer = libav.av_malloc(size) else { throw AudioError.libraryFailed("out of memory", file: name) }
            let read: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int32) -> Int32 = { opaque, buffer, size in
                let source = Unmanaged<ByteSource>.fromOpaque(opaque!).takeUnretainedValue()
                let got = source.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: Int(size)))
                return got > 0 ? Int32(got) : got == 0 ? FFmpegDecoder.errorEndOfFile : -EIO
            }
            let seek: @convention(c) (UnsafeMutableRawPointer?, Int64, Int32) -> Int64 = { opaque, offset, whence in
                let source = Unmanaged<ByteSource>.fromOpaque(opaque!).takeUnretainedValue()
                if whence & AVSEEK_SIZE != 0 { return source.size ?? -1 }
                return source.seek(offset, whence: whence & ~AVSEEK_FORCE) ?? Int64(-EINVAL)
            }
            let opaque = Unmanaged.passUnretained(source).toOpaque()
            guard let context = libav.avio_alloc_context(buffer.assumingMemoryBound(to: UInt8.self), Int32(size), 0,
                                                   opaque, read, nil, seek) else {
                libav.av_free(buffer)
                throw AudioError.libraryFailed("out of memory", file: name)
            }
            pointer = context
        }

        deinit {
            libav.av_free(pointer.pointee.buffer)  // libavformat may have replaced the one given
            var context: UnsafeMutablePointer<AVIOContext>? = pointer
            libav.avio_context_free(&context)
        }
    }

    final class FormatContext {
        let pointer: UnsafeMutablePointer<AVFormatContext>
        /// Kept alive until the format context is closed.
        let io: IOContext

        init(io: IOContext, name: String) throws {
            self.io = io
            guard var context = libav.avformat_alloc_context() else { throw AudioError.libraryFailed("out of memory", file: name) }
            context.pointee.pb = io.pointer
            // FFmpeg's default reads up to 5 MB looking for streams hidden in PCM (DTS or AC-3 in a WAV),
            // running every demuxer's probe over it: most of a folder scan's time. A WAV or AIFF header says
            // all there is; other containers get enough for their first packets.
            context.pointee.probesize = Self.headerSaysAll(io.source) ? 4096 : 64 * 1024
            var opened: UnsafeMutablePointer<AVFormatContext>? = context
            let code = libav.avformat_open_input(&opened, name, nil, nil)
            guard code >= 0, let opened else {
                // avformat_open_input freed the context.
                if let failure = io.source.failure { throw failure }
                if MP4Timing.lacksIndex(io.source) {
                    throw AudioError.damaged("MP4 file without its index (moov box): it is probably cut short", file: name)
                }
                throw AudioError.unsupportedFormat("not an audio file FFmpeg can read (\(FFmpegDecoder.describe(code)))", file: name)
            }
            context = opened
            pointer = context
        }

        deinit {
            var context: UnsafeMutablePointer<AVFormatContext>? = pointer
            libav.avformat_close_input(&context)  // leaves the custom AVIOContext to IOContext
        }

        /// A RIFF (WAV) or IFF (AIFF) file, whose header gives the whole PCM format.
        private static func headerSaysAll(_ source: ByteSource) -> Bool {
            var magic = [UInt8](repeating: 0, count: 4)
            let start = source.position
            let got = magic.withUnsafeMutableBytes { source.readFully(into: $0) }
            source.seek(start, whence: SEEK_SET)
            return got == 4 && (magic == Array("RIFF".utf8) || magic == Array("FORM".utf8) || magic == Array("RF64".utf8))
        }
    }

    final class CodecContext {
        let pointer: UnsafeMutablePointer<AVCodecContext>

        init(pointer: UnsafeMutablePointer<AVCodecContext>) { self.pointer = pointer }

        deinit {
            var context: UnsafeMutablePointer<AVCodecContext>? = pointer
            libav.avcodec_free_context(&context)
        }
    }

    final class Packet {
        let pointer: UnsafeMutablePointer<AVPacket>

        init() throws {
            guard let packet = libav.av_packet_alloc() else { throw AudioError.libraryFailed("out of memory", file: "") }
            pointer = packet
        }

        deinit {
            var packet: UnsafeMutablePointer<AVPacket>? = pointer
            libav.av_packet_free(&packet)
        }
    }

    final class Frame {
        let pointer: UnsafeMutablePointer<AVFrame>

        init() throws {
            guard let frame = libav.av_frame_alloc() else { throw AudioError.libraryFailed("out of memory", file: "") }
            pointer = frame
        }

        deinit {
            var frame: UnsafeMutablePointer<AVFrame>? = pointer
            libav.av_frame_free(&frame)
        }
    }

    /// One opening of the file: the container, its best audio stream and that stream's decoder.
    final class OpenedFile {
        let container: FormatContext
        let stream: UnsafeMutablePointer<AVStream>
        let streamIndex: Int32
        private var codecContext: CodecContext?
        let packet: Packet
        let frame: Frame
        var readError: Int32?
        var readFailures = 0
        var lastPacketPosition: Int64 = -1

        var codec: CodecContext { codecContext! }

        init(source: ByteSource, name: String) throws {
            container = try FormatContext(io: IOContext(source: source, name: name), name: name)
            let context = container.pointer
            let infoCode = libav.avformat_find_stream_info(context, nil)
            if infoCode < 0 {
                if let failure = source.failure { throw failure }
                throw AudioError.unsupportedFormat("not an audio file FFmpeg can read (\(FFmpegDecoder.describe(infoCode)))", file: name)
            }
            let index = libav.av_find_best_stream(context, AVMEDIA_TYPE_AUDIO, -1, -1, nil, 0)
            guard index >= 0, let stream = context.pointee.streams[Int(index)] else {
                throw AudioError.unsupportedFormat("no audio stream in this \(String(cString: context.pointee.iformat.pointee.long_name ?? context.pointee.iformat.pointee.name)) file", file: name)
            }
            for other in 0..<Int(context.pointee.nb_streams) where other != Int(index) {
                context.pointee.streams[other]?.pointee.discard = AVDISCARD_ALL
            }
            self.stream = stream
            streamIndex = index
            packet = try Packet()
            frame = try Frame()
        }

        /// `manualSkip`: the decoder leaves encoder delay in place (the caller trims by timestamps).
        func openDecoder(manualSkip: Bool, name: String) throws {
            let parameters = stream.pointee.codecpar!
            let codecName = FFmpegDecoder.codecName(parameters.pointee.codec_id)
            guard let decoder = libav.avcodec_find_decoder(parameters.pointee.codec_id) else {
                throw AudioError.unsupportedFormat("cannot decode \(codecName) audio: this FFmpeg has no decoder for it", file: name)
            }
            guard let pointer = libav.avcodec_alloc_context3(decoder) else { throw AudioError.libraryFailed("out of memory", file: name) }
            let context = CodecContext(pointer: pointer)
            var code = libav.avcodec_parameters_to_context(pointer, parameters)
            if code >= 0 {
                pointer.pointee.pkt_timebase = stream.pointee.time_base
                if manualSkip { pointer.pointee.flags2 |= AV_CODEC_FLAG2_SKIP_MANUAL }
                code = libav.avcodec_open2(pointer, decoder, nil)
            }
            guard code >= 0 else {
                throw AudioError.damaged("cannot decode \(codecName) audio: \(FFmpegDecoder.describe(code))", file: name)
            }
            codecContext = context
        }
    }
}
