import Foundation
import XZCatalogue
import XZTestSupport

/// A library database in a fresh temporary folder, removed when the test ends.
package final class TestLibrary: Sendable {
    private let temporary: TemporaryFolder
    package var folder: URL { temporary.url }
    package let database: LibraryDatabase

    package init() throws {
        temporary = try TemporaryFolder("library")
        database = try LibraryDatabase(path: temporary.path("library.sqlite"))
    }

    /// Writes a feed from JSON objects (or raw lines) and imports it.
    @discardableResult
    package func importFeed(_ lines: [String], name: String = "feed.jsonl") throws -> ImportSummary {
        let url = folder.appendingPathComponent(name)
        try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
        return try database.importFeed(at: url)
    }

    package static func line(_ fields: [String: Any]) -> String {
        let data = try? JSONSerialization.data(withJSONObject: fields, options: [.sortedKeys])
        return String(decoding: data ?? Data(), as: UTF8.self)
    }

    package func titles(_ query: String, limit: Int = 20) throws -> [String] {
        try database.search(query, limit: limit).songs.map(\.title)
    }
}
