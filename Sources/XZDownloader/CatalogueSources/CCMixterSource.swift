import Foundation
import XZCatalogue

/// ccMixter's query API (`/api/query?f=json`): uploads with their files. Its JSON carries numbers with
/// leading zeros, which `SourceHTTP` reads leniently.
struct CCMixterSource: CatalogueSource {
    let name = "ccmixter"
    let base: String

    static let audioSuffixes = [".mp3", ".ogg", ".flac"]

    func search(_ query: String, limit: Int, http: SourceHTTP) async throws -> [CatalogueSong] {
        let url = try SourceHTTP.url(base, "/api/query", [
            ("f", "json"), ("search", query), ("limit", String(min(limit, 200))),
        ], source: name)
        guard let uploads = try await http.json(url, source: name) as? [Any] else {
            throw DownloadError.catalogueSource("ccmixter: the answer is not a list of uploads")
        }
        return uploads.compactMap { $0 as? [String: Any] }.compactMap { upload -> CatalogueSong? in
            guard let id = JSONValue.text(upload["upload_id"]), let title = JSONValue.text(upload["upload_name"]) else { return nil }
            let files = (upload["files"] as? [Any] ?? []).compactMap { $0 as? [String: Any] }
            guard let file = files.first(where: Self.isAudio), let audio = JSONValue.text(file["download_url"]) else { return nil }
            var song = CatalogueSong(source: name, id: id, title: title,
                                     singer: JSONValue.text(upload["user_real_name"]) ?? JSONValue.text(upload["user_name"]) ?? "Unknown",
                                     audioURL: audio)
            song.year = JSONValue.year(upload["upload_date"])
            let info = file["file_format_info"] as? [String: Any]
            song.durationMs = JSONValue.durationMs(info?["ps"])
            song.size = JSONValue.int(file["file_rawsize"])
            song.licence = JSONValue.text(upload["license_url"]) ?? JSONValue.text(upload["license_name"]) ?? ""
            song.page = JSONValue.text(upload["file_page_url"]) ?? ""
            return song
        }
    }

    static func isAudio(_ file: [String: Any]) -> Bool {
        let info = file["file_format_info"] as? [String: Any]
        if let mime = JSONValue.text(info?["mime_type"]), mime.hasPrefix("audio/") { return true }
        let name = (JSONValue.text(file["file_name"]) ?? JSONValue.text(file["download_url"]) ?? "").lowercased()
        return audioSuffixes.contains { name.hasSuffix($0) }
    }
}
