import Foundation
import XZCatalogue

/// The API's keys (`subsonic_*` in the config): where it listens and what a client may make it hold.
package struct SubsonicSettings: Sendable, Equatable {
    /// nil: the API is off.
    package var port: Int?
    package var bindAddress = "127.0.0.1"
    /// Transcodes running at once; one more is refused (the spec's error, HTTP 429).
    package var maxTranscodes = 8
    /// Bytes the transcode cache keeps on disk, oldest dropped first.
    package var transcodeCacheBytes: Int64 = 1 << 30
    /// Bytes the resized-cover cache keeps on disk.
    package var coverCacheBytes: Int64 = 256 << 20
    /// Where the caches live (the library folder's `cache/subsonic`).
    package var cacheFolder: URL

    package init(cacheFolder: URL) {
        self.cacheFolder = cacheFolder
    }

    /// The caches' folder of `library`: its `cache/subsonic`.
    package static func cacheFolder(of library: LibraryFolder) -> URL {
        library.url.appendingPathComponent("cache/subsonic", isDirectory: true)
    }
}
