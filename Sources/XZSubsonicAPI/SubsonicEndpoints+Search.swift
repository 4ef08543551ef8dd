extension SubsonicEndpoints {
    static let search: [SubsonicEndpoint] = []
}
