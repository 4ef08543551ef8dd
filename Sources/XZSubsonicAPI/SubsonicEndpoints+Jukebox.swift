extension SubsonicEndpoints {
    static let jukebox: [SubsonicEndpoint] = []
}
