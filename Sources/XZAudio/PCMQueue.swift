/// Decoded bytes waiting to be handed out: libraries that decode a whole block at a time (libFLAC's write
/// callback, libvorbisfile's and libopusfile's reads) interleave into it, and `read(into:)` drains it.
final class PCMQueue {
    private var storage: UnsafeMutableRawPointer
    private var capacity: Int
    private var start = 0
    private var end = 0

    init(capacity: Int = 1 << 16) {
        self.capacity = capacity
        storage = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
    }

    deinit { storage.deallocate() }

    var count: Int { end - start }
    var isEmpty: Bool { start == end }

    func removeAll() {
        start = 0
        end = 0
    }

    /// Room for `bytes` more at the end; write into it, then `commit` what was written.
    func reserve(_ bytes: Int) -> UnsafeMutableRawPointer {
        if start == end {
            start = 0
            end = 0
        }
        if end + bytes > capacity {
            let live = end - start
            if live + bytes > capacity {
                capacity = max(capacity * 2, live + bytes)
                let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 16)
                grown.copyMemory(from: storage + start, byteCount: live)
                storage.deallocate()
                storage = grown
            } else {
                (storage).copyMemory(from: storage + start, byteCount: live)
            }
            start = 0
            end = live
        }
        return storage + end
    }

    func commit(_ bytes: Int) {
        end += bytes
    }

    /// Moves up to `buffer.count` bytes out; returns how many.
    func drain(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        let n = min(count, buffer.count)
        guard n > 0, let base = buffer.baseAddress else { return 0 }
        base.copyMemory(from: storage + start, byteCount: n)
        start += n
        return n
    }

    /// Drops `bytes` from the front (a seek landing inside a decoded block).
    func dropFirst(_ bytes: Int) {
        start += min(bytes, count)
    }
}
