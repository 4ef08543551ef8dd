import Foundation
import XZCatalogue

/// Songs as `find` and `search` list them, kept per song until the catalogue changes (its version): the
/// record's bytes for a client's tag set, and its key in MPD's database order. A repeated listing then
/// reads ids from the index and copies bytes, as MPD answers from the database it keeps in memory.
final class SongRecords: @unchecked Sendable {
    private struct Record {
        var orderKey: [UInt8]
        var response: MPDResponse

        /// Storage of exactly the bytes' size: built by appending, each array has up to twice the room.
        init(orderKey: [UInt8], response: MPDResponse) {
            self.orderKey = orderKey.withUnsafeBufferPointer { Array($0) }
            var bytes = response.bytes.withUnsafeBufferPointer { Array($0) }
            self.response = MPDResponse(taking: &bytes, capacity: 0)
        }

        /// Bytes held, with the allocator's and the table's share.
        var size: Int { orderKey.count + response.bytes.count + 96 }
    }

    /// Records are kept up to this many bytes (about 60,000 songs); songs past it are listed without keeping them.
    static let capacity = 32 << 20
    /// Clients that ask for other tags (`tagtypes`) get records of their own; a few sets are kept.
    private static let tagSetLimit = 4

    private let lock = NSLock()
    private var version: Int64?
    private var records: [Set<SongTag>: [Int64: Record]] = [:]
    private var size = 0

    /// The records of the songs `selection` selects in MPD's database order, window applied: what
    /// `addCatalogueSong` writes for each with `tags`.
    func list(_ selection: SongSelection, tags: Set<SongTag>, host: PlayerHost) throws -> [MPDResponse] {
        // Read before the songs: a commit after this read changes the version, so nothing older is kept under it.
        let version = try host.database.catalogueVersion()
        let naming = host.uris.naming
        let (matches, extras) = try host.database.songIDs(selection, naming: naming)
        var found = [Record?](repeating: nil, count: matches.count + extras.count)
        var missing: [Int64] = []
        lock.withLock {
            if version != self.version {
                records = [:]
                size = 0
                self.version = version
            }
            let known = records[tags] ?? [:]
            for (index, id) in (matches + extras).enumerated() {
                if let record = known[id] { found[index] = record } else { missing.append(id) }
            }
        }
        if !missing.isEmpty {
            var made: [Int64: Record] = [:]
            for song in try host.database.songs(ids: missing, naming: naming) {
                var response = MPDResponse()
                response.addCatalogueSong(song, uri: host.uris.uri(forPath: song.localPath, inCatalogue: true), tags: tags)
                made[song.id] = Record(orderKey: naming.databaseOrderKey(of: song), response: response)
            }
            for (index, id) in (matches + extras).enumerated() where found[index] == nil { found[index] = made[id] }
            keep(made, tags: tags, version: version)
        }
        let ordered = [found[..<matches.count], found[matches.count...]].flatMap { part in
            var records = part.compactMap { $0 }
            DatabaseOrder.sortByKey(&records, key: \.orderKey)
            return records
        }
        guard let window = selection.window else { return ordered.map(\.response) }
        return ordered[min(window.lowerBound, ordered.count)..<min(window.upperBound, ordered.count)].map(\.response)
    }

    private func keep(_ made: [Int64: Record], tags: Set<SongTag>, version: Int64) {
        lock.withLock {
            let adding = made.values.reduce(0) { $0 + $1.size }
            guard version == self.version, size + adding <= Self.capacity,
                  records[tags] != nil || records.count < Self.tagSetLimit else { return }
            records[tags, default: [:]].merge(made) { old, _ in old }
            size += adding
        }
    }
}
