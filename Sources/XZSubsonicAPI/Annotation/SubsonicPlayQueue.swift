/// A user's saved play queue (`playQueue`), the current song by id.
package struct SubsonicPlayQueue: Encodable, Sendable, Equatable {
    package var current: String?
    /// Milliseconds.
    package var position: Int64?
    package var username: String
    package var changed: SubsonicDate
    package var changedBy: String
    package var entry: [SubsonicChild]?
}

/// The same queue with the current song by index (`playQueueByIndex`, the indexBasedQueue extension).
package struct SubsonicPlayQueueByIndex: Encodable, Sendable, Equatable {
    package var currentIndex: Int?
    package var position: Int64?
    package var username: String
    package var changed: SubsonicDate
    package var changedBy: String
    package var entry: [SubsonicChild]?
}

package struct SubsonicBookmark: Encodable, Sendable, Equatable {
    /// Milliseconds.
    package var position: Int64
    package var username: String
    package var comment: String?
    package var created: SubsonicDate
    package var changed: SubsonicDate
    package var entry: SubsonicChild
}

package struct SubsonicBookmarks: Encodable, Sendable, Equatable {
    package var bookmark: [SubsonicBookmark]
}
