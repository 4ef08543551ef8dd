extension SubsonicEndpoints {
    /// Features this server does not have. Users hold none of their roles (`shareRole`, `podcastRole`,
    /// `videoConversionRole` are false), so by the spec the call is one the user is not authorized for:
    /// error 50, saying the feature is missing. Lists a client reads at start answer empty instead, so
    /// that client shows an empty page rather than an error.
    static let unsupported: [SubsonicEndpoint] = [
        emptyList("getPodcasts", key: "podcasts"),
        emptyList("getNewestPodcasts", key: "newestPodcasts"),
        emptyList("getShares", key: "shares"),
        emptyList("getChatMessages", key: "chatMessages"),
        emptyList("getVideos", key: "videos"),
    ] + [
        ("refreshPodcasts", "podcasts"), ("createPodcastChannel", "podcasts"), ("deletePodcastChannel", "podcasts"),
        ("deletePodcastEpisode", "podcasts"), ("downloadPodcastEpisode", "podcasts"), ("getPodcastEpisode", "podcasts"),
        ("createShare", "shares"), ("updateShare", "shares"), ("deleteShare", "shares"),
        ("addChatMessage", "chat"),
        ("getVideoInfo", "videos"), ("getCaptions", "videos"), ("hls", "HLS streams"),
        ("getAvatar", "avatars"),
    ].map { name, feature in
        SubsonicEndpoint(name) { _ in throw SubsonicError.notAuthorized("this server does not offer \(feature)") }
    }

    private static func emptyList(_ name: String, key: String) -> SubsonicEndpoint {
        SubsonicEndpoint(name) { _ in .document(SubsonicDocument(key, SubsonicEmptyList())) }
    }
}

/// A list with nothing in it: every list's items are optional in the spec.
package struct SubsonicEmptyList: Encodable, Sendable, Equatable {}
