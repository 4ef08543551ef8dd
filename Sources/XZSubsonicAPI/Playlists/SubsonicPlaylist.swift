/// A stored playlist as clients list it (the spec's `Playlist`).
package struct SubsonicPlaylist: Encodable, Sendable, Equatable {
    package var id: String
    package var name: String
    package var comment: String?
    package var owner: String?
    package var `public`: Bool?
    package var songCount: Int
    /// Seconds.
    package var duration: Int
    package var created: SubsonicDate
    package var changed: SubsonicDate
    package var coverArt: String?
    /// The calling user may not change it.
    package var readonly: Bool?
}

/// A playlist with its songs (`PlaylistWithSongs`).
package struct SubsonicPlaylistWithSongs: Encodable, Sendable, Equatable {
    package var playlist: SubsonicPlaylist
    package var entry: [SubsonicChild]?

    private enum CodingKeys: String, CodingKey { case entry }

    /// The playlist's fields and its songs side by side, as the spec's `allOf` has them.
    package func encode(to encoder: any Encoder) throws {
        try playlist.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(entry, forKey: .entry)
    }
}

package struct SubsonicPlaylists: Encodable, Sendable, Equatable {
    package var playlist: [SubsonicPlaylist]
}
