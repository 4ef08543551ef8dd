import Foundation
import XZSystem

/// What identifies a finished transcode: the song, its file as it was (size and time), the format and rate.
struct TranscodeCacheKey: Sendable, Hashable {
    var songKey: String
    var fileSize: Int64
    var fileModifiedMs: Int64
    var format: TranscodeFormat
    var kbps: Int

    /// A name of its own within the cache folder: the song key hashed (FNV-1a, 64 bits) beside the rest.
    var fileName: String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in songKey.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
            + "-\(fileSize)-\(fileModifiedMs)-\(kbps).\(format.fileExtension)"
    }
}

/// Finished transcodes (from the start of the song) kept on disk, so that a song asked for again is a file:
/// written to a part file and renamed only once complete, so the folder never holds half a transcode;
/// held to `capacity` bytes, the least recently used removed first.
final class TranscodeCache: Sendable {
    let folder: URL
    let capacity: Int64
    static let partSuffix = ".part"
    /// Part files older than this were left by a host that stopped mid-way.
    static let stalePartAge: TimeInterval = 24 * 3600
    private let trimming = Mutex(())

    init(folder: URL, capacity: Int64) {
        self.folder = folder
        self.capacity = capacity
    }

    /// The cached transcode's path and size, its time renewed (it is used); nil when there is none.
    func lookup(_ key: TranscodeCacheKey) -> (path: String, size: Int64)? {
        let path = folder.appendingPathComponent(key.fileName).path
        guard let status = FileStatus(path: path), status.kind == .regular else { return nil }
        _ = utimes(path, nil)
        return (path, status.size)
    }

    /// Runs `produce` with a writer that hands each piece to `forward` and to a part file; the part becomes
    /// the cached transcode when `produce` returns, and is removed when it throws (the client went).
    func fill(_ key: TranscodeCacheKey, forward: @escaping ([UInt8]) throws -> Void,
              produce: (_ write: ([UInt8]) throws -> Void) throws -> Void) throws {
        guard capacity > 0, (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else {
            return try produce(forward)
        }
        let final = folder.appendingPathComponent(key.fileName).path
        let part = final + "-" + UUID().uuidString + Self.partSuffix
        let descriptor = open(part, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { return try produce(forward) }
        var writable = true
        var size: Int64 = 0
        do {
            try produce { bytes in
                if writable {
                    writable = Self.writeAll(descriptor, bytes)
                    size += Int64(bytes.count)
                    // A transcode larger than the whole cache is not kept.
                    if size > capacity { writable = false }
                }
                try forward(bytes)
            }
        } catch {
            close(descriptor)
            unlink(part)
            throw error
        }
        close(descriptor)
        if writable && rename(part, final) == 0 {
            trim()
        } else {
            unlink(part)
        }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var done = 0
            while done < raw.count {
                let n = write(descriptor, raw.baseAddress! + done, raw.count - done)
                if n < 0 && errno == EINTR { continue }
                guard n > 0 else { return false }
                done += n
            }
            return true
        }
    }

    /// Removes the least recently used transcodes until the rest fit, and part files a stopped host left.
    func trim() {
        trimming.withLock { _ in
            guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return }
            var files: [(path: String, size: Int64, used: Date)] = []
            let now = Date()
            for name in names {
                let path = folder.appendingPathComponent(name).path
                guard let status = FileStatus(path: path), status.kind == .regular else { continue }
                if name.hasSuffix(Self.partSuffix) {
                    if now.timeIntervalSince(status.modified) > Self.stalePartAge { unlink(path) }
                    continue
                }
                files.append((path, status.size, status.modified))
            }
            var total = files.reduce(Int64(0)) { $0 + $1.size }
            for file in files.sorted(by: { $0.used < $1.used }) where total > capacity {
                unlink(file.path)
                total -= file.size
            }
        }
    }
}
