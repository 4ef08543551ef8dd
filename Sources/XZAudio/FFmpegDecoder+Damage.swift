extension FFmpegDecoder {
    /// The shared damage log, fed once per damaged packet.
    struct DamageTracker {
        var log = DamageLog()
        /// Byte offsets of packets already counted, so decoding them again after a seek adds nothing.
        private var packets: Set<Int64> = []
        private(set) var lastError: Int32?

        mutating func note(position: Int, packet: Int64?, error: Int32?) {
            if let error { lastError = error }
            if let packet, packet >= 0, !packets.insert(packet).inserted { return }
            log.note(atSample: position)
        }
    }
}
