import Foundation
import XZCatalogue

/// A library database in a fresh temporary folder, removed when the test ends.
public final class TestLibrary: Sendable {
    public let folder: URL
    public let database: LibraryDatabase

    public init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("xzmusic-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        database = try LibraryDatabase(path: folder.appendingPathComponent("library.sqlite").path)
    }

    deinit { try? FileManager.default.removeItem(at: folder) }

    /// Writes a feed from JSON objects (or raw lines) and imports it.
    @discardableResult
    public func importFeed(_ lines: [String], name: String = "feed.jsonl") throws -> ImportSummary {
        let url = folder.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return try database.importFeed(at: url)
    }

    public static func line(_ fields: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    public func titles(_ query: String, limit: Int = 20) throws -> [String] {
        try database.search(query, limit: limit).songs.map(\.title)
    }
}

/// The repository root, found from this file's path.
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
public let corporaRoot = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")
