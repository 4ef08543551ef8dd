import COpusEnc
import XZAudio

/// Ogg Opus through libopusenc (MPD's `encoder "opus"`): float PCM at the source's rate (libopusenc
/// resamples to 48 kHz itself), a chained logical stream with TITLE/ARTIST/ALBUM comments per song.
package final class OpusEncoder: AudioEncoder {
    package var kind: EncoderKind { .opus }
    package var mimeType: String { "audio/ogg" }
    package var carriesTags: Bool { true }

    /// At most this much audio (48 kHz samples) waits in libopusenc before a page goes out: 250 ms, about
    /// the 4 KiB pages libogg gives MPD's own Opus encoder at its usual bit rates.
    static let pageDelay: Int32 = 12_000
    /// How far ahead libopusenc looks before it encodes (its default, 2 s, suits files): 100 ms.
    static let decisionDelay: Int32 = 4_800

    private let bitrate: Int32
    private let complexity: Int32
    private let signal: Int32
    private let vbr: Int32
    private let vbrConstraint: Int32
    private let packetLoss: Int32

    private var encoder: OpaquePointer?
    private var rate = 0
    private var channels = 0
    /// Whether the current logical stream has audio (libopusenc 0.2.1 fails an assertion when it drains or
    /// chains after a stream given none).
    private var hasAudio = false
    private var pendingTag: StreamTag?
    private var output = EncodedOutput()
    package private(set) var streamHeader: [UInt8] = []
    /// The pages of a logical stream's header being written, until its comment page is complete.
    private var pendingHeader: [UInt8]?

    /// MPD's keys: `bitrate` (`auto`, `max` or 500…512000 bit/s), `complexity` (0…10), `signal`
    /// (`auto`, `voice`, `music`), `vbr` (`yes`, `no`, `constrained`), `packet_loss` (0…100 %).
    package init(settings: [String: String]) throws(EncoderError) {
        let settings = EncoderSettings(settings)
        switch settings["bitrate"] {
        case nil, "auto": bitrate = OPUS_AUTO
        case "max": bitrate = OPUS_BITRATE_MAX
        case let text?:
            guard let value = Int32(text), (500...512_000).contains(value) else {
                throw .badSetting("bitrate", "bitrate \(settings.quoted(text)) is not \"auto\", \"max\" or a number of bits per second from 500 to 512000")
            }
            bitrate = value
        }
        complexity = Int32(try settings.integer("complexity", in: 0...10) ?? 10)
        signal = try settings.word("signal", ["auto": OPUS_AUTO, "voice": OPUS_SIGNAL_VOICE, "music": OPUS_SIGNAL_MUSIC]) ?? OPUS_AUTO
        (vbr, vbrConstraint) = try settings.word("vbr", ["yes": (Int32(1), Int32(0)), "no": (0, 0), "constrained": (1, 1)]) ?? (1, 0)
        packetLoss = Int32(try settings.integer("packet_loss", in: 0...100) ?? 0)
    }

    deinit { close() }

    package func open(format: AudioFormat) throws(EncoderError) -> AudioFormat {
        close()
        // Mapping family 0 carries mono and stereo, family 1 up to 7.1; for more, stereo is asked for.
        let channels = (1...8).contains(format.channels) ? format.channels : 2
        guard format.sampleRate > 0 else { throw .failed("Opus cannot encode a sample rate of \(format.sampleRate) Hz") }
        // libopusenc resamples 8 to 192 kHz itself; a rate beyond is asked for at Opus's own 48 kHz.
        rate = (8_000...192_000).contains(format.sampleRate) ? format.sampleRate : 48_000
        self.channels = channels
        try start(StreamTag())
        return AudioFormat(sampleRate: rate, channels: channels, sample: .float32)
    }

    package func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) {
        guard encoder != nil else { throw .failed("Opus encoder: not open") }
        let frames = pcm.count / (channels * 4)
        guard frames > 0, let base = pcm.baseAddress else { return }
        if let tag = pendingTag {
            pendingTag = nil
            try chain(tag)
        }
        guard let encoder else { throw .failed("Opus encoder: not open") }
        // Whole calls of at most 2^20 frames keep the count inside libopusenc's int.
        var done = 0
        while done < frames {
            let count = min(frames - done, 1 << 20)
            try check(ope_encoder_write_float(encoder, (base + done * channels * 4).assumingMemoryBound(to: Float.self), Int32(count)))
            done += count
        }
        hasAudio = true
    }

    /// The tag waits for the next audio: libopusenc 0.2.1 fails assertions on a chained stream given no
    /// audio, and a later tag before any audio replaces it.
    package func sendTag(_ tag: StreamTag) throws(EncoderError) {
        guard encoder != nil else { return }
        pendingTag = tag
    }

    /// A logical stream with the tag's comments: chained after the current one, or, when the current one has
    /// no audio yet, in its place (a new encoder, as libopusenc cannot change a header it has written).
    private func chain(_ tag: StreamTag) throws(EncoderError) {
        guard let encoder, hasAudio else {
            destroyEncoder()
            return try start(tag)
        }
        let comments = try makeComments(tag)
        defer { ope_comments_destroy(comments) }
        try check(ope_encoder_chain_current(encoder, comments))
        hasAudio = false
    }

    /// A new encoder whose first logical stream carries `tag`, its header pages out at once so that
    /// `streamHeader` is there before any audio.
    private func start(_ tag: StreamTag) throws(EncoderError) {
        var callbacks = OpusEncCallbacks(
            write: { user, page, length in
                guard let user, let page else { return 1 }
                Unmanaged<OpusEncoder>.fromOpaque(user).takeUnretainedValue().pageWritten(page, Int(length))
                return 0
            },
            close: { _ in 0 })
        var error: Int32 = 0
        let comments = try makeComments(tag)
        defer { ope_comments_destroy(comments) }
        guard let encoder = ope_encoder_create_callbacks(&callbacks, Unmanaged.passUnretained(self).toOpaque(), comments,
                                                         Int32(rate), Int32(channels), channels > 2 ? 1 : 0, &error)
        else { throw .failed("Opus encoder: \(String(cString: ope_strerror(error)))") }
        self.encoder = encoder
        hasAudio = false
        for (request, value) in [(OPUS_SET_BITRATE_REQUEST, bitrate), (OPUS_SET_COMPLEXITY_REQUEST, complexity),
                                 (OPUS_SET_SIGNAL_REQUEST, signal), (OPUS_SET_VBR_REQUEST, vbr),
                                 (OPUS_SET_VBR_CONSTRAINT_REQUEST, vbrConstraint),
                                 (OPUS_SET_PACKET_LOSS_PERC_REQUEST, packetLoss),
                                 (OPE_SET_MUXING_DELAY_REQUEST, Self.pageDelay),
                                 (OPE_SET_DECISION_DELAY_REQUEST, Self.decisionDelay),
                                 // No room kept for editing the comments in place: a stream is never edited.
                                 (OPE_SET_COMMENT_PADDING_REQUEST, 0)] {
            try check(xz_ope_set_int(encoder, request, value))
        }
        try check(ope_encoder_flush_header(encoder))
    }

    private func makeComments(_ tag: StreamTag) throws(EncoderError) -> OpaquePointer {
        guard let comments = ope_comments_create() else { throw .failed("Opus encoder: out of memory") }
        for (name, value) in tag.vorbisComments {
            let status = ope_comments_add(comments, name, value)
            guard status == OPE_OK else {
                ope_comments_destroy(comments)
                throw .failed("Opus encoder: \(String(cString: ope_strerror(status)))")
            }
        }
        return comments
    }

    /// libopusenc has no call that ends a page early; the page delay set at `open` bounds how long audio waits.
    package func flush() throws(EncoderError) {}

    package func close() {
        guard let encoder else { return }
        if hasAudio { _ = ope_encoder_drain(encoder) }
        destroyEncoder()
        pendingTag = nil
    }

    private func destroyEncoder() {
        guard let encoder else { return }
        ope_encoder_destroy(encoder)
        self.encoder = nil
        pendingHeader = nil
    }

    package func takeOutput() -> [UInt8] { output.take() }

    /// A page from libopusenc. A stream's header is its first page (flagged "beginning of stream") and the
    /// pages up to the one that completes its comment packet (granule position 0); the header of a chained
    /// stream replaces `streamHeader` when it comes out, ahead of that stream's audio.
    private func pageWritten(_ page: UnsafePointer<UInt8>, _ length: Int) {
        output.append(page, count: length)
        guard length >= 27 else { return }
        let granule = (6..<14).reduce(UInt64(0)) { $0 | UInt64(page[$1]) << (8 * UInt64($1 - 6)) }
        let pageBytes = UnsafeBufferPointer(start: page, count: length)
        if page[5] & 0x02 != 0 {
            pendingHeader = Array(pageBytes)
        } else if pendingHeader != nil {
            pendingHeader! += pageBytes
            if granule == 0 {
                streamHeader = pendingHeader!
                pendingHeader = nil
            } else if granule != UInt64.max {
                pendingHeader = nil
            }
        }
    }

    private func check(_ result: Int32) throws(EncoderError) {
        guard result == OPE_OK else { throw .failed("Opus encoder: \(String(cString: ope_strerror(result)))") }
    }
}
