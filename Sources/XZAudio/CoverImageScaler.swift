import CFFmpegLoader
#if canImport(Glibc)
import Glibc
#endif

/// A cover picture fitted within a square, through FFmpeg's image decoders, its scaler and its JPEG
/// encoder (the libraries the audio decoders already use; no image library of its own).
///
/// What comes out: the picture's own bytes when it already fits and is a JPEG or PNG (nothing is lost);
/// otherwise a JPEG, whatever came in (PNG, WebP, GIF, BMP): clients show JPEG everywhere, and a cover's
/// transparency, if any, is dropped.
package enum CoverImageScaler {
    package struct Image: Sendable, Equatable {
        package var bytes: [UInt8]
        package var mimeType: String
        package var width: Int
        package var height: Int
    }

    /// A side longer than this is no cover: its picture is refused before its pixels are allocated.
    package static let largestSide = 16384

    /// The picture in `data` fitted within `size`×`size`, keeping its aspect ratio; never enlarged.
    /// `size` nil keeps the picture's own size. Throws `AudioError.unsupportedFormat` for bytes that are no
    /// known picture, `.damaged` for a picture that does not decode whole, `.libraryFailed` without FFmpeg.
    package static func fit(_ data: [UInt8], within size: Int?) throws -> Image {
        guard let format = Format(data) else {
            throw AudioError.unsupportedFormat("not a JPEG, PNG, WebP, GIF or BMP picture", file: "cover art")
        }
        guard let av = xz_ffmpeg_image_load()?.pointee else {
            throw AudioError.libraryFailed(String(cString: xz_ffmpeg_image_error()!), file: "cover art")
        }
        let frame = try decode(data, format: format, av: av)
        defer { var pointer: UnsafeMutablePointer<AVFrame>? = frame; av.av_frame_free(&pointer) }
        let width = Int(frame.pointee.width), height = Int(frame.pointee.height)
        let (targetWidth, targetHeight) = fitted(width: width, height: height, within: size)
        if targetWidth == width, targetHeight == height, let mimeType = format.keptMimeType {
            return Image(bytes: data, mimeType: mimeType, width: width, height: height)
        }
        let bytes = try encodeJPEG(frame, width: targetWidth, height: targetHeight, av: av)
        return Image(bytes: bytes, mimeType: "image/jpeg", width: targetWidth, height: targetHeight)
    }

    /// Dimensions within `size`×`size` with the aspect ratio kept, each at least 1.
    package static func fitted(width: Int, height: Int, within size: Int?) -> (Int, Int) {
        let longest = max(width, height)
        guard let size, size > 0, size < longest else { return (width, height) }
        let scaled = { (side: Int) in max(1, (side * size + longest / 2) / longest) }
        return (scaled(width), scaled(height))
    }

    /// The picture formats recognised by their first bytes.
    enum Format {
        case jpeg, png, webp, gif, bmp

        init?(_ data: [UInt8]) {
            func starts(_ prefix: [UInt8], at offset: Int = 0) -> Bool {
                data.count >= offset + prefix.count && Array(data[offset..<offset + prefix.count]) == prefix
            }
            if starts([0xFF, 0xD8, 0xFF]) { self = .jpeg }
            else if starts([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { self = .png }
            else if starts(Array("RIFF".utf8)) && starts(Array("WEBP".utf8), at: 8) { self = .webp }
            else if starts(Array("GIF8".utf8)) { self = .gif }
            else if starts(Array("BM".utf8)) && data.count > 26 { self = .bmp }
            else { return nil }
        }

        var codec: AVCodecID {
            switch self {
            case .jpeg: AV_CODEC_ID_MJPEG
            case .png: AV_CODEC_ID_PNG
            case .webp: AV_CODEC_ID_WEBP
            case .gif: AV_CODEC_ID_GIF
            case .bmp: AV_CODEC_ID_BMP
            }
        }

        /// The type a picture of this format is sent as unchanged; nil when it is always re-encoded.
        var keptMimeType: String? {
            switch self {
            case .jpeg: "image/jpeg"
            case .png: "image/png"
            default: nil
            }
        }
    }

    private static let errorAgain = -EAGAIN

    /// The first frame of the picture. The decoder refuses more than `largestSide`² pixels before
    /// allocating them, and stops at the first damage instead of hiding it.
    private static func decode(_ data: [UInt8], format: Format, av: xz_ffmpeg_image) throws -> UnsafeMutablePointer<AVFrame> {
        guard let codec = av.avcodec_find_decoder(format.codec) else {
            throw AudioError.unsupportedFormat("FFmpeg has no \(format) decoder", file: "cover art")
        }
        guard let context = av.avcodec_alloc_context3(codec) else { throw AudioError.libraryFailed("out of memory", file: "cover art") }
        defer { var pointer: UnsafeMutablePointer<AVCodecContext>? = context; av.avcodec_free_context(&pointer) }
        context.pointee.max_pixels = Int64(largestSide) * Int64(largestSide)
        context.pointee.err_recognition |= AV_EF_EXPLODE | AV_EF_CRCCHECK | AV_EF_BITSTREAM
        context.pointee.thread_count = 1
        guard av.avcodec_open2(context, codec, nil) >= 0 else { throw AudioError.libraryFailed("cannot open the \(format) decoder", file: "cover art") }

        guard let packet = av.av_packet_alloc() else { throw AudioError.libraryFailed("out of memory", file: "cover art") }
        defer { var pointer: UnsafeMutablePointer<AVPacket>? = packet; av.av_packet_free(&pointer) }
        // The decoder reads up to the padding past the bytes; it must be zero.
        let padding = Int(AV_INPUT_BUFFER_PADDING_SIZE)
        guard data.count < Int(Int32.max) - padding, let buffer = av.av_malloc(data.count + padding) else {
            throw AudioError.libraryFailed("out of memory", file: "cover art")
        }
        let bytes = buffer.assumingMemoryBound(to: UInt8.self)
        data.withUnsafeBufferPointer { bytes.update(from: $0.baseAddress!, count: data.count) }
        (bytes + data.count).initialize(repeating: 0, count: padding)
        guard av.av_packet_from_data(packet, bytes, Int32(data.count)) >= 0 else {
            av.av_free(buffer)
            throw AudioError.libraryFailed("out of memory", file: "cover art")
        }

        guard let frame = av.av_frame_alloc() else { throw AudioError.libraryFailed("out of memory", file: "cover art") }
        var keep = false
        defer { if !keep { var pointer: UnsafeMutablePointer<AVFrame>? = frame; av.av_frame_free(&pointer) } }
        let damaged = AudioError.damaged("the picture is damaged or too large", file: "cover art")
        var sent = av.avcodec_send_packet(context, packet)
        guard sent >= 0 || sent == errorAgain else { throw damaged }
        var received = av.avcodec_receive_frame(context, frame)
        if received == errorAgain {
            // Decoders that hold a frame back give it on the flush.
            sent = av.avcodec_send_packet(context, nil)
            received = av.avcodec_receive_frame(context, frame)
        }
        guard received >= 0, frame.pointee.decode_error_flags == 0,
              (1...largestSide).contains(Int(frame.pointee.width)), (1...largestSide).contains(Int(frame.pointee.height)),
              frame.pointee.format >= 0 else { throw damaged }
        keep = true
        return frame
    }

    /// The frame scaled to `width`×`height` and encoded as a baseline JPEG.
    private static func encodeJPEG(_ frame: UnsafeMutablePointer<AVFrame>, width: Int, height: Int, av: xz_ffmpeg_image) throws -> [UInt8] {
        let failed = AudioError.libraryFailed("cannot encode the picture as JPEG", file: "cover art")
        guard let scaled = av.av_frame_alloc() else { throw failed }
        defer { var pointer: UnsafeMutablePointer<AVFrame>? = scaled; av.av_frame_free(&pointer) }
        // Full-range 4:2:0, what JPEG holds and every viewer reads.
        let target = AV_PIX_FMT_YUVJ420P
        scaled.pointee.width = Int32(width)
        scaled.pointee.height = Int32(height)
        scaled.pointee.format = target.rawValue
        guard av.av_frame_get_buffer(scaled, 0) >= 0 else { throw failed }
        guard let scaler = av.sws_getContext(frame.pointee.width, frame.pointee.height, AVPixelFormat(frame.pointee.format),
                                             Int32(width), Int32(height), target, SWS_AREA | SWS_ACCURATE_RND, nil, nil, nil) else {
            throw AudioError.unsupportedFormat("the picture's pixel format cannot be converted", file: "cover art")
        }
        defer { av.sws_freeContext(scaler) }
        let rows = withUnsafePointer(to: &frame.pointee.data) { source in
            withUnsafePointer(to: &frame.pointee.linesize) { sourceStrides in
                withUnsafePointer(to: &scaled.pointee.data) { target in
                    withUnsafePointer(to: &scaled.pointee.linesize) { targetStrides in
                        source.withMemoryRebound(to: UnsafePointer<UInt8>?.self, capacity: 8) { source in
                            target.withMemoryRebound(to: UnsafeMutablePointer<UInt8>?.self, capacity: 8) { target in
                                sourceStrides.withMemoryRebound(to: Int32.self, capacity: 8) { sourceStrides in
                                    targetStrides.withMemoryRebound(to: Int32.self, capacity: 8) { targetStrides in
                                        av.sws_scale(scaler, source, sourceStrides, 0, frame.pointee.height, target, targetStrides)
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        guard rows == Int32(height) else { throw failed }

        guard let codec = av.avcodec_find_encoder(AV_CODEC_ID_MJPEG),
              let context = av.avcodec_alloc_context3(codec) else { throw failed }
        defer { var pointer: UnsafeMutablePointer<AVCodecContext>? = context; av.avcodec_free_context(&pointer) }
        context.pointee.width = Int32(width)
        context.pointee.height = Int32(height)
        context.pointee.pix_fmt = target
        context.pointee.time_base = AVRational(num: 1, den: 1)
        context.pointee.thread_count = 1
        // A fixed quantiser: quality 3 of FFmpeg's 2 (best) … 31 scale, the size of a typical cover JPEG.
        context.pointee.flags |= AV_CODEC_FLAG_QSCALE
        let quality = FF_QP2LAMBDA * 3
        context.pointee.global_quality = quality
        scaled.pointee.quality = quality
        scaled.pointee.pts = 0
        guard av.avcodec_open2(context, codec, nil) >= 0 else { throw failed }
        guard av.avcodec_send_frame(context, scaled) >= 0 else { throw failed }
        _ = av.avcodec_send_frame(context, nil)
        guard let packet = av.av_packet_alloc() else { throw failed }
        defer { var pointer: UnsafeMutablePointer<AVPacket>? = packet; av.av_packet_free(&pointer) }
        guard av.avcodec_receive_packet(context, packet) >= 0, let data = packet.pointee.data, packet.pointee.size > 0 else {
            throw failed
        }
        return Array(UnsafeBufferPointer(start: data, count: Int(packet.pointee.size)))
    }
}
