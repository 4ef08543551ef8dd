extension SubsonicEndpoints {
    static let annotation: [SubsonicEndpoint] = []
}
