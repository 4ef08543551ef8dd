import Foundation
import GRDB

/// Parses catalogue feed lines (JSON Lines, one song per line).
public struct FeedLine {
    private let decoder = JSONDecoder()
    private let baseDirectory: URL?

    /// `baseDirectory` resolves the optional `audio_file` / `lyrics_file` keys of bundled feeds such
    /// as the demo library.
    public init(baseDirectory: URL?) {
        self.baseDirectory = baseDirectory
    }

    /// The song a line describes, or a message saying what is wrong with it.
    public func parse(_ bytes: Data) -> Result<SongInput, CatalogueError> {
        let record: Record
        do {
            record = try decoder.decode(Record.self, from: bytes)
        } catch let error as CatalogueError {
            return .failure(error)
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            return .failure(CatalogueError("not a JSON object"))
        } catch {
            return .failure(CatalogueError("not valid JSON"))
        }
        do {
            guard let title = record.title, !title.isEmpty else { throw CatalogueError("missing \"title\"") }
            guard let singer = record.singer, !singer.isEmpty else { throw CatalogueError("missing \"singer\"") }
            let album = record.album.flatMap { $0.isEmpty ? nil : $0 }
            let sourceId = record.sourceId ?? ""
            let key = sourceId.isEmpty ? "meta:\(singer)\u{1F}\(album ?? "")\u{1F}\(title)" : "src:\(sourceId)"
            var input = SongInput(key: key, title: title, singer: singer)
            input.album = album
            input.track = record.track.map { Int(clamping: $0) }
            input.year = record.year.map { Int(clamping: $0) }
            input.durationMs = record.durationMs.map { Int(clamping: $0) }
            input.audioURL = record.audioURL ?? ""
            input.lyricsURL = record.lyricsURL ?? ""
            input.size = record.size
            input.sha256 = (record.sha256 ?? "").lowercased()
            if let base = baseDirectory {
                input.localPath = try record.audioFile.flatMap { try Self.bundledFile($0, in: base) }
                input.lyricsPath = try record.lyricsFile.flatMap { try Self.bundledFile($0, in: base) }
            }
            return .success(input)
        } catch let error as CatalogueError {
            return .failure(error)
        } catch {
            return .failure(CatalogueError("\(error)"))
        }
    }

    /// One feed line's keys; unknown keys are ignored, numbers may also come as numeric strings.
    struct Record: Decodable {
        var sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile: String?
        var track, year, durationMs, size: Int64?

        enum Key: String, CodingKey {
            case sourceId = "source_id", title, singer, album, audioURL = "audio_url", lyricsURL = "lyrics_url"
            case sha256, audioFile = "audio_file", lyricsFile = "lyrics_file"
            case track, year, durationMs = "duration_ms", size
        }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func text(_ key: Key) throws -> String? {
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                guard let value = try? c.decode(String.self, forKey: key) else {
                    throw CatalogueError("\"\(key.rawValue)\" must be a string")
                }
                return value.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            func number(_ key: Key) throws -> Int64? {
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                if let value = try? c.decode(Int64.self, forKey: key) { return value }
                if let value = try? c.decode(String.self, forKey: key), let parsed = Int64(value) { return parsed }
                throw CatalogueError("\"\(key.rawValue)\" must be a whole number")
            }
            sourceId = try text(.sourceId)
            title = try text(.title)
            singer = try text(.singer)
            album = try text(.album)
            audioURL = try text(.audioURL)
            lyricsURL = try text(.lyricsURL)
            sha256 = try text(.sha256)
            audioFile = try text(.audioFile)
            lyricsFile = try text(.lyricsFile)
            track = try number(.track)
            year = try number(.year)
            durationMs = try number(.durationMs)
            size = try number(.size)
        }
    }

    /// A file named by a feed must stay inside the feed's own folder.
    private static func bundledFile(_ relative: String, in base: URL) throws -> String? {
        guard !relative.isEmpty else { return nil }
        let resolved = base.appendingPathComponent(relative).standardizedFileURL.path
        let root = base.standardizedFileURL.path
        guard resolved.hasPrefix(root + "/") else {
            throw CatalogueError("file \"\(relative)\" is outside the feed's folder")
        }
        return FileManager.default.fileExists(atPath: resolved) ? resolved : nil
    }
}

extension LibraryDatabase {
    /// Imports a catalogue feed in one transaction: bad lines are reported and skipped, and an
    /// interrupted import leaves the library as it was.
    public func importFeed(at url: URL, resolveBundledFiles: Bool = false,
                           progress: ((Double) -> Void)? = nil) throws -> ImportSummary {
        let data: Data
        do {
            data = try Data(contentsOf: url, options: .alwaysMapped)
        } catch {
            throw CatalogueError("cannot read \(url.path): \((error as NSError).localizedDescription)")
        }
        let parser = FeedLine(baseDirectory: resolveBundledFiles ? url.deletingLastPathComponent() : nil)
        return try pool.write { db in
            var summary = ImportSummary()
            let writer = try CatalogueWriter(db)
            var lineNumber = 0
            var lastReport = 0
            try data.withUnsafeBytes { (raw: UnsafeRawBufferPointer) in
                let bytes = raw.bindMemory(to: UInt8.self)
                var start = 0
                while start < bytes.count {
                    var end = start
                    while end < bytes.count && bytes[end] != 0x0A { end += 1 }
                    lineNumber += 1
                    var lineEnd = end
                    if lineEnd > start && bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
                    let isBlank = bytes[start..<lineEnd].allSatisfy { $0 == 0x20 || $0 == 0x09 }
                    if !isBlank {
                        let line = Data(bytes: raw.baseAddress! + start, count: lineEnd - start)
                        switch parser.parse(line) {
                        case .success(let input):
                            switch try writer.upsert(input) {
                            case .added: summary.added += 1
                            case .updated: summary.updated += 1
                            case .unchanged: summary.skipped += 1
                            }
                        case .failure(let error):
                            summary.failed += 1
                            summary.problems.append("line \(lineNumber): \(error.description)")
                        }
                    }
                    start = end + 1
                    if let progress, start - lastReport > 1 << 20 {
                        lastReport = start
                        progress(Double(start) / Double(bytes.count))
                    }
                }
            }
            try writer.finish()
            progress?(1)
            return summary
        }
    }
}
