extension SubsonicEndpoints {
    static let system: [SubsonicEndpoint] = [
        SubsonicEndpoint("ping") { _ in .empty },
        SubsonicEndpoint("getLicense") { _ in .document(SubsonicDocument("license", SubsonicLicense(valid: true))) },
        // The spec wants it reachable without credentials, so a client learns how it may sign in.
        SubsonicEndpoint("getOpenSubsonicExtensions", .anyone) { _ in
            .document(SubsonicDocument("openSubsonicExtensions", OpenSubsonicExtension.supported(by: all)))
        },
        SubsonicEndpoint("tokenInfo") { call in
            .document(SubsonicDocument("tokenInfo", SubsonicTokenInfo(username: call.user?.name ?? "")))
        },
    ]
}

/// `getLicense`' payload: a library's own server needs none.
package struct SubsonicLicense: Encodable, Sendable, Equatable {
    package var valid: Bool
}

/// `tokenInfo`'s payload: whose key signed the request.
package struct SubsonicTokenInfo: Encodable, Sendable, Equatable {
    package var username: String
}

/// An OpenSubsonic extension the server implements, with the versions it speaks.
package struct OpenSubsonicExtension: Encodable, Sendable, Equatable {
    package var name: String
    package var versions: [Int]

    /// Every extension this server may offer, each with the endpoints that must be in the table for it to
    /// work: one is listed only when its endpoints are answered, so the list never promises what is missing.
    package static let known: [(extension: OpenSubsonicExtension, needs: [String])] = [
        (OpenSubsonicExtension(name: "formPost", versions: [1]), []),
        (OpenSubsonicExtension(name: "apiKeyAuthentication", versions: [1]), ["tokenInfo"]),
        (OpenSubsonicExtension(name: "songLyrics", versions: [1, 2]), ["getLyricsBySongId"]),
        (OpenSubsonicExtension(name: "transcodeOffset", versions: [1]), ["stream"]),
        (OpenSubsonicExtension(name: "indexBasedQueue", versions: [1]), ["getPlayQueueByIndex", "savePlayQueueByIndex"]),
    ]

    /// The extensions whose endpoints `table` holds.
    package static func supported(by table: [String: SubsonicEndpoint]) -> [OpenSubsonicExtension] {
        known.filter { $0.needs.allSatisfy { table[$0] != nil } }.map(\.extension)
    }
}
