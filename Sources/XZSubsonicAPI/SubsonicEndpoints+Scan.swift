extension SubsonicEndpoints {
    static let scan: [SubsonicEndpoint] = []
}
