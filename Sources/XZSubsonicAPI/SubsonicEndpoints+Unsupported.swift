extension SubsonicEndpoints {
    static let unsupported: [SubsonicEndpoint] = []
}
