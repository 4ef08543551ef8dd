import Foundation
import GRDB
import GRDBSQLite

/// A song or singer close to a query that matched nothing: "晴天 — 周杰伦 (qingtian)" for "qingtain".
package struct SearchSuggestion: Sendable, Equatable, Encodable {
    package enum Kind: String, Sendable, Encodable { case song, singer }

    package var kind: Kind
    /// The song's or the singer's id.
    package var id: Int64
    /// The song's title, or the singer's name.
    package var name: String
    /// The song's singer; nil for a singer.
    package var singer: String?
    /// The pinyin the query came close to, when that is what it resembled; nil otherwise.
    package var pinyin: String?
    /// Edits (a character left out, added, changed, or two swapped) between the folded query and the
    /// whole folded title or name it resembled.
    package var distance: Int
}

/// Why edit neighbourhoods rather than trigram overlap: a typo in a short word leaves it no trigram in
/// common with the word meant ("bjrok" and "bjork" share none), and a pinyin typo can only be seen on
/// the pinyin keys, which the trigram index does not hold. So the folded query (and its pinyin, for
/// Han typed with the wrong character) is varied by one edit, and each variant is looked up as a
/// prefix of the folded title and singer keys in their indexes: a few thousand point lookups at
/// most, whatever the size of the library. Variants are only made where the query can still go wrong:
/// an edit after the longest prefix of the query that any key begins with leaves that prefix unmatched,
/// and a query some key begins with needs none.
enum SearchSuggestions {
    /// At most this many suggestions.
    static let most = 5
    /// Rows a variant may bring from one key index: the equal key comes first, then the keys it begins.
    static let rowsPerVariant: Int32 = 3
    /// Suggestions a variant found further from the query than the closest one by more than this are dropped.
    static let spread = 2

    struct Column {
        var kind: SearchSuggestion.Kind
        var sql: String
        var isPinyin: Bool

        init(_ kind: SearchSuggestion.Kind, table: String, column: String, partialIndex: String?, isPinyin: Bool) {
            self.kind = kind
            self.isPinyin = isPinyin
            // The condition of a partial index must be in the query for SQLite to use that index.
            let partial = partialIndex.map { " AND \($0)" } ?? ""
            sql = """
                SELECT id, \(column) FROM \(table) WHERE \(column) >= ?1 AND \(column) < ?2\(partial)
                ORDER BY \(column) LIMIT ?3
                """
        }
    }

    static let columns = [
        Column(.song, table: "song", column: "title_key", partialIndex: nil, isPinyin: false),
        Column(.song, table: "song", column: "title_pinyin", partialIndex: "title_pinyin <> title_key", isPinyin: true),
        Column(.singer, table: "singer", column: "name_key", partialIndex: nil, isPinyin: false),
        Column(.singer, table: "singer", column: "name_pinyin", partialIndex: "name_pinyin <> name_key", isPinyin: true),
    ]

    /// The folded forms of a query worth varying: its key, and its pinyin when that differs.
    static func forms(_ query: String) -> [[Unicode.Scalar]] {
        var field = FoldedField()
        field.fold(query)
        guard !field.isEmpty else { return [] }
        let key = field.keyString, pinyin = field.pinyinKeyString
        return (pinyin == key ? [key] : [key, pinyin]).map { Array($0.unicodeScalars) }
    }

    /// Shorter variants find too much that only happens to begin the same way. Letters say less than
    /// CJK characters, so Latin needs more of them.
    static func shortest(_ form: [Unicode.Scalar]) -> Int {
        form.allSatisfy(\.isASCII) ? 4 : 2
    }

    static let alphabet: [Unicode.Scalar] = Array("abcdefghijklmnopqrstuvwxyz0123456789".unicodeScalars)

    struct Hit {
        var kind: SearchSuggestion.Kind
        var id: Int64
        var value: String
        var isPinyin: Bool
        /// 0 when the query itself begins the key, 1 when a variant does.
        var edits: Int
        var distance: Int

        var rank: (Int, Int) { (edits, distance) }
    }

    static func suggestions(_ db: Database, query: String, limit: Int) throws -> [SearchSuggestion] {
        let forms = forms(query).filter { $0.count >= shortest($0) }
        guard !forms.isEmpty, limit > 0 else { return [] }
        var best: [String: Hit] = [:]
        for column in columns {
            let probe = try KeyProbe(db, sql: column.sql)
            for form in forms {
                for (variant, edits) in try variants(of: form, probe: probe) {
                    try probe.rows(beginning: variant, limit: rowsPerVariant) { id, value in
                        let hit = Hit(kind: column.kind, id: id, value: value, isPinyin: column.isPinyin, edits: edits,
                                      distance: editDistance(form, Array(value.unicodeScalars)))
                        let key = "\(column.kind.rawValue)\(id)"
                        if let known = best[key], known.rank <= hit.rank { return }
                        best[key] = hit
                    }
                }
            }
        }
        guard let closest = best.values.map(\.distance).min() else { return [] }
        // What the query itself begins is kept however long the rest is.
        let kept = best.values.filter { $0.edits == 0 || $0.distance <= closest + spread }
        return try describe(db, kept).sorted { a, b in
            if a.hit.rank != b.hit.rank { return a.hit.rank < b.hit.rank }
            if a.suggestion.name != b.suggestion.name { return a.suggestion.name < b.suggestion.name }
            return (a.hit.kind.rawValue, a.hit.id) < (b.hit.kind.rawValue, b.hit.id)
        }.prefix(min(limit, most)).map(\.suggestion)
    }

