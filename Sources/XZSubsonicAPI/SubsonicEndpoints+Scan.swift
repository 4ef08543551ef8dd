import Foundation

extension SubsonicEndpoints {
    static let scan: [SubsonicEndpoint] = [
        SubsonicEndpoint("getScanStatus") { call in .document(SubsonicDocument("scanStatus", try SubsonicScanStatus(call.library))) },
        // The library update MPD clients start with `update`: queued behind one that runs.
        SubsonicEndpoint("startScan", .admin) { call in
            let host = call.library.host
            _ = host.startUpdate(of: URL(fileURLWithPath: host.naming.musicDirectory),
                                 rescan: try call.bool("fullScan", default: false))
            return .document(SubsonicDocument("scanStatus", try SubsonicScanStatus(call.library)))
        },
    ]
}

/// `getScanStatus`' payload: whether an update runs or waits, and the songs the library holds.
package struct SubsonicScanStatus: Encodable, Sendable, Equatable {
    package var scanning: Bool
    package var count: Int

    init(_ library: SubsonicLibrary) throws {
        scanning = library.host.updates.current != nil
        count = try library.database.songCount()
    }
}
