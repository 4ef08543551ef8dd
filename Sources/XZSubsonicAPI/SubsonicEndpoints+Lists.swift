extension SubsonicEndpoints {
    static let lists: [SubsonicEndpoint] = []
}
