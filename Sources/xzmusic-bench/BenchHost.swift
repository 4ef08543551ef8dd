import Foundation
import XZCatalogue
import XZHostCore
import XZPlaybackEngine
import XZPlaybackValues

/// A player host for one measurement, driven through its verbs as every front end drives it: `library`'s
/// (an empty one in a temporary folder when nil), playing into `output` alone. `events` hears every player
/// event, as the host's observers do.
struct BenchHost {
    let host: PlayerHost
    private let temporary: URL?

    init(output: AudioOutput, library: (folder: LibraryFolder, database: LibraryDatabase)? = nil, streams: StreamOpener? = nil,
         events: (@Sendable (PlayerEvent) -> Void)? = nil) throws {
        var temporary: URL?
        let (folder, database): (LibraryFolder, LibraryDatabase)
        if let library {
            (folder, database) = library
        } else {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("xzmusic-bench-host-\(UUID().uuidString)")
            let empty = LibraryFolder(url: url)
            (folder, database) = (empty, try empty.open(seedingDemoFrom: nil))
            temporary = url
        }
        self.temporary = temporary
        host = PlayerHost(folder: folder, database: database, output: .null,
                          outputs: [NamedOutput(name: "bench", plugin: "bench", output: output)], streams: streams,
                          report: { print("bench host: \($0)") })
        if let events { host.observe(events) }
    }

    /// Stops the music and the host, and removes the temporary library.
    func shutdown() {
        host.shutdown()
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
}
