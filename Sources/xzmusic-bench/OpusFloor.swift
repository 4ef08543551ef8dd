import COpusFile
#if canImport(Glibc)
import Glibc
#endif

/// What libopusfile adds to libopus: the same file decoded whole through `op_read_float` (what the Opus
/// decoder uses) and through `opus_multistream_decode_float` over a bare libogg page reader (what MPD
/// does), CPU of this thread. Tells whether an Ogg layer of our own would pay.
enum OpusFloor {
    struct Run {
        let seconds: Double
        let samples: Int
    }

    static func throughOpusFile(_ path: String) -> Run? {
        var error: Int32 = 0
        guard let file = op_open_file(path, &error) else { return nil }
        defer { op_free(file) }
        let channels = Int(op_channel_count(file, -1))
        var buffer = [Float](repeating: 0, count: 5760 * max(channels, 1))
        let start = threadCPUSeconds()
        var samples = 0
        while true {
            let got = buffer.withUnsafeMutableBufferPointer { op_read_float(file, $0.baseAddress, Int32($0.count), nil) }
            if got == OP_HOLE { continue }
            if got <= 0 { break }
            samples += Int(got)
        }
        return Run(seconds: threadCPUSeconds() - start, samples: samples)
    }

    /// One link, channel mapping family 0 (mono or stereo), as the benchmark's file is.
    static func throughBareDecoder(_ path: String) -> Run? {
        guard let input = fopen(path, "rb") else { return nil }
        defer { fclose(input) }
        var sync = ogg_sync_state()
        var stream = ogg_stream_state()
        var page = ogg_page()
        var packet = ogg_packet()
        ogg_sync_init(&sync)
        defer { ogg_sync_clear(&sync) }
        var streamOpen = false
        defer { if streamOpen { ogg_stream_clear(&stream) } }
        var decoder: OpaquePointer?
        defer { if let decoder { opus_multistream_decoder_destroy(decoder) } }
        var channels = 0
        var packets = 0
        var output = [Float](repeating: 0, count: 5760 * 2)
        let start = threadCPUSeconds()
        var samples = 0
        while true {
            while ogg_sync_pageout(&sync, &page) == 1 {
                if !streamOpen {
                    ogg_stream_init(&stream, ogg_page_serialno(&page))
                    streamOpen = true
                }
                ogg_stream_pagein(&stream, &page)
                while ogg_stream_packetout(&stream, &packet) == 1 {
                    defer { packets += 1 }
                    if packets == 0 {
                        guard packet.bytes >= 19 else { return nil }
                        channels = Int(packet.packet[9])
                        guard (1...2).contains(channels) else { return nil }
                        var mapping: [UInt8] = [0, 1]
                        var error: Int32 = 0
                        decoder = opus_multistream_decoder_create(48000, Int32(channels), 1, Int32(channels - 1), &mapping, &error)
                        guard decoder != nil else { return nil }
                    } else if packets > 1, let decoder {
                        let got = opus_multistream_decode_float(decoder, packet.packet, Int32(packet.bytes), &output, 5760, 0)
                        if got > 0 { samples += Int(got) }
                    }
                }
            }
            guard let buffer = ogg_sync_buffer(&sync, 65536) else { return nil }
            let read = fread(buffer, 1, 65536, input)
            if read == 0 { break }
            ogg_sync_wrote(&sync, read)
        }
        return Run(seconds: threadCPUSeconds() - start, samples: samples)
    }

    private static func threadCPUSeconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }
}
