import Foundation

/// Every play session and like, as `export` writes them. Both formats read back to equal values.
package struct StatsArchive: Codable, Sendable, Equatable {
    package enum Format: String, Sendable, CaseIterable {
        case csv, json
    }

    package var sessions: [PlaySessionRecord]
    package var likes: [LikedSong]

    package init(sessions: [PlaySessionRecord], likes: [LikedSong]) {
        self.sessions = sessions
        self.likes = likes
    }

    package func encoded(as format: Format) throws -> Data {
        switch format {
        case .json:
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            return try encoder.encode(self)
        case .csv:
            return Data(csv().utf8)
        }
    }

    package static func decode(_ data: Data, as format: Format) throws -> StatsArchive {
        switch format {
        case .json:
            do {
                return try JSONDecoder().decode(StatsArchive.self, from: data)
            } catch let error as StatsError {
                throw error
            } catch {
                throw StatsError.badArchive("not a stats export: \(error)")
            }
        case .csv:
            return try StatsArchive(csv: String(decoding: data, as: UTF8.self))
        }
    }

    // MARK: CSV

    /// One table for both kinds, told apart by `record`, so a spreadsheet opens it as it is.
    static let columns = ["record", "id", "song_key", "song_id", "title", "singer", "time", "played_ms",
                          "position_ms", "duration_ms", "end_reason", "counted", "counted_at", "skip"]

    package func csv() -> String {
        var lines = [Self.columns.joined(separator: ",")]
        for s in sessions {
            lines.append(CSV.line([
                "session", "\(s.id)", s.songKey, s.songId.map(String.init) ?? "", s.title, s.singer,
                UTCTime.string(s.startedAt), "\(s.playedMs)", "\(s.positionMs)", s.durationMs.map(String.init) ?? "",
                s.endReason?.rawValue ?? "", s.counted ? "1" : "0", s.countedAt.map(UTCTime.string) ?? "",
                s.skip ? "1" : "0",
            ]))
        }
        for l in likes {
            lines.append(CSV.line([
                "like", "", l.songKey, l.songId.map(String.init) ?? "", l.title, l.singer, UTCTime.string(l.likedAt),
                "", "", "", "", "", "", "",
            ]))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    package init(csv text: String) throws {
        let rows = try CSV.parse(text)
        guard let header = rows.first, header == Self.columns else {
            throw StatsError.badArchive("not a stats export: the first line must be \(Self.columns.joined(separator: ","))")
        }
        sessions = []
        likes = []
        for (index, row) in rows.dropFirst().enumerated() {
            let line = index + 2
            guard row.count == Self.columns.count else {
                throw StatsError.badArchive("line \(line): \(row.count) fields, expected \(Self.columns.count)")
            }
            let field = Dictionary(uniqueKeysWithValues: zip(Self.columns, row))
            func text(_ name: String) -> String { field[name] ?? "" }
            func int(_ name: String) throws -> Int? {
                let value = text(name)
                if value.isEmpty { return nil }
                guard let number = Int(value) else { throw StatsError.badArchive("\(name) is not a number") }
                return number
            }
            func required(_ name: String) throws -> Int {
                guard let value = try int(name) else { throw StatsError.badArchive("\(name) is missing") }
                return value
            }
            do {
                switch text("record") {
                case "session":
                    let reason = text("end_reason")
                    guard reason.isEmpty || PlayEndReason(rawValue: reason) != nil else {
                        throw StatsError.badArchive("unknown end_reason \(reason)")
                    }
                    sessions.append(PlaySessionRecord(
                        id: Int64(try required("id")), songKey: text("song_key"),
                        songId: try int("song_id").map(Int64.init), title: text("title"), singer: text("singer"),
                        startedAt: try UTCTime.date(text("time")), playedMs: try required("played_ms"),
                        positionMs: try required("position_ms"), durationMs: try int("duration_ms"),
                        endReason: PlayEndReason(rawValue: reason), counted: try required("counted") != 0,
                        countedAt: text("counted_at").isEmpty ? nil : try UTCTime.date(text("counted_at")),
                        skip: try required("skip") != 0))
                case "like":
                    likes.append(LikedSong(songKey: text("song_key"), songId: try int("song_id").map(Int64.init),
                                           title: text("title"), singer: text("singer"),
                                           likedAt: try UTCTime.date(text("time"))))
                default:
                    throw StatsError.badArchive("record must be session or like")
                }
            } catch let error as StatsError {
                // What the line's fields are refused for, told with the line.
                throw StatsError.badArchive("line \(line): \(error.message)")
            }
        }
    }
}

/// RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled.
enum CSV {
    static func line(_ fields: [String]) -> String {
        fields.map { field in
            guard field.contains(where: { $0 == "," || $0 == "\"" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" })
            else { return field }
            return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }.joined(separator: ",")
    }

    /// Rows of fields; line breaks inside quotes belong to the field. Works on scalars so that
    /// "\r\n" is two breaks-worth of characters, not one grapheme.
    static func parse(_ text: String) throws -> [[String]] {
        var rows: [[String]] = []
        var row: [String] = []
        var field = String.UnicodeScalarView()
        var quoted = false, wasQuoted = false
        var scalars = text.unicodeScalars.makeIterator()
        var pending = scalars.next()
        func endField() { row.append(String(field)); field = String.UnicodeScalarView(); wasQuoted = false }
        while let c = pending {
            pending = scalars.next()
            if quoted {
                if c == "\"" {
                    if pending == "\"" { field.append(c); pending = scalars.next() } else { quoted = false }
                } else {
                    field.append(c)
                }
                continue
            }
            switch c {
            case "\"" where field.isEmpty && !wasQuoted:
                quoted = true
                wasQuoted = true
            case ",":
                endField()
            case "\r" where pending == "\n":
                break // the "\n" ends the row
            case "\n", "\r":
                endField()
                rows.append(row)
                row = []
            default:
                field.append(c)
            }
        }
        if quoted { throw StatsError.badArchive("a quoted field is not closed") }
        if !field.isEmpty || !row.isEmpty {
            endField()
            rows.append(row)
        }
        return rows
    }
}
