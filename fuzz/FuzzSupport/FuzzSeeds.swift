import Foundation

/// A fuzzer's seed corpus on disk, as libFuzzer reads it.
package enum FuzzSeeds {
    /// Writes each seed to a file of FOLDER named by a hash of its bytes (so writing again replaces it),
    /// and the words of libFuzzer's dictionary to FOLDER.dict.
    package static func write(_ seeds: [String], words: Set<String>, to folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for seed in seeds {
            let data = Data(seed.utf8)
            try data.write(to: URL(fileURLWithPath: folder).appendingPathComponent("seed-\(stableHash(data))"))
        }
        // libFuzzer takes words of 1 to 64 bytes.
        let entries = words.filter { (1...64).contains($0.utf8.count) }.sorted().map { "\"" + dictionaryEscaped($0) + "\"" }
        try (entries.joined(separator: "\n") + "\n").write(toFile: folder + ".dict", atomically: true, encoding: .utf8)
    }

    private static func dictionaryEscaped(_ word: String) -> String {
        word.utf8.map { byte in
            byte == 0x22 || byte == 0x5C || byte < 0x20 || byte > 0x7E ? String(format: "\\x%02X", byte)
                : String(UnicodeScalar(byte))
        }.joined()
    }

    /// FNV-1a, the same from run to run (unlike Swift's `Hasher`).
    private static func stableHash(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf29ce484222325
        for byte in data { hash = (hash ^ UInt64(byte)) &* 0x100000001b3 }
        return String(hash, radix: 16)
    }
}
