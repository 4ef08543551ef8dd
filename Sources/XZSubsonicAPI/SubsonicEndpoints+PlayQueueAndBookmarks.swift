extension SubsonicEndpoints {
    static let playQueueAndBookmarks: [SubsonicEndpoint] = []
}
