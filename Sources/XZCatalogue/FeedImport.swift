import Foundation
import GRDB
import XZSystem

extension LibraryDatabase {
    /// Imports a catalogue feed in one transaction: bad lines are reported and skipped, and an
    /// interrupted import leaves the library as it was.
    ///
    /// Large feeds are parsed and folded on a second thread while this one writes, so the two halves
    /// of the work overlap.
    package func importFeed(at url: URL, resolveBundledFiles: Bool = false,
                           progress: ((Double) -> Void)? = nil) throws -> ImportSummary {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw CatalogueError.io("cannot read \(url.path): \((error as NSError).localizedDescription)")
        }
        let parser = FeedLine(baseDirectory: resolveBundledFiles ? url.deletingLastPathComponent() : nil)
        return try pool.write { db in
            var summary = ImportSummary()
            let writer = try CatalogueWriter(db)
            var lastReport = 0
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                let bytes = raw.bindMemory(to: UInt8.self)
                var feed = FeedBatches(bytes: bytes, parser: parser)
                func apply(_ batch: FeedBatch) throws {
                    try batch.withSongs { song, arena in
                        summary.count(try writer.upsert(song, arena: arena))
                    } failure: { line, error in
                        summary.failed += 1
                        summary.problems.append("line \(line): \(error.description)")
                    }
                    if let progress, batch.end - lastReport > 1 << 20 {
                        lastReport = batch.end
                        progress(Double(batch.end) / Double(max(bytes.count, 1)))
                    }
                }
                if bytes.count < FeedBatches.parallelThreshold {
                    var folder = SongFolder()
                    while let batch = feed.next(&folder) { try apply(batch) }
                } else {
                    try feed.pipelined(apply)
                }
            }
            for outcome in try writer.finish() { summary.count(outcome) }
            progress?(1)
            return summary
        }
    }
}

extension ImportSummary {
    mutating func count(_ outcome: CatalogueWriter.Outcome) {
        switch outcome {
        case .added: added += 1
        case .updated: updated += 1
        case .unchanged: skipped += 1
        case .deferred: break  // counted when finish() applies it
        }
    }
}

/// Lines of a feed cut into batches of parsed, folded songs.
struct FeedBatches: Sendable {
    static let batchLines = 512
    /// Below this many bytes a second thread costs more than it saves.
    static let parallelThreshold = 1 << 20

    let bytes: FeedBytes
    let parser: FeedLine
    private var start = 0
    private var lineNumber = 0

    init(bytes: UnsafeBufferPointer<UInt8>, parser: FeedLine) {
        self.bytes = FeedBytes(buffer: bytes)
        self.parser = parser
    }

    /// The next batch.
    mutating func next(_ folder: inout SongFolder) -> FeedBatch? {
        let bytes = bytes.buffer
        guard start < bytes.count else { return nil }
        var batch = FeedBatch()
        var start = start
        var lineNumber = lineNumber
        let base = bytes.baseAddress!
        while start < bytes.count && batch.count < Self.batchLines {
            let rest = bytes.count - start
            let newline = memchr(base + start, 0x0A, rest)
            let end = newline.map { UnsafePointer<UInt8>($0.assumingMemoryBound(to: UInt8.self)) - base } ?? bytes.count
            lineNumber += 1
            var lineEnd = end
            if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            var blank = true
            for k in start..<lineEnd where bytes[k] != 0x20 && bytes[k] != 0x09 {
                blank = false
                break
            }
            if !blank {
                switch parser.parse(UnsafeBufferPointer(rebasing: bytes[start..<lineEnd])) {
                case .success(let input): batch.append(folder.prepare(input, arena: &batch.arena))
                case .failure(let error): batch.fail(line: lineNumber, error)
                }
            }
            start = end + 1
        }
        self.start = start
        self.lineNumber = lineNumber
        batch.end = min(start, bytes.count)
        return batch
    }

    /// Parses on a second thread, a few batches ahead of `consume` on this one.
    func pipelined(_ consume: (FeedBatch) throws -> Void) throws {
        let queue = ThreadHandOff<FeedBatch>(capacity: 4)
        Thread.detachNewThread { [self] in
            var feed = self
            var folder = SongFolder()
            while !queue.isCancelled, let batch = feed.next(&folder) {
                queue.put(batch)
            }
            queue.finish()
        }
        // The parsing thread reads the feed's bytes until it finishes, so it must finish before they go.
        defer {
            queue.cancel()
            queue.waitUntilFinished()
        }
        while let batch = queue.take() {
            try consume(batch)
        }
    }
}

/// The mapped feed, read by the parsing thread.
// Unchecked: a pointer to bytes nothing writes, which `pipelined` keeps alive until the thread is done.
struct FeedBytes: @unchecked Sendable {
    let buffer: UnsafeBufferPointer<UInt8>
}

/// Parsed songs and failures of consecutive lines, in line order.
struct FeedBatch: Sendable {
    enum Entry {
        case song(PreparedSong)
        case failure(line: Int, CatalogueError)
    }

    var entries: [Entry] = []
    /// The folded keys and search documents of the batch's songs.
    var arena: [UInt8] = []
    /// Byte offset in the feed where the batch ends, for progress.
    var end = 0

    var count: Int { entries.count }

    mutating func append(_ song: PreparedSong) { entries.append(.song(song)) }
    mutating func fail(line: Int, _ error: CatalogueError) { entries.append(.failure(line: line, error)) }

    func withSongs(_ body: (PreparedSong, UnsafeBufferPointer<UInt8>) throws -> Void,
                   failure: (Int, CatalogueError) -> Void) throws {
        try arena.withUnsafeBufferPointer { arena in
            for entry in entries {
                switch entry {
                case .song(let song): try body(song, arena)
                case .failure(let line, let error): failure(line, error)
                }
            }
        }
    }
}
