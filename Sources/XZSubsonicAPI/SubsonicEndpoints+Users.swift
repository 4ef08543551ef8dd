extension SubsonicEndpoints {
    static let users: [SubsonicEndpoint] = []
}
