extension SubsonicEndpoints {
    static let system: [SubsonicEndpoint] = []
}
