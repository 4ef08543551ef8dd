import Foundation

/// Damage done to a closed SQLite file the ways disks and crashes do it, for the tests of how a damaged
/// library is told.
package enum DamagedDatabase {
    package enum Damage {
        /// Cut to this many bytes (0: an empty file).
        case truncated(Int)
        /// Its first bytes, SQLite's header among them, overwritten.
        case garbageHeader
        /// Every page holding `text` (a song's title: table and index pages, never the schema's) filled
        /// with garbage, so the file opens and reading those songs fails.
        case garbagePages(containing: String)
    }

    package static func damage(_ path: String, _ damage: Damage) throws {
        let url = URL(fileURLWithPath: path)
        var data = try Data(contentsOf: url)
        switch damage {
        case .truncated(let count):
            data = data.prefix(count)
        case .garbageHeader:
            data.replaceSubrange(0..<32, with: Data(repeating: 0x5A, count: 32))
        case .garbagePages(let text):
            let pageSize = Int(data[16]) << 8 | Int(data[17])
            let needle = Data(text.utf8)
            var damaged = 0
            for start in stride(from: pageSize, to: data.count, by: pageSize) {
                let page = start..<min(start + pageSize, data.count)
                guard data[page].range(of: needle) != nil else { continue }
                data.replaceSubrange(page, with: Data((0..<page.count).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }))
                damaged += 1
            }
            guard damaged > 0 else { throw TestFailure("no page of \(path) holds \(text)") }
        }
        try data.write(to: url)
    }
}
