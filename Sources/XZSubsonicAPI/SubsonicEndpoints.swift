/// The one table of the API: every endpoint a client may call, gathered from the groups beside it. An
/// endpoint not in it answers as the spec says for an unknown one.
package enum SubsonicEndpoints {
    package static let all: [String: SubsonicEndpoint] = {
        let rows = system + browsing + lists + search + media + coverArtAndLyrics + annotation + playQueueAndBookmarks
            + playlists + radio + jukebox + scan + users + unsupported
        return Dictionary(rows.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
    }()
}
