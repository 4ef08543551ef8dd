extension SubsonicEndpoints {
    /// `stream` and `download`; `getCoverArt` and the lyrics live with their cache.
    static let media: [SubsonicEndpoint] = [
        SubsonicEndpoint("stream") { try $0.library.media.stream($0.request) },
        SubsonicEndpoint("download") { try $0.library.media.download($0.request) },
    ]
}
