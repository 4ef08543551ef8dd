import XZAudio

/// MPD's `wave` encoder: a RIFF/WAVE header whose lengths are left open (a stream has no end), then
/// signed 16-bit little-endian PCM as it comes.
package final class WaveEncoder: AudioEncoder {
    /// MPD's open length: large, and small enough that readers adding the header's size do not overflow.
    static let openDataLength: UInt32 = 0x0FFF_FFFF

    package let kind = EncoderKind.wave
    package let mimeType = "audio/wav"
    package let carriesTags = false
    package private(set) var streamHeader: [UInt8] = []
    private var output: [UInt8] = []

    /// WAVE has no settings of its own; MPD's keys of other encoders are ignored as MPD ignores them.
    package init(settings: [String: String] = [:]) throws(EncoderError) {}

    package func open(format: AudioFormat) throws(EncoderError) -> AudioFormat {
        guard (1...8).contains(format.channels), (1...384_000).contains(format.sampleRate) else {
            throw .badSetting("wave encoder: cannot take \(format.sampleRate) Hz with \(format.channels) channels")
        }
        let layout = format.with(sample: .s16)
        let channels = UInt16(layout.channels), rate = UInt32(layout.sampleRate)
        let blockAlign = channels * 2
        var header: [UInt8] = []
        header.reserveCapacity(44)
        func append32(_ value: UInt32) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        func append16(_ value: UInt16) { withUnsafeBytes(of: value.littleEndian) { header += $0 } }
        header += Array("RIFF".utf8)
        append32(Self.openDataLength + 36)
        header += Array("WAVEfmt ".utf8)
        append32(16)
        append16(1)  // PCM
        append16(channels)
        append32(rate)
        append32(rate * UInt32(blockAlign))
        append16(blockAlign)
        append16(16)
        header += Array("data".utf8)
        append32(Self.openDataLength)
        streamHeader = header
        output = header
        return layout
    }

    package func encode(_ pcm: UnsafeRawBufferPointer) throws(EncoderError) {
        #if _endian(big)
        for index in stride(from: 0, to: pcm.count - 1, by: 2) { output += [pcm[index + 1], pcm[index]] }
        #else
        output.append(contentsOf: pcm)
        #endif
    }

    package func sendTag(_ tag: StreamTag) throws(EncoderError) {}
    package func flush() throws(EncoderError) {}

    package func close() {
        streamHeader = []
        output = []
    }

    package func takeOutput() -> [UInt8] {
        defer { output = [] }
        return output
    }
}
