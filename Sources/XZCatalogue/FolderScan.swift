import Foundation
import GRDB
import XZAudio

extension LibraryDatabase {
    /// Scans a folder for MP3 files. Unchanged files (same size, mtime and sibling lyrics) are skipped, files that
    /// vanished since the last scan of this folder are removed, and a sibling NAME.lrc is recorded as
    /// the song's lyrics. Tags are read before the write transaction opens, so readers never wait.
    public func importFolder(at url: URL, progress: ((Double) -> Void)? = nil) throws -> ImportSummary {
        let root = url.standardizedFileURL.resolvingSymlinksInPath().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: root, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CatalogueError("\(url.path): no such folder")
        }
        let prefix = "file:" + (root.hasSuffix("/") ? root : root + "/")
        let known = try pool.read { db in try CatalogueWriter.fileStamps(db, keyPrefix: prefix) }

        var summary = ImportSummary()
        var inputs: [SongInput] = []
        var seen = Set<String>()
        let files = Self.mp3Files(under: root)
        for (index, file) in files.enumerated() {
            let key = "file:" + file.path
            seen.insert(key)
            // Unchanged audio is skipped unless its sibling .lrc came or went.
            if let stamp = known[key], stamp.size == file.size, stamp.mtime == file.mtime,
               stamp.lyricsPath == Self.siblingLyrics(of: URL(fileURLWithPath: file.path)) ?? "" {
                summary.skipped += 1
                continue
            }
            do {
                inputs.append(try Self.songInput(for: file, key: key))
            } catch {
                summary.failed += 1
                summary.problems.append("\(error)")
            }
            progress?(Double(index + 1) / Double(max(files.count, 1)) * 0.9)
        }
        let vanished = known.keys.filter { !seen.contains($0) }
        return try pool.write { db in
            let writer = try CatalogueWriter(db)
            for input in inputs {
                summary.count(try writer.upsert(input))
            }
            summary.removed = try writer.remove(keys: vanished.sorted())
            for outcome in try writer.finish() { summary.count(outcome) }
            progress?(1)
            return summary
        }
    }

    struct ScannedFile {
        let path: String
        let size: Int64
        let mtime: Int64
    }

    static func mp3Files(under root: String) -> [ScannedFile] {
        let keys: [URLResourceKey] = [.isRegularFileKey, .fileSizeKey, .contentModificationDateKey]
        guard let enumerator = FileManager.default.enumerator(
            at: URL(fileURLWithPath: root), includingPropertiesForKeys: keys) else { return [] }
        var files: [ScannedFile] = []
        for case let fileURL as URL in enumerator where fileURL.pathExtension.lowercased() == "mp3" {
            guard let values = try? fileURL.resourceValues(forKeys: Set(keys)), values.isRegularFile == true else {
                continue
            }
            files.append(ScannedFile(
                path: fileURL.standardizedFileURL.path,
                size: Int64(values.fileSize ?? 0),
                mtime: Int64((values.contentModificationDate ?? .distantPast).timeIntervalSince1970)))
        }
        return files.sorted { $0.path < $1.path }
    }

    static func songInput(for file: ScannedFile, key: String) throws -> SongInput {
        let info = try MP3Probe.probe(path: file.path)
        let url = URL(fileURLWithPath: file.path)
        let baseName = url.deletingPathExtension().lastPathComponent
        let title = info.tags.title.flatMap { $0.isEmpty ? nil : $0 } ?? baseName
        let singer = info.tags.artist.flatMap { $0.isEmpty ? nil : $0 } ?? "Unknown"
        var input = SongInput(key: key, title: title, singer: singer)
        input.album = info.tags.album.flatMap { $0.isEmpty ? nil : $0 }
        input.track = info.tags.track
        input.year = info.tags.year
        input.durationMs = info.durationMs
        input.localPath = file.path
        input.lyricsPath = siblingLyrics(of: url) ?? ""
        input.size = file.size
        input.fileMtime = file.mtime
        return input
    }

    static func siblingLyrics(of audio: URL) -> String? {
        let base = audio.deletingPathExtension()
        for ext in ["lrc", "LRC"] {
            let candidate = base.appendingPathExtension(ext).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
        }
        return nil
    }
}
