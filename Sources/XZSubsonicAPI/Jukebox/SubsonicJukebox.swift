/// The host's own player as the jukebox sees it (`jukeboxStatus`).
package struct SubsonicJukeboxStatus: Encodable, Sendable, Equatable {
    /// The current entry's index, -1 when none.
    package var currentIndex: Int
    package var playing: Bool
    /// The volume, 0.0 to 1.0, named as Subsonic and the spec's documentation name it.
    package var gain: Double
    /// Seconds into the current entry.
    package var position: Int?
}

/// The status with the queue's entries (`jukeboxPlaylist`).
package struct SubsonicJukeboxPlaylist: Encodable, Sendable, Equatable {
    package var status: SubsonicJukeboxStatus
    package var entry: [SubsonicChild]?

    private enum CodingKeys: String, CodingKey { case entry }

    /// The status's fields and the entries side by side, as the spec's `allOf` has them.
    package func encode(to encoder: any Encoder) throws {
        try status.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(entry, forKey: .entry)
    }
}
