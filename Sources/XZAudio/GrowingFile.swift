import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sorted, disjoint, non-adjacent byte ranges: which parts of a file are on disk.
package struct ByteRanges: Sendable, Equatable, CustomStringConvertible {
    package private(set) var ranges: [Range<Int64>] = []

    package init(_ ranges: [Range<Int64>] = []) {
        for range in ranges { insert(range) }
    }

    package mutating func insert(_ range: Range<Int64>) {
        guard !range.isEmpty else { return }
        var merged = range
        var kept: [Range<Int64>] = []
        kept.reserveCapacity(ranges.count + 1)
        for existing in ranges {
            if existing.upperBound < merged.lowerBound || existing.lowerBound > merged.upperBound {
                kept.append(existing)
            } else {
                merged = min(existing.lowerBound, merged.lowerBound) ..< max(existing.upperBound, merged.upperBound)
            }
        }
        let at = kept.firstIndex { $0.lowerBound > merged.lowerBound } ?? kept.count
        kept.insert(merged, at: at)
        ranges = kept
    }

    /// Forgets everything at and after `offset` (a writer cut the file there).
    package mutating func truncate(at offset: Int64) {
        ranges = ranges.compactMap { range in
            if range.lowerBound >= offset { return nil }
            return range.lowerBound ..< min(range.upperBound, offset)
        }
    }

    /// Bytes held without a gap from `offset` on; 0 when `offset` itself is missing.
    package func contiguous(from offset: Int64) -> Int64 {
        guard let range = ranges.first(where: { $0.contains(offset) }) else { return 0 }
        return range.upperBound - offset
    }

    /// The first missing byte at or after `offset` before `end`, nil when all of it is held.
    package func firstGap(from offset: Int64, before end: Int64) -> Int64? {
        let gap = offset + contiguous(from: offset)
        return gap < end ? gap : nil
    }

    package var heldBytes: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    package var description: String { ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",") }
}

