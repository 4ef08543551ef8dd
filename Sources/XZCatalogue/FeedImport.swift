import Foundation
import GRDB

/// Parses catalogue feed lines (JSON Lines, one song per line).
public enum FeedLine {
    /// The song a line describes, or a message saying what is wrong with it. `baseDirectory` resolves
    /// the optional `audio_file` / `lyrics_file` keys of bundled feeds such as the demo library.
    public static func parse(_ bytes: Data, baseDirectory: URL?) -> Result<SongInput, CatalogueError> {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: bytes, options: [])
        } catch {
            return .failure(CatalogueError("not valid JSON"))
        }
        guard let fields = object as? [String: Any] else {
            return .failure(CatalogueError("not a JSON object"))
        }
        func text(_ key: String) throws -> String? {
            switch fields[key] {
            case nil, is NSNull: return nil
            case let s as String: return s.trimmingCharacters(in: .whitespacesAndNewlines)
            default: throw CatalogueError("\"\(key)\" must be a string")
            }
        }
        func number(_ key: String) throws -> Int64? {
            switch fields[key] {
            case nil, is NSNull: return nil
            case let n as NSNumber where !(n is Bool) && n.doubleValue.rounded() == n.doubleValue
                && abs(n.doubleValue) < 9e15:
                return n.int64Value
            case let s as String where Int64(s) != nil: return Int64(s)
            default: throw CatalogueError("\"\(key)\" must be a whole number")
            }
        }
        do {
            guard let title = try text("title"), !title.isEmpty else { throw CatalogueError("missing \"title\"") }
            guard let singer = try text("singer"), !singer.isEmpty else { throw CatalogueError("missing \"singer\"") }
            let album = try text("album").flatMap { $0.isEmpty ? nil : $0 }
            let sourceId = try text("source_id") ?? ""
            let key = sourceId.isEmpty
                ? "meta:\(singer)\u{1F}\(album ?? "")\u{1F}\(title)"
                : "src:\(sourceId)"
            var input = SongInput(key: key, title: title, singer: singer)
            input.album = album
            input.track = try number("track").map { Int(clamping: $0) }
            input.year = try number("year").map { Int(clamping: $0) }
            input.durationMs = try number("duration_ms").map { Int(clamping: $0) }
            input.audioURL = try text("audio_url") ?? ""
            input.lyricsURL = try text("lyrics_url") ?? ""
            input.size = try number("size")
            input.sha256 = (try text("sha256") ?? "").lowercased()
            if let base = baseDirectory {
                input.localPath = try text("audio_file").flatMap { try bundledFile($0, in: base) }
                input.lyricsPath = try text("lyrics_file").flatMap { try bundledFile($0, in: base) }
            }
            return .success(input)
        } catch let error as CatalogueError {
            return .failure(error)
        } catch {
            return .failure(CatalogueError("\(error)"))
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
        let base = resolveBundledFiles ? url.deletingLastPathComponent() : nil
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
                        switch FeedLine.parse(line, baseDirectory: base) {
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
