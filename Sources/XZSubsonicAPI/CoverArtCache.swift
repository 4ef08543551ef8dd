import Foundation
import XZAudio
import XZHostCore
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// Cover art at the sizes clients ask for, resized once and kept: files under the cache folder's `covers`,
/// each named by what its picture came from (the files' sizes and times) and the size asked, written
/// whole or not at all, held to `capacity` bytes with the least recently used dropped first.
package final class CoverArtCache: Sendable {
    package let folder: URL
    package let capacity: Int64
    private let host: PlayerHost
    /// The bytes the folder holds, learnt from the folder at the first write and counted since; the lock
    /// also makes trims one at a time. Lookups and writes need no lock (a file is renamed into place whole).
    private let usage = Mutex<Int64?>(nil)

    /// The sizes a client may ask for; a larger one is the largest, a smaller one 1 pixel.
    package static let sizes = 1...2048

    package init(host: PlayerHost, settings: SubsonicSettings) {
        self.host = host
        folder = settings.cacheFolder.appendingPathComponent("covers")
        capacity = max(0, settings.coverCacheBytes)
    }

    /// The picture of `id` fitted within `size`×`size` (its own size when nil): error 70 when the id has no
    /// picture or the picture does not decode.
    package func cover(_ id: SubsonicID, size: Int?) throws -> BytesReply {
        guard let source = try CoverArtSource.resolve(id, database: host.database, musicDirectory: host.naming.musicDirectory) else {
            throw SubsonicError.notFound("no cover art has that id")
        }
        let name = Self.fileName(identity: source.identity(), size: size)
        for (suffix, type) in Self.types {
            let path = folder.appendingPathComponent(name + suffix).path
            if let bytes = RegularFile.contents(atPath: path, limit: SongCover.sizeLimit) {
                _ = utimes(path, nil)  // recently used: trimmed last
                return BytesReply(contentType: type, bytes: bytes)
            }
        }
        guard let picture = source.picture() else { throw SubsonicError.notFound("no cover art has that id") }
        let image: CoverImageScaler.Image
        do {
            image = try CoverImageScaler.fit(picture.data, within: size)
        } catch AudioError.libraryFailed {
            throw SubsonicError.generic("cover art cannot be resized: FFmpeg's image libraries are missing")
        } catch {
            throw SubsonicError.notFound("the cover art of that id cannot be read: it is damaged or no picture")
        }
        store(image, name: name)
        return BytesReply(contentType: image.mimeType, bytes: image.bytes)
    }

    /// The cached file's suffix for each type the scaler gives.
    private static let types = [(".jpg", "image/jpeg"), (".png", "image/png")]

    /// Keeps `image`; a cache that cannot be written only costs the next request a resize.
    private func store(_ image: CoverImageScaler.Image, name: String) {
        guard capacity > 0, Int64(image.bytes.count) <= capacity,
              let suffix = Self.types.first(where: { $0.1 == image.mimeType })?.0,
              (try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)) != nil else { return }
        guard (try? AtomicFile.write(Data(image.bytes), toPath: folder.appendingPathComponent(name + suffix).path)) != nil else { return }
        usage.withLock { total in
            // The first write learns what the folder holds, the new file with it.
            let held = total.map { $0 + Int64(image.bytes.count) } ?? trim(to: capacity)
            // Trimmed to nine tenths, so a full cache is not listed again at every write.
            total = held > capacity ? trim(to: capacity / 10 * 9) : held
        }
    }

    /// Removes the least recently used files until the rest fit within `limit`; returns the bytes left.
    /// Called with `usage` locked.
    private func trim(to limit: Int64) -> Int64 {
        AtomicFile.removeLeftovers(in: folder.path)
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: folder.path) else { return 0 }
        var files: [(path: String, size: Int64, used: Date)] = []
        var total: Int64 = 0
        for name in names where !name.hasPrefix(".") {
            let path = folder.appendingPathComponent(name).path
            guard let status = FileStatus(path: path), status.kind == .regular else { continue }
            files.append((path, status.size, status.modified))
            total += status.size
        }
        guard total > limit else { return total }
        for file in files.sorted(by: { $0.used < $1.used }) where total > limit {
            if unlink(file.path) == 0 { total -= file.size }
        }
        return total
    }

    /// FNV-1a (64 bits) of the picture's identity, and the size asked ("full" for its own size).
    static func fileName(identity: String, size: Int?) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in identity.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-" + (size.map(String.init) ?? "full")
    }
}
