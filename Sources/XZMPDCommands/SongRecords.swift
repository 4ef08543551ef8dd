import Foundation
import XZSystem
import XZCatalogue
import XZHostCore
import XZProtocol

/// Songs as `find` and `search` list them, kept per song until the catalogue changes (its version): the
/// record's bytes for a client's tag set, and its key in MPD's database order. A repeated listing then
/// decodes only ids and copies bytes, as MPD answers from the database it keeps in memory; songs not
/// kept yet cost what they did before anything was kept.
final class SongRecords: Sendable {
    private struct Record: Sendable {
        /// Both slices of one buffer per listing: a record costs no allocation of its own, which keeps
        /// a whole catalogue's records (`warm`) at a few hundred bytes a song.
        var orderKey: ArraySlice<UInt8>
        var bytes: ArraySlice<UInt8>
    }

    /// Records are kept up to this many bytes (about 60,000 songs); songs past it are listed without keeping them.
    static let capacity = 32 << 20
    /// Clients that ask for other tags (`tagtypes`) get records of their own; a few sets are kept.
    private static let tagSetLimit = 4
    /// Catalogues of up to this many songs have every record made before any listing asks (`warm`):
    /// a few MB, as MPD keeps its whole database in memory. Larger ones keep what listings made.
    var warmLimit: Int {
        get { state.withLock { $0.warmLimit } }
        set { state.withLock { $0.warmLimit = newValue } }
    }

    private struct State {
        var warmLimit = 20_000
        var version: Int64?
        var records: [SongTags: [Int64: Record]] = [:]
        var size = 0
    }

    private let state = Mutex(State())

    /// Appends the records of the songs `selection` selects, in MPD's database order, window applied:
    /// what `addCatalogueSong` writes for each with `tags`. Returns how many there were.
    /// Stops with `DeadlinePassed` once `deadline` passes.
    func list(_ selection: SongSelection, tags: SongTags, host: PlayerHost, deadline: Deadline = .never,
              into response: inout MPDResponse) throws -> Int {
        // Read before the songs: a change after this read moves the version, so nothing older is kept under it.
        let version = try host.database.catalogueVersion()
        let ordered: [Record]
        let made: (records: [Int64: Record], bytes: Int)
        do {
            let known = kept(tags: tags, version: version)
            // Nothing kept yet: one pass reads every song whole.
            let (matches, extras) = try host.database.songIDs(selection, naming: host.naming, deadline: deadline,
                                                               wanted: known.isEmpty ? nil : { known[$0] == nil })
            made = try render([matches, extras].joined(), tags: tags, host: host, deadline: deadline)
            ordered = [matches, extras].flatMap { part in
                var found = part.compactMap { known[$0.id] ?? made.records[$0.id] }
                DatabaseOrder.sortByKey(&found, key: \.orderKey)
                return found
            }
        }
        // Once `known` let go of the table, so adding to it does not copy it.
        keep(made.records, bytes: made.bytes, tags: tags, version: version)
        let window = selection.window ?? 0..<ordered.count
        let shown = ordered[min(window.lowerBound, ordered.count)..<min(window.upperBound, ordered.count)]
        for record in shown {
            if response.isFull { break }
            response.append(rendered: record.bytes)
        }
        return shown.count
    }

    /// Makes and keeps the record of every song the host lists, with every tag (what a client gets
    /// unless it sent `tagtypes`), when the catalogue has at most `warmLimit` songs: a first search
    /// then answers from memory. The ids are read once, the songs a batch at a time, so that what the
    /// reading takes is little and reused. Blocks on the database; never called on an event loop.
    func warm(host: PlayerHost) throws {
        guard try host.database.songCount() <= warmLimit else { return }
        let version = try host.database.catalogueVersion()
        let tags = SongTags.held
        let missing: [Int64]
        do {
            let known = kept(tags: tags, version: version)
            let (listed, _) = try host.database.songIDs(SongSelection(filters: []), naming: host.naming) { _ in false }
            missing = listed.map(\.id).filter { known[$0] == nil }
        }
        for start in stride(from: 0, to: missing.count, by: Self.warmBatch) {
            let batch = try host.database.songs(ids: Array(missing[start..<min(start + Self.warmBatch, missing.count)]))
            let made = try render(batch.lazy.map { (id: $0.id, song: Optional($0)) }, tags: tags, host: host)
            guard keep(made.records, bytes: made.bytes, tags: tags, version: version) else { return }
        }
    }

    /// Songs `warm` reads at a time.
    private static let warmBatch = 1_000

    /// The records kept for `tags` under `version`; everything kept before is dropped when the version moved.
    private func kept(tags: SongTags, version: Int64) -> [Int64: Record] {
        state.withLock { state in
            if version != state.version {
                state.records = [:]
                state.size = 0
                state.version = version
            }
            return state.records[tags] ?? [:]
        }
    }

    /// Records of the songs read (those with a song), rendered with their order keys into one buffer,
    /// and the bytes these hold.
    private func render<Songs: Sequence<(id: Int64, song: Song?)>>(_ songs: Songs, tags: SongTags, host: PlayerHost,
                                                                   deadline: Deadline = .never) throws(DeadlinePassed)
        -> (records: [Int64: Record], bytes: Int) {
        var rendered = MPDResponse()
        var keys: [UInt8] = []
        var made: [(id: Int64, key: Range<Int>, bytes: Range<Int>)] = []
        for case let (id, song?) in songs {
            try deadline.check(every: 256, made.count)
            let start = rendered.bytes.count
            let keyStart = keys.count
            // Ordered by the name the client sees, `naming`'s for every song a host lists.
            let uri = host.naming.uri(of: song)
            rendered.addCatalogueSong(song, uri: uri, tags: tags)
            DatabaseOrder.appendKey(of: song, uri: uri, to: &keys)
            made.append((id, keyStart..<keys.count, start..<rendered.bytes.count))
        }
        let keysStart = rendered.bytes.count
        // Exactly as large as its bytes: kept as long as any of its records.
        var arena: [UInt8] = []
        arena.reserveCapacity(keysStart + keys.count)
        arena += rendered.bytes
        arena += keys
        var records: [Int64: Record] = [:]
        records.reserveCapacity(made.count)
        for (id, key, range) in made {
            records[id] = Record(orderKey: arena[(key.lowerBound + keysStart)..<(key.upperBound + keysStart)], bytes: arena[range])
        }
        return (records, arena.count + made.count * 96)
    }

    /// How many songs have their record kept for `tags`.
    func keptCount(tags: SongTags) -> Int {
        state.withLock { $0.records[tags]?.count ?? 0 }
    }

    /// Keeps `new` unless the version moved or there is no room; whether it was kept.
    @discardableResult
    private func keep(_ new: [Int64: Record], bytes: Int, tags: SongTags, version: Int64) -> Bool {
        guard !new.isEmpty else { return true }
        return state.withLock { state in
            guard version == state.version, state.size + bytes <= Self.capacity,
                  state.records[tags] != nil || state.records.count < Self.tagSetLimit else { return false }
            state.records[tags, default: [:]].merge(new) { old, _ in old }
            state.size += bytes
            return true
        }
    }
}
