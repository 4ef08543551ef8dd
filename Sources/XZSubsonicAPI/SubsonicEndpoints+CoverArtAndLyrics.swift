extension SubsonicEndpoints {
    static let coverArtAndLyrics: [SubsonicEndpoint] = []
}
