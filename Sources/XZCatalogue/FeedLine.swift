import Foundation
import GRDB

/// Parses catalogue feed lines (JSON Lines, one song per line).
///
/// A UTF-8 scanner that accepts and refuses exactly the lines Foundation's JSONDecoder does, with
/// the same messages: lenient structure (trailing commas, any run of number characters in values
/// nobody reads), values checked only where a key is read, the first of duplicate keys winning.
/// FeedLineEquivalenceTests hold the two to the same answers; `make bench-search` measures both.
package struct FeedLine: Sendable {
    private let baseDirectory: URL?

    /// `baseDirectory` resolves the optional `audio_file` / `lyrics_file` keys of bundled feeds such
    /// as the demo library.
    package init(baseDirectory: URL?) {
        self.baseDirectory = baseDirectory
    }

    /// The song a line describes, or a message saying what is wrong with it.
    package func parse(_ bytes: Data) -> Result<SongInput, CatalogueError> {
        bytes.withUnsafeBytes { raw in parse(raw.bindMemory(to: UInt8.self)) }
    }

    func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> Result<SongInput, CatalogueError> {
        let record: Record
        do {
            if Record.mayNotBeUTF8(bytes) {
                record = try Record(foundation: Data(buffer: bytes))
            } else {
                record = try Record(FeedObject.scan(Record.droppingUTF8BOM(bytes)))
            }
        } catch let error as CatalogueError {
            return .failure(error)
        } catch {
            return .failure(CatalogueError.badFeedLine("\(error)"))
        }
        do {
            guard let title = record.title, !title.isEmpty else { throw CatalogueError.badFeedLine("missing \"title\"") }
            guard let singer = record.singer, !singer.isEmpty else { throw CatalogueError.badFeedLine("missing \"singer\"") }
            try record.validate()
            let album = record.album.flatMap { $0.isEmpty ? nil : $0 }
            let sourceId = record.sourceId ?? ""
            let key = sourceId.isEmpty ? "meta:\(singer)\u{1F}\(album ?? "")\u{1F}\(title)" : "src:\(sourceId)"
            var input = SongInput(key: key, title: title, singer: singer)
            input.album = album
            input.track = record.track.map { Int(clamping: $0) }
            input.year = record.year.map { Int(clamping: $0) }
            input.albumArtist = record.albumArtist.flatMap { $0.isEmpty ? nil : $0 }
            input.genres = record.genre.flatMap { $0.isEmpty ? nil : [$0] } ?? []
            input.disc = record.disc.map { Int(clamping: $0) }
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
            return .failure(CatalogueError.badFeedLine("\(error)"))
        }
    }

    /// One feed line's keys; unknown keys are ignored, numbers may also come as numeric strings.
    /// Keys are read in this order, so the first bad one names the error.
    struct Record {
        var sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile: String?
        var albumArtist, genre: String?
        var track, year, durationMs, size, disc: Int64?

        static let textKeys = ["source_id", "title", "singer", "album", "audio_url", "lyrics_url", "sha256",
                               "audio_file", "lyrics_file", "album_artist", "genre"]
        static let numberKeys = ["track", "year", "duration_ms", "size", "disc"]
        static let keys = (textKeys + numberKeys).map { Array($0.utf8) }

        init(_ object: FeedObject) throws {
            sourceId = try object.text(0, "source_id")
            title = try object.text(1, "title")
            singer = try object.text(2, "singer")
            album = try object.text(3, "album")
            audioURL = try object.text(4, "audio_url")
            lyricsURL = try object.text(5, "lyrics_url")
            sha256 = try object.text(6, "sha256")
            audioFile = try object.text(7, "audio_file")
            lyricsFile = try object.text(8, "lyrics_file")
            albumArtist = try object.text(9, "album_artist")
            genre = try object.text(10, "genre")
            track = try object.number(11, "track")
            year = try object.number(12, "year")
            durationMs = try object.number(13, "duration_ms")
            size = try object.number(14, "size")
            disc = try object.number(15, "disc")
        }

        /// Values no catalogue could mean are refused with the key's name, so the line is reported
        /// instead of showing a negative duration or an unusable URL later.
        func validate() throws {
            let texts = [sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile,
                         albumArtist, genre]
            for (key, value) in zip(Self.textKeys, texts) {
                guard let value else { continue }
                // SQLite would keep the text only up to a NUL.
                if value.utf8.contains(0) { throw CatalogueError.badFeedLine("\"\(key)\" contains a NUL character") }
                let limit = key.hasSuffix("_url") ? 8192 : 4096
                if value.utf8.count > limit { throw CatalogueError.badFeedLine("\"\(key)\" is longer than \(limit) bytes") }
            }
            let ranges: [(String, Int64?, ClosedRange<Int64>)] = [
                ("track", track, 0...9999), ("year", year, 0...9999), ("disc", disc, 0...9999),
                ("duration_ms", durationMs, 0...360_000_000), ("size", size, 0...Int64.max),
            ]
            for (key, value, range) in ranges {
                if let value, !range.contains(value) {
                    throw CatalogueError.badFeedLine("\"\(key)\" must be between \(range.lowerBound) and \(range.upperBound), not \(value)")
                }
            }
            for (key, value) in [("audio_url", audioURL), ("lyrics_url", lyricsURL)] {
                guard let value, !value.isEmpty else { continue }
                let lower = value.lowercased()
                guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
                    throw CatalogueError.badFeedLine("\"\(key)\" must be an http:// or https:// URL")
                }
            }
            if let sha256, !sha256.isEmpty,
               sha256.utf8.count != 64 || !sha256.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 | 0x20 >= 97 && $0 | 0x20 <= 102) }) {
                throw CatalogueError.badFeedLine("\"sha256\" must be 64 hexadecimal digits")
            }
        }

        init(texts: [String?], numbers: [Int64?]) {
            (sourceId, title, singer, album, audioURL, lyricsURL, sha256, audioFile, lyricsFile) =
                (texts[0], texts[1], texts[2], texts[3], texts[4], texts[5], texts[6], texts[7], texts[8])
            (albumArtist, genre) = (texts[9], texts[10])
            (track, year, durationMs, size) = (numbers[0], numbers[1], numbers[2], numbers[3])
            disc = numbers[4]
        }
    }

    /// A file named by a feed must stay inside the feed's own folder.
    private static func bundledFile(_ relative: String, in base: URL) throws -> String? {
        guard !relative.isEmpty else { return nil }
        let resolved = base.appendingPathComponent(relative).standardizedFileURL.path
        let root = base.standardizedFileURL.path
        guard resolved.hasPrefix(root + "/") else {
            throw CatalogueError.badFeedLine("file \"\(relative)\" is outside the feed's folder")
        }
        return FileManager.default.fileExists(atPath: resolved) ? resolved : nil
    }
}

