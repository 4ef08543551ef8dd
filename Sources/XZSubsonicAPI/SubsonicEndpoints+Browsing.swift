extension SubsonicEndpoints {
    static let browsing: [SubsonicEndpoint] = []
}
