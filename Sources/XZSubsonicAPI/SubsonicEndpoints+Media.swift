extension SubsonicEndpoints {
    static let media: [SubsonicEndpoint] = []
}
