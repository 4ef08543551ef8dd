import Foundation
import XZCatalogue

/// The Internet Archive: `advancedsearch.php` finds audio items, `/metadata/{id}` lists each item's files
/// with size, MD5 and SHA-1, and `/download/{id}/{file}` serves them. A song's id is "item/file".
struct InternetArchiveSource: CatalogueSource {
    let name = "archive"
    let base: String

    /// Audio formats in the order one is picked per item (items often hold the same tracks several times).
    static let formats: [(suffix: String, format: String)] = [(".mp3", "mp3"), (".ogg", "ogg"), (".flac", "flac"), (".opus", "opus")]

    func search(_ query: String, limit: Int, http: SourceHTTP) async throws -> [CatalogueSong] {
        let url = try SourceHTTP.url(base, "/advancedsearch.php", [
            ("q", "(\(query)) AND mediatype:(audio)"), ("fl[]", "identifier"), ("rows", String(min(limit, 50))),
            ("page", "1"), ("output", "json"),
        ], source: name)
        let answer = try await http.json(url, source: name)
        guard let response = (answer as? [String: Any])?["response"] as? [String: Any],
              let docs = response["docs"] as? [Any] else {
            throw DownloadError.catalogueSource("archive: the search answer has no response.docs")
        }
        var songs: [CatalogueSong] = []
        for identifier in docs.compactMap({ JSONValue.text(($0 as? [String: Any])?["identifier"]) }) {
            guard songs.count < limit else { break }
            songs += try await item(identifier, http: http)
        }
        return songs
    }

    /// An item's audio files of one format, in track order.
    func item(_ identifier: String, http: SourceHTTP) async throws -> [CatalogueSong] {
        let url = try SourceHTTP.url(base, "/metadata/" + Self.pathSegment(identifier), [], source: name)
        guard let answer = try await http.json(url, source: name) as? [String: Any] else { return [] }
        let metadata = answer["metadata"] as? [String: Any] ?? [:]
        let files = (answer["files"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
        let audio = Self.formats.lazy.map { format in
            files.filter { (JSONValue.text($0["name"]) ?? "").lowercased().hasSuffix(format.suffix) }
        }.first { !$0.isEmpty } ?? []
        let itemTitle = JSONValue.text(metadata["title"]) ?? identifier
        let creator = JSONValue.text(metadata["creator"]) ?? "Unknown"
        var trimmedBase = base
        while trimmedBase.hasSuffix("/") { trimmedBase.removeLast() }
        return audio.compactMap { file -> CatalogueSong? in
            guard let fileName = JSONValue.text(file["name"]), !fileName.isEmpty else { return nil }
            let stem = (fileName as NSString).deletingPathExtension
            var song = CatalogueSong(source: name, id: identifier + "/" + fileName,
                                     title: JSONValue.text(file["title"]) ?? stem,
                                     singer: JSONValue.text(file["creator"]) ?? JSONValue.text(file["artist"]) ?? creator,
                                     audioURL: trimmedBase + "/download/" + Self.pathSegment(identifier) + "/"
                                         + fileName.split(separator: "/").map { Self.pathSegment(String($0)) }.joined(separator: "/"))
            song.album = JSONValue.text(file["album"]) ?? itemTitle
            song.track = JSONValue.text(file["track"]).flatMap { Int($0.prefix { $0.isNumber }) }
            song.year = JSONValue.year(metadata["year"]) ?? JSONValue.year(metadata["date"])
            song.durationMs = JSONValue.durationMs(file["length"])
            song.genre = JSONValue.text(file["genre"])
            song.size = JSONValue.int(file["size"])
            song.md5 = JSONValue.text(file["md5"]) ?? ""
            song.sha1 = JSONValue.text(file["sha1"]) ?? ""
            song.licence = JSONValue.text(metadata["licenseurl"]) ?? ""
            song.page = trimmedBase + "/details/" + Self.pathSegment(identifier)
            return song
        }
    }

    static func pathSegment(_ text: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
    }
}
