import Foundation
import XZCatalogue

/// Jamendo's API v3 (`/v3.0/tracks/`), which wants an application's `client_id` (the config's
/// `jamendo_client_id`). A track is downloadable only when `audiodownload_allowed`; otherwise its stream is
/// kept for online play only.
struct JamendoSource: CatalogueSource {
    let name = "jamendo"
    let base: String
    let clientID: String

    func search(_ query: String, limit: Int, http: SourceHTTP) async throws -> [CatalogueSong] {
        guard !clientID.isEmpty else {
            throw DownloadError.catalogueSource("jamendo: set jamendo_client_id in the config (a free Jamendo API client id)")
        }
        let url = try SourceHTTP.url(base, "/v3.0/tracks/", [
            ("client_id", clientID), ("format", "json"), ("limit", String(min(limit, 200))), ("search", query),
            ("audioformat", "mp32"),
        ], source: name)
        guard let answer = try await http.json(url, source: name) as? [String: Any],
              let results = answer["results"] as? [Any] else {
            throw DownloadError.catalogueSource("jamendo: the answer has no results")
        }
        if let headers = answer["headers"] as? [String: Any], let status = JSONValue.text(headers["status"]), status != "success" {
            let message = JSONValue.text(headers["error_message"]) ?? status
            throw DownloadError.catalogueSource("jamendo: \(message)")
        }
        return results.compactMap { $0 as? [String: Any] }.compactMap { track -> CatalogueSong? in
            guard let id = JSONValue.text(track["id"]), let title = JSONValue.text(track["name"]) else { return nil }
            let allowed = (track["audiodownload_allowed"] as? Bool) ?? (JSONValue.int(track["audiodownload_allowed"]) == 1)
            let download = JSONValue.text(track["audiodownload"]) ?? ""
            let stream = JSONValue.text(track["audio"]) ?? ""
            let useDownload = allowed && !download.isEmpty
            guard useDownload || !stream.isEmpty else { return nil }
            var song = CatalogueSong(source: name, id: id, title: title, singer: JSONValue.text(track["artist_name"]) ?? "Unknown",
                                     audioURL: useDownload ? download : stream)
            song.album = JSONValue.text(track["album_name"])
            song.track = JSONValue.int(track["position"]).map { Int(clamping: $0) }
            song.year = JSONValue.year(track["releasedate"])
            song.durationMs = JSONValue.durationMs(track["duration"])
            song.licence = JSONValue.text(track["license_ccurl"]) ?? ""
            song.page = JSONValue.text(track["shareurl"]) ?? JSONValue.text(track["shorturl"]) ?? ""
            song.downloadAllowed = useDownload
            return song
        }
    }
}
