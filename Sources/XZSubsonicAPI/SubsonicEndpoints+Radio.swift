extension SubsonicEndpoints {
    static let radio: [SubsonicEndpoint] = []
}