/// A line that may be UTF-16 or UTF-32 (a byte-order mark or zero bytes up front), which only
/// JSONDecoder reads, goes through JSONDecoder itself.
extension FeedLine.Record {
    static func mayNotBeUTF8(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let first = bytes.first else { return false }
        return first == 0 || first == 0xFE || first == 0xFF || (bytes.count > 1 && bytes[1] == 0)
    }

    static func droppingUTF8BOM(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        guard bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF else { return bytes }
        return UnsafeBufferPointer(rebasing: bytes[3...])
    }

    init(foundation data: Data) throws {
        let decoded: Decoded
        do {
            decoded = try JSONDecoder().decode(Decoded.self, from: data)
        } catch let error as CatalogueError {
            throw error
        } catch DecodingError.typeMismatch(_, let context) where context.codingPath.isEmpty {
            throw CatalogueError.badFeedLine("not a JSON object")
        } catch {
            throw FeedObject.invalid
        }
        self = decoded.record
    }

    private struct Decoded: Decodable {
        var record: FeedLine.Record

        struct Key: CodingKey {
            var stringValue: String
            init(stringValue: String) { self.stringValue = stringValue }
            var intValue: Int? { nil }
            init?(intValue: Int) { nil }
        }

        init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: Key.self)
            func text(_ name: String) throws -> String? {
                let key = Key(stringValue: name)
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                // Any other type is refused below in the scanner's words, not the decoder's.
                guard let value = try? c.decode(String.self, forKey: key) else {
                    throw CatalogueError.badFeedLine("\"\(name)\" must be a string")
                }
                return value.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            func number(_ name: String) throws -> Int64? {
                let key = Key(stringValue: name)
                guard c.contains(key), try !c.decodeNil(forKey: key) else { return nil }
                // A number, else a number in a string; anything else is refused below in the scanner's words.
                if let value = try? c.decode(Int64.self, forKey: key) { return value }
                if let value = try? c.decode(String.self, forKey: key), let parsed = Int64(value) { return parsed }
                throw CatalogueError.badFeedLine("\"\(name)\" must be a whole number")
            }
            let texts = try FeedLine.Record.textKeys.map(text)
            let numbers = try FeedLine.Record.numberKeys.map(number)
            record = FeedLine.Record(texts: texts, numbers: numbers)
        }
    }
}