    /// The query and its one-edit variants worth looking up, each with its number of edits.
    static func variants(of form: [Unicode.Scalar], probe: KeyProbe) throws -> [(String, Int)] {
        let n = form.count
        // The longest prefix of the form that some key begins with: binary search, as it only shrinks.
        var low = 0, high = n
        while low < high {
            let middle = (low + high + 1) / 2
            if try probe.anyBeginning(String(String.UnicodeScalarView(form[0..<middle]))) { low = middle } else { high = middle - 1 }
        }
        let matched = low
        var out: [(String, Int)] = []
        var seen = Set<String>()
        let minimum = shortest(form)
        func add(_ scalars: [Unicode.Scalar], _ edits: Int) {
            guard scalars.count >= minimum else { return }
            let text = String(String.UnicodeScalarView(scalars))
            if seen.insert(text).inserted { out.append((text, edits)) }
        }
        // A key begins with the form itself: those keys outrank anything a variant finds.
        if matched == n {
            add(form, 0)
            return out
        }
        // Letters and digits are all a folded Latin key holds; a CJK form is only reordered or shortened.
        let letters = form.allSatisfy(\.isASCII) ? alphabet : []
        for i in 0...matched {
            let head = Array(form[0..<i]), tail = form[(i + 1)...]
            add(head + tail, 1)
            if i + 1 < n, form[i] != form[i + 1] { add(head + [form[i + 1], form[i]] + form[(i + 2)...], 1) }
            for c in letters where c != form[i] { add(head + [c] + tail, 1) }
            for c in letters { add(head + [c] + form[i...], 1) }
        }
        return out
    }

    /// Optimal string alignment distance: Levenshtein with adjacent swaps counting one edit.
    static func editDistance(_ a: [Unicode.Scalar], _ b: [Unicode.Scalar]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var d = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] { d = min(d, before[j - 2] + 1) }
                current[j] = d
            }
            (before, previous, current) = (previous, current, before)
        }
        return previous[b.count]
    }

    /// What a suggestion shows: the song's title and singer, or the singer's name.
    private static func describe(_ db: Database, _ hits: [Hit]) throws -> [(suggestion: SearchSuggestion, hit: Hit)] {
        func ids(_ kind: SearchSuggestion.Kind) -> String {
            "[" + hits.filter { $0.kind == kind }.map { String($0.id) }.joined(separator: ",") + "]"
        }
        var names: [String: (String, String?)] = [:]
        let songs = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT song.id, song.title, singer.name FROM json_each(?) AS hit
            CROSS JOIN song ON song.id = hit.value JOIN singer ON singer.id = song.singer_id
            """), arguments: [ids(.song)])
        while let row = try songs.next() { names["song\(row[0] as Int64)"] = (row[1], row[2]) }
        let singers = try Row.fetchCursor(db.cachedStatement(sql: """
            SELECT singer.id, singer.name FROM json_each(?) AS hit CROSS JOIN singer ON singer.id = hit.value
            """), arguments: [ids(.singer)])
        while let row = try singers.next() { names["singer\(row[0] as Int64)"] = (row[1], nil) }
        return hits.compactMap { hit in
            guard let (name, singer) = names["\(hit.kind.rawValue)\(hit.id)"] else { return nil }
            return (SearchSuggestion(kind: hit.kind, id: hit.id, name: name, singer: singer,
                                     pinyin: hit.isPinyin ? hit.value : nil, distance: hit.distance), hit)
        }
    }
}

/// One key index read through the C API: suggestions make up to a few thousand of these lookups.
struct KeyProbe {
    private let statement: Statement
    private let db: Database

    init(_ db: Database, sql: String) throws {
        self.db = db
        statement = try db.cachedStatement(sql: sql)
    }

    func anyBeginning(_ prefix: String) throws -> Bool {
        var found = false
        try rows(beginning: prefix, limit: 1) { _, _ in found = true }
        return found
    }

    /// Rows (id, key) whose key begins with `prefix`, in key order.
    func rows(beginning prefix: String, limit: Int32, _ body: (Int64, String) -> Void) throws {
        let handle = statement.sqliteStatement
        defer {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        }
        // Above every key that begins with `prefix`: folded text never holds U+10FFFF.
        let end = prefix + "\u{10FFFF}"
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        sqlite3_bind_text(handle, 1, prefix, -1, transient)
        sqlite3_bind_text(handle, 2, end, -1, transient)
        sqlite3_bind_int(handle, 3, limit)
        while true {
            let code = sqlite3_step(handle)
            if code == SQLITE_DONE { return }
            guard code == SQLITE_ROW else {
                throw DatabaseError(resultCode: ResultCode(rawValue: code),
                                    message: String(cString: sqlite3_errmsg(db.sqliteConnection)), sql: statement.sql)
            }
            guard let text = sqlite3_column_text(handle, 1) else { continue }
            body(sqlite3_column_int64(handle, 0), String(cString: text))
        }
    }
}