/// A file that is still being written, read while it grows: a writer (a download) reports the byte ranges it
/// has put on disk, the total once known, and the end or a failure; readers get what is there and wait for
/// what is not. Thread-safe; readers block on their own thread (the audio thread), never the cooperative pool.
///
/// A stream of no announced length (internet radio) can instead be held in a bounded window in memory
/// (`useWindow`): the writer appends, the oldest bytes make room once the reader is past them, and the
/// writer waits (`whenRoom`) while the reader is a whole window behind. Nothing of it is on disk.
package final class GrowingFile: Sendable {
    /// A ring of the last `capacity` bytes of a stream; logical offset `o` is at `o % capacity`.
    private struct Window: Sendable {
        let capacity: Int
        var bytes: [UInt8]
        /// Logical bytes appended so far.
        var end: Int64 = 0
        /// The furthest byte a reader has read to.
        var readMark: Int64 = 0
        /// Set while the writer waits for the reader to make room.
        var roomWaiter: (@Sendable (Bool) -> Void)?

        init(capacity: Int) {
            self.capacity = capacity
            bytes = [UInt8](repeating: 0, count: capacity)
        }

        /// The first byte still held.
        var start: Int64 { max(0, end - Int64(capacity)) }

        /// Bytes that may be appended now: a quarter of the window stays behind the reader, for decoders
        /// that look back a little.
        var room: Int {
            let floor = max(0, readMark - Int64(capacity / 4))
            return max(0, capacity - Int(end - floor))
        }

        mutating func append(_ source: UnsafeRawBufferPointer) {
            var done = 0
            while done < source.count {
                let at = Int(end % Int64(capacity))
                let n = min(source.count - done, capacity - at)
                bytes.withUnsafeMutableBytes { ring in
                    ring.baseAddress!.advanced(by: at).copyMemory(from: source.baseAddress!.advanced(by: done), byteCount: n)
                }
                done += n
                end += Int64(n)
            }
        }

        /// Copies from `offset` (which is held) up to the ring's wrap point.
        func copy(from offset: Int64, into buffer: UnsafeMutableRawBufferPointer) -> Int {
            let at = Int(offset % Int64(capacity))
            let n = min(buffer.count, Int(end - offset), capacity - at)
            bytes.withUnsafeBytes { ring in
                buffer.baseAddress!.copyMemory(from: ring.baseAddress!.advanced(by: at), byteCount: n)
            }
            return n
        }
    }

    private struct State: Sendable {
        var window: Window?
        var held = ByteRanges()
        var total: Int64?
        var complete = false
        var failure: String?
        /// Opened as soon as there are bytes, so a rename of the finished file cannot take them from readers.
        var descriptor: Int32 = -1
        var wanted: (@Sendable (Int64) -> Void)?
        var lastWant: Int64?
        var released: (@Sendable () -> Void)?
        /// The reader let go.
        var letGo = false
        var arrived: (@Sendable () -> Void)?
        /// What the stream said of itself, in force where the reader is; and what it said further on.
        var tags: StreamTags?
        var pendingTags: [(offset: Int64, tags: StreamTags)] = []

        /// Where the writer's next byte goes.
        var writeEnd: Int64 { window?.end ?? held.ranges.last?.upperBound ?? 0 }

        /// The descriptor, opened on first need; -1 while the file cannot be opened.
        mutating func openDescriptor(_ path: String) -> Int32 {
            if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
            return descriptor
        }
    }

    package let path: String
    private let state: Monitor<State>
    private let createdNs = DispatchTime.now().uptimeNanoseconds

    package init(path: String) {
        self.path = path
        state = Monitor(State())
    }

    /// A file already whole on disk (an offline song): reads never wait.
    package init(completeFileAt path: String) throws {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw AudioError.unreadable("cannot open the file: " + String(cString: strerror(errno)), file: path)
        }
        var info = stat()
        fstat(fd, &info)
        let size = Int64(info.st_size)
        self.path = path
        state = Monitor(State(held: ByteRanges([0 ..< size]), total: size, complete: true, descriptor: fd))
    }

    deinit {
        let fd = state.withLock { $0.descriptor }
        if fd >= 0 { close(fd) }
    }

    // MARK: Writer side

    /// Asks the writer for the bytes from an offset readers wait for and nothing is coming to; called
    /// outside the lock, once for each new place, from the reading thread.
    package func onWant(_ handler: @escaping @Sendable (Int64) -> Void) {
        state.withLock { $0.wanted = handler }
    }

    /// Called once when the player lets go of the file (the track ended or was skipped).
    package func onRelease(_ handler: @escaping @Sendable () -> Void) {
        state.withLock { $0.released = handler }
    }

    /// From now on the bytes are kept in a window of `capacity` bytes in memory (see `append`), not on disk.
    package func useWindow(capacity: Int) {
        state.change { state in
            guard state.window == nil else { return }
            state.window = Window(capacity: max(1, capacity))
            state.held = ByteRanges()
        }
    }

    /// Whether the bytes are kept in a memory window.
    package var isWindowed: Bool { state.withLock { $0.window != nil } }

    /// Appends what fits to the window, the oldest bytes the reader is done with making room; returns
    /// how many bytes were taken. Fewer than given: ask `whenRoom` before appending the rest.
    package func append(_ bytes: UnsafeRawBufferPointer) -> Int {
        let (taken, notify) = state.change { state -> (Int, (@Sendable () -> Void)?) in
            guard let room = state.window?.room else { return (0, nil) }
            let n = min(bytes.count, room)
            // In place: a copy of the window would copy its whole buffer.
            state.window?.append(UnsafeRawBufferPointer(rebasing: bytes[0 ..< n]))
            if let window = state.window { state.held = ByteRanges([window.start ..< window.end]) }
            return (n, n > 0 ? state.arrived : nil)
        }
        notify?()
        return taken
    }

    /// Calls `handler` once (outside the lock) with true when the reader has made room in the window, with
    /// false when the file failed or was let go (nothing more is wanted); at once when either is so already.
    package func whenRoom(_ handler: @escaping @Sendable (Bool) -> Void) {
        let (now, replaced) = state.withLock { state -> (Bool?, (@Sendable (Bool) -> Void)?) in
            if state.failure != nil || state.letGo || state.complete || state.window == nil { return (false, nil) }
            if let room = state.window?.room, room > 0 { return (true, nil) }
            // One writer at a time: an earlier one (an abandoned attempt) hears that it is no longer wanted.
            let earlier = state.window?.roomWaiter
            state.window?.roomWaiter = handler
            return (nil, earlier)
        }
        replaced?(false)
        if let now { handler(now) }
    }

    /// True while the writer waits for the reader: as much as the window holds has arrived.
    package var isWindowFull: Bool { state.withLock { $0.window?.roomWaiter != nil } }

    /// Takes the writer's room waiter when the reader made room (or `always`).
    private func takeRoomWaiter(always: Bool = false) -> (@Sendable (Bool) -> Void)? {
        state.withLock { state in
            guard let window = state.window, let waiter = window.roomWaiter, always || window.room > 0 else { return nil }
            state.window?.roomWaiter = nil
            return waiter
        }
    }

    /// `count` bytes at `offset` are on disk now. (A windowed file hears of its bytes by `append` only.)
    package func didWrite(at offset: Int64, count: Int) {
        guard count > 0 else { return }
        let notify = state.change { state -> (@Sendable () -> Void)? in
            guard state.window == nil else { return nil }
            _ = state.openDescriptor(path)
            state.held.insert(offset ..< offset + Int64(count))
            return state.arrived
        }
        notify?()
    }

    /// Called (outside the lock, on the writer's thread) whenever bytes arrive: a player waiting between
    /// chunks wakes at once instead of at its next poll.
    package func onArrival(_ handler: (@Sendable () -> Void)?) {
        state.withLock { $0.arrived = handler }
    }

    /// Bytes held per second since the file was asked for, connection set-up included: how fast the
    /// download has really been so far.
    package var arrivalBytesPerSecond: Double {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - createdNs) / 1e9
        let arrived = state.withLock { $0.window?.end ?? $0.held.heldBytes }
        return Double(arrived) / max(seconds, 0.001)
    }

    /// The writer cut the file at `offset` (a response that starts the file over). A window goes on at its
    /// end instead: a reconnected radio stream continues where the reader is.
    package func truncate(at offset: Int64) {
        state.withLock { state in
            guard state.window == nil else { return }
            state.held.truncate(at: offset)
            state.lastWant = nil
        }
    }

    package func setTotal(_ size: Int64?) {
        state.change { state in
            // A window's end is where its appends stopped, whatever the writer counted.
            state.total = state.window.map { $0.end } ?? size
        }
    }

    /// Every byte is in (the download finished); a read at the end now returns 0 instead of waiting.
    package func finish() {
        state.change { state in
            if let window = state.window { state.total = window.end }
            if state.total == nil { state.total = state.held.ranges.first?.upperBound ?? 0 }
            state.complete = true
        }
    }

    /// The bytes will not come: waiting readers return an error with `message`.
    package func fail(_ message: String) {
        state.change { state in
            // One line: it becomes the track's error.
            if state.failure == nil { state.failure = message.split(whereSeparator: \.isNewline).joined(separator: " ") }
        }
        takeRoomWaiter(always: true)?(false)
    }

    // MARK: What the stream says of itself

    /// The most changes held ahead of the reader. Past it the newest takes the new tags at its own offset:
    /// dropping the oldest instead would, with the writer a whole window ahead, keep every change ahead of
    /// the reader for ever.
    static let maxPendingTags = 16

    /// The stream's tags (a station's name and title) from the writer's next byte plus `ahead` on: the reader
    /// hears them once it has read that far, so a title changes with the audio it belongs to. Tags equal to
    /// those already due are no change (many stations repeat the title in every block).
    package func announce(_ tags: StreamTags, ahead: Int = 0) {
        state.withLock { state in
            guard tags != (state.pendingTags.last?.tags ?? state.tags) else { return }
            if state.pendingTags.count >= Self.maxPendingTags {
                state.pendingTags[state.pendingTags.count - 1].tags = tags
            } else {
                state.pendingTags.append((state.writeEnd + Int64(max(0, ahead)), tags))
            }
        }
    }

    /// The tags in force where the reader is (`offset`): the last announced at or before it; nil before any.
    package func streamTags(at offset: Int64) -> StreamTags? {
        state.withLock { state in
            let due = state.pendingTags.prefix { $0.offset <= offset }
            guard let last = due.last else { return state.tags }
            state.tags = last.tags
            state.pendingTags.removeFirst(due.count)
            return state.tags
        }
    }

    // MARK: Reader side

    package var size: Int64? { state.withLock { $0.total } }
    package var isComplete: Bool { state.withLock { $0.complete } }
    package var failureMessage: String? { state.withLock { $0.failure } }
    package var heldRanges: ByteRanges { state.withLock { $0.held } }

    /// Bytes readable at once from `offset`; up to the end when the size is known and all of it is there.
    package func available(from offset: Int64) -> Int64 {
        state.withLock { $0.held.contiguous(from: offset) }
    }

    /// True when `count` bytes from `offset` (fewer near the end) can be read without waiting, or waiting
    /// would not help (failure, end of file).
    package func canRead(at offset: Int64, count: Int64) -> Bool {
        state.withLock { state in
            if state.failure != nil { return true }
            // A full window is as much as will come before the reader takes some; bytes dropped never come.
            if let window = state.window, window.roomWaiter != nil || offset < window.start { return true }
            let end = state.total.map { min($0, offset + count) } ?? offset + count
            return offset >= end || state.held.contiguous(from: offset) >= end - offset
        }
    }

    /// What a reader does next, decided under the lock.
    private enum ReadStep: Sendable {
        case read(fd: Int32, count: Int)
        /// Copied from the window under the lock.
        case copied(Int)
        case end
        case failed
        /// Nothing is coming to this offset: ask the writer for it (outside the lock).
        case want(@Sendable (Int64) -> Void)
    }

    /// Fills `buffer` from `offset`, waiting until at least one byte there has arrived. Returns the count,
    /// 0 at the end of the file, -1 on failure or when `giveUp` (asked every 20 ms while waiting) says so.
    package func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, giveUp: () -> Bool = { false }) -> Int {
        guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        var asked = false
        while true {
            let step = state.wait(until: .now() + .milliseconds(20)) { state -> ReadStep? in
                if let total = state.total, offset >= total { return .end }
                if let window = state.window {
                    // Bytes the window already let go of are gone for good.
                    // A jump ahead while the writer waits for the reader to move on would wait forever.
                    if offset < window.start || (offset > window.end && window.roomWaiter != nil) { return .failed }
                    if offset < window.end {
                        let n = window.copy(from: offset, into: UnsafeMutableRawBufferPointer(start: base, count: buffer.count))
                        state.window?.readMark = max(window.readMark, offset + Int64(n))
                        return .copied(n)
                    }
                }
                let ready = state.held.contiguous(from: offset)
                if ready > 0, state.openDescriptor(path) >= 0 {
                    return .read(fd: state.descriptor, count: min(buffer.count, Int(clamping: ready)))
                }
                if state.failure != nil || (state.complete && ready == 0) { return .failed }
                if !asked, state.lastWant != offset {
                    asked = true
                    state.lastWant = offset
                    if let wanted = state.wanted { return .want(wanted) }
                }
                return nil
            }
            switch step {
            case .read(let fd, let count):
                let n = pread(fd, base, count, off_t(offset))
                return n < 0 ? -1 : n
            case .copied(let n):
                takeRoomWaiter()?(true)
                return n
            case .end:
                return 0
            case .failed:
                return -1
            case .want(let wanted):
                wanted(offset)
            case nil:
                break
            }
            if giveUp() { return -1 }
        }
    }

    /// The reader is done with the file; the writer decides whether to keep fetching.
    package func release() {
        let handler = state.withLock { state in
            defer {
                state.released = nil
                state.arrived = nil
                state.letGo = true
            }
            return state.released
        }
        handler?()
        takeRoomWaiter(always: true)?(false)
    }
}
