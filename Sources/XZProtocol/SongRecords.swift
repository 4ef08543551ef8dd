import Foundation
import XZCatalogue

/// Songs as `find` and `search` list them, kept per song until the catalogue changes (its version): the
/// record's bytes for a client's tag set, and its key in MPD's database order. A repeated listing then
/// decodes only ids and copies bytes, as MPD answers from the database it keeps in memory; songs not
/// kept yet cost what they did before anything was kept.
final class SongRecords: @unchecked Sendable {
    private struct Record {
        var orderKey: [UInt8]
        /// A slice of the bytes rendered with the other songs of its listing.
        var bytes: ArraySlice<UInt8>
    }

    /// Records are kept up to this many bytes (about 60,000 songs); songs past it are listed without keeping them.
    static let capacity = 32 << 20
    /// Clients that ask for other tags (`tagtypes`) get records of their own; a few sets are kept.
    private static let tagSetLimit = 4

    private let lock = NSLock()
    private var version: Int64?
    private var records: [Set<SongTag>: [Int64: Record]] = [:]
    private var size = 0

    /// Appends the records of the songs `selection` selects, in MPD's database order, window applied:
    /// what `addCatalogueSong` writes for each with `tags`. Returns how many there were.
    func list(_ selection: SongSelection, tags: Set<SongTag>, host: PlayerHost, into response: inout MPDResponse) throws -> Int {
        // Read before the songs: a change after this read moves the version, so nothing older is kept under it.
        let version = try host.database.catalogueVersion()
        let (ordered, new, newBytes) = try collect(selection, tags: tags, host: host, version: version)
        // After `collect` let go of its copy of the table, so adding to it does not copy it.
        if !new.isEmpty { keep(new, bytes: newBytes, tags: tags, version: version) }
        let window = selection.window ?? 0..<ordered.count
        let shown = ordered[min(window.lowerBound, ordered.count)..<min(window.upperBound, ordered.count)]
        for record in shown { response.append(rendered: record.bytes) }
        return shown.count
    }

    /// The selected songs' records in order, those made now, and the bytes these hold.
    private func collect(_ selection: SongSelection, tags: Set<SongTag>, host: PlayerHost, version: Int64) throws
        -> (ordered: [Record], new: [Int64: Record], newBytes: Int) {
        let known: [Int64: Record] = lock.withLock {
            if version != self.version {
                records = [:]
                size = 0
                self.version = version
            }
            return records[tags] ?? [:]
        }
        let naming = host.naming
        // Nothing kept yet: one pass reads every song whole.
        let (matches, extras) = try host.database.songIDs(selection, naming: naming,
                                                           wanted: known.isEmpty ? nil : { known[$0] == nil })
        var rendered = MPDResponse()
        var made: [(id: Int64, key: [UInt8], bytes: Range<Int>)] = []
        for case let (id, song?) in [matches, extras].joined() {
            let start = rendered.bytes.count
            // Ordered by the name the client sees, `naming`'s for every song a host lists.
            let uri = host.uri(of: song)
            rendered.addCatalogueSong(song, uri: uri, tags: tags)
            made.append((id, DatabaseOrder.key(of: song, uri: uri), start..<rendered.bytes.count))
        }
        let arena = rendered.bytes.withUnsafeBufferPointer { Array($0) }
        var new: [Int64: Record] = [:]
        for (id, key, range) in made { new[id] = Record(orderKey: key, bytes: arena[range]) }
        let ordered = [matches, extras].flatMap { part in
            var found = part.compactMap { known[$0.id] ?? new[$0.id] }
            DatabaseOrder.sortByKey(&found, key: \.orderKey)
            return found
        }
        return (ordered, new, arena.count + made.reduce(0) { $0 + $1.key.count + 64 })
    }

    private func keep(_ new: [Int64: Record], bytes: Int, tags: Set<SongTag>, version: Int64) {
        lock.withLock {
            guard version == self.version, size + bytes <= Self.capacity,
                  records[tags] != nil || records.count < Self.tagSetLimit else { return }
            records[tags, default: [:]].merge(new) { old, _ in old }
            size += bytes
        }
    }
}
