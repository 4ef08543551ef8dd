import CVorbisEnc
import XZAudio

/// Ogg Vorbis through libvorbisenc (MPD's `encoder "vorbis"`): float PCM at the source's rate and channels;
/// a new song ends the logical stream and starts another, with a new serial number and the tag's comments.
package final class VorbisEncoder: AudioEncoder {
    package var kind: EncoderKind { .vorbis }
    package var mimeType: String { "audio/ogg" }
    package var carriesTags: Bool { true }

    private let mode: QualityOrBitrate

    // libvorbis's states point at one another (the block at the DSP state, that at the info), so each has
    // an address of its own for the encoder's life.
    private let info = UnsafeMutablePointer<vorbis_info>.allocate(capacity: 1)
    private let dsp = UnsafeMutablePointer<vorbis_dsp_state>.allocate(capacity: 1)
    private let block = UnsafeMutablePointer<vorbis_block>.allocate(capacity: 1)
    private let ogg = UnsafeMutablePointer<ogg_stream_state>.allocate(capacity: 1)
    private var page = ogg_page()
    private var packet = ogg_packet()
    private var isOpen = false
    private var channels = 0

    private var output = EncodedOutput()
    package private(set) var streamHeader: [UInt8] = []

    /// MPD's keys: `quality` (-1…10, VBR; 3 when neither is set) or `bitrate` (kbit/s), not both.
    package init(settings: [String: String]) throws(EncoderError) {
        mode = try QualityOrBitrate.read(EncoderSettings(settings), quality: -1...10, qualityShown: "-1 to 10",
                                         maxBitrate: 1_000) ?? .quality(3)
    }

    deinit {
        close()
        info.deallocate(); dsp.deallocate(); block.deallocate(); ogg.deallocate()
    }

    package func open(format: AudioFormat) throws(EncoderError) -> AudioFormat {
        close()
        let channels = (1...255).contains(format.channels) ? format.channels : 2
        vorbis_info_init(info)
        let status: Int32
        switch mode {
        case .quality(let quality):
            status = vorbis_encode_init_vbr(info, channels, format.sampleRate, Float(quality / 10))
        case .bitrate(let kbits):
            status = vorbis_encode_init(info, channels, format.sampleRate, -1, kbits * 1000, -1)
        }
        guard status == 0 else {
            vorbis_info_clear(info)
            let setting: String
            switch mode {
            case .quality(let quality): setting = "quality \(quality)"
            case .bitrate(let kbits): setting = "\(kbits) kbit/s"
            }
            throw .failed("Vorbis cannot encode \(format.sampleRate) Hz, \(channels) channels at \(setting)")
        }
        self.channels = channels
        vorbis_analysis_init(dsp, info)
        vorbis_block_init(dsp, block)
        isOpen = true
        startStream(StreamTag())
        return AudioFormat(sampleRate: format.sampleRate, channels: channels, sample: .float32)
    }

    package func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) {
        guard isOpen else { throw .failed("Vorbis encoder: not open") }
        let frames = pcm.count / (channels * 4)
        guard frames > 0 else { return }
        let samples = pcm.bindMemory(to: Float.self)
        // libvorbis takes one buffer per channel: de-interleave in slices its int count holds.
        var done = 0
        while done < frames {
            let count = min(frames - done, 1 << 16)
            guard let planes = vorbis_analysis_buffer(dsp, Int32(count)) else { throw .failed("Vorbis encoder: out of memory") }
            for channel in 0..<channels {
                guard let plane = planes[channel] else { continue }
                var source = (done * channels) + channel
                for frame in 0..<count {
                    plane[frame] = samples[source]
                    source += channels
                }
            }
            vorbis_analysis_wrote(dsp, Int32(count))
            done += count
            packOutBlocks()
        }
        while ogg_stream_pageout(ogg, &page) != 0 { appendPage() }
    }

    package func sendTag(_ tag: StreamTag) throws(EncoderError) {
        guard isOpen else { return }
        endStream()
        startStream(tag)
    }

    package func flush() throws(EncoderError) {
        guard isOpen else { return }
        while ogg_stream_flush(ogg, &page) != 0 { appendPage() }
    }

    package func close() {
        guard isOpen else { return }
        finishStream()
        vorbis_info_clear(info)
        isOpen = false
    }

    package func takeOutput() -> [UInt8] { output.take() }

    /// Ends the logical stream (its last page marked end of stream) and makes the analysis state new, as the
    /// end-of-stream mark cannot be taken back.
    private func endStream() {
        finishStream()
        vorbis_analysis_init(dsp, info)
        vorbis_block_init(dsp, block)
    }

    /// The rest of the audio out, the last page marked end of stream, and the stream's state freed.
    private func finishStream() {
        vorbis_analysis_wrote(dsp, 0)
        packOutBlocks()
        while ogg_stream_flush(ogg, &page) != 0 { appendPage() }
        ogg_stream_clear(ogg)
        vorbis_block_clear(block)
        vorbis_dsp_clear(dsp)
    }

    /// A new logical stream: a new serial number and the three header packets, on pages of their own.
    private func startStream(_ tag: StreamTag) {
        ogg_stream_init(ogg, Int32(bitPattern: UInt32.random(in: 0...UInt32.max)))
        var comment = vorbis_comment()
        vorbis_comment_init(&comment)
        for (name, value) in tag.vorbisComments { vorbis_comment_add_tag(&comment, name, value) }
        var identification = ogg_packet(), comments = ogg_packet(), codebooks = ogg_packet()
        vorbis_analysis_headerout(dsp, &comment, &identification, &comments, &codebooks)
        ogg_stream_packetin(ogg, &identification)
        ogg_stream_packetin(ogg, &comments)
        ogg_stream_packetin(ogg, &codebooks)
        vorbis_comment_clear(&comment)
        var header: [UInt8] = []
        while ogg_stream_flush(ogg, &page) != 0 {
            header += pageBytes()
        }
        streamHeader = header
        output.append(header)
    }

    private func packOutBlocks() {
        while vorbis_analysis_blockout(dsp, block) == 1 {
            vorbis_analysis(block, nil)
            vorbis_bitrate_addblock(block)
            while vorbis_bitrate_flushpacket(dsp, &packet) == 1 {
                ogg_stream_packetin(ogg, &packet)
            }
        }
    }

    private func pageBytes() -> [UInt8] {
        Array(UnsafeBufferPointer(start: page.header, count: page.header_len))
            + UnsafeBufferPointer(start: page.body, count: page.body_len)
    }

    private func appendPage() {
        output.append(page.header, count: page.header_len)
        output.append(page.body, count: page.body_len)
    }
}
