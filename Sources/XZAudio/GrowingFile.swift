import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sorted, disjoint, non-adjacent byte ranges: which parts of a file are on disk.
public struct ByteRanges: Sendable, Equatable, CustomStringConvertible {
    public private(set) var ranges: [Range<Int64>] = []

    public init(_ ranges: [Range<Int64>] = []) {
        for range in ranges { insert(range) }
    }

    public mutating func insert(_ range: Range<Int64>) {
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
    public mutating func truncate(at offset: Int64) {
        ranges = ranges.compactMap { range in
            if range.lowerBound >= offset { return nil }
            return range.lowerBound ..< min(range.upperBound, offset)
        }
    }

    /// Bytes held without a gap from `offset` on; 0 when `offset` itself is missing.
    public func contiguous(from offset: Int64) -> Int64 {
        guard let range = ranges.first(where: { $0.contains(offset) }) else { return 0 }
        return range.upperBound - offset
    }

    /// The first missing byte at or after `offset` before `end`, nil when all of it is held.
    public func firstGap(from offset: Int64, before end: Int64) -> Int64? {
        let gap = offset + contiguous(from: offset)
        return gap < end ? gap : nil
    }

    public var heldBytes: Int64 { ranges.reduce(0) { $0 + ($1.upperBound - $1.lowerBound) } }

    public var description: String { ranges.map { "\($0.lowerBound)-\($0.upperBound)" }.joined(separator: ",") }
}

/// A file that is still being written, read while it grows: a writer (a download) reports the byte ranges it
/// has put on disk, the total once known, and the end or a failure; readers get what is there and wait for
/// what is not. Thread-safe; readers block on their own thread (the audio thread), never the cooperative pool.
public final class GrowingFile: @unchecked Sendable {
    public let path: String
    private let condition = NSCondition()
    private var held = ByteRanges()
    private var total: Int64?
    private var complete = false
    private var failure: String?
    /// Opened as soon as there are bytes, so a rename of the finished file cannot take them from readers.
    private var descriptor: Int32 = -1
    private var wanted: (@Sendable (Int64) -> Void)?
    private var lastWant: Int64?
    private var released: (@Sendable () -> Void)?
    private var arrived: (@Sendable () -> Void)?
    private let createdNs = DispatchTime.now().uptimeNanoseconds

    public init(path: String) {
        self.path = path
    }

    /// A file already whole on disk (an offline song): reads never wait.
    public convenience init(completeFileAt path: String) throws {
        self.init(path: path)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            throw AudioError(file: path, message: "cannot open the file: " + String(cString: strerror(errno)))
        }
        var info = stat()
        fstat(fd, &info)
        descriptor = fd
        let size = Int64(info.st_size)
        held.insert(0 ..< size)
        total = size
        complete = true
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    // MARK: Writer side

    /// Asks the writer for the bytes from an offset readers wait for and nothing is coming to; called
    /// outside the lock, once for each new place, from the reading thread.
    public func onWant(_ handler: @escaping @Sendable (Int64) -> Void) {
        condition.withLock { wanted = handler }
    }

    /// Called once when the player lets go of the file (the track ended or was skipped).
    public func onRelease(_ handler: @escaping @Sendable () -> Void) {
        condition.withLock { released = handler }
    }

    /// `count` bytes at `offset` are on disk now.
    public func didWrite(at offset: Int64, count: Int) {
        guard count > 0 else { return }
        let notify: (@Sendable () -> Void)? = condition.withLock {
            if descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
            held.insert(offset ..< offset + Int64(count))
            condition.broadcast()
            return arrived
        }
        notify?()
    }

    /// Called (outside the lock, on the writer's thread) whenever bytes arrive: a player waiting between
    /// chunks wakes at once instead of at its next poll.
    public func onArrival(_ handler: (@Sendable () -> Void)?) {
        condition.withLock { arrived = handler }
    }

    /// Bytes held per second since the file was asked for, connection set-up included: how fast the
    /// download has really been so far.
    public var arrivalBytesPerSecond: Double {
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - createdNs) / 1e9
        return Double(heldRanges.heldBytes) / max(seconds, 0.001)
    }

    /// The writer cut the file at `offset` (a response that starts the file over).
    public func truncate(at offset: Int64) {
        condition.withLock {
            held.truncate(at: offset)
            lastWant = nil
        }
    }

    public func setTotal(_ size: Int64?) {
        condition.withLock {
            total = size
            condition.broadcast()
        }
    }

    /// Every byte is in (the download finished); a read at the end now returns 0 instead of waiting.
    public func finish() {
        condition.withLock {
            if total == nil { total = held.ranges.first?.upperBound ?? 0 }
            complete = true
            condition.broadcast()
        }
    }

    /// The bytes will not come: waiting readers return an error with `message`.
    public func fail(_ message: String) {
        condition.withLock {
            // One line: it becomes the track's error.
            if failure == nil { failure = message.split(whereSeparator: \.isNewline).joined(separator: " ") }
            condition.broadcast()
        }
    }

    // MARK: Reader side

    public var size: Int64? { condition.withLock { total } }
    public var isComplete: Bool { condition.withLock { complete } }
    public var failureMessage: String? { condition.withLock { failure } }
    public var heldRanges: ByteRanges { condition.withLock { held } }

    /// Bytes readable at once from `offset`; up to the end when the size is known and all of it is there.
    public func available(from offset: Int64) -> Int64 {
        condition.withLock { held.contiguous(from: offset) }
    }

    /// True when `count` bytes from `offset` (fewer near the end) can be read without waiting, or waiting
    /// would not help (failure, end of file).
    public func canRead(at offset: Int64, count: Int64) -> Bool {
        condition.withLock {
            if failure != nil { return true }
            let end = total.map { min($0, offset + count) } ?? offset + count
            return offset >= end || held.contiguous(from: offset) >= end - offset
        }
    }

    /// Fills `buffer` from `offset`, waiting until at least one byte there has arrived. Returns the count,
    /// 0 at the end of the file, -1 on failure or when `giveUp` (asked every 20 ms while waiting) says so.
    public func read(at offset: Int64, into buffer: UnsafeMutableRawBufferPointer, giveUp: () -> Bool = { false }) -> Int {
        guard buffer.count > 0, let base = buffer.baseAddress else { return 0 }
        var asked = false
        while true {
            condition.lock()
            if let total, offset >= total {
                condition.unlock()
                return 0
            }
            let ready = held.contiguous(from: offset)
            if ready > 0, descriptor < 0 { descriptor = open(path, O_RDONLY | O_CLOEXEC) }
            if ready > 0, descriptor >= 0 {
                let fd = descriptor
                condition.unlock()
                let n = pread(fd, base, min(buffer.count, Int(clamping: ready)), off_t(offset))
                return n < 0 ? -1 : n
            }
            if failure != nil || (complete && ready == 0) {
                condition.unlock()
                return -1
            }
            var want: (@Sendable (Int64) -> Void)?
            if !asked, lastWant != offset {
                asked = true
                lastWant = offset
                want = wanted
            }
            if want == nil {
                _ = condition.wait(until: Date(timeIntervalSinceNow: 0.02))
            }
            condition.unlock()
            want?(offset)
            if giveUp() { return -1 }
        }
    }

    /// The reader is done with the file; the writer decides whether to keep fetching.
    public func release() {
        let handler: (@Sendable () -> Void)? = condition.withLock {
            defer {
                released = nil
                arrived = nil
            }
            return released
        }
        handler?()
    }
}
