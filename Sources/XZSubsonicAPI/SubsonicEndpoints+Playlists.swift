extension SubsonicEndpoints {
    static let playlists: [SubsonicEndpoint] = []
}
