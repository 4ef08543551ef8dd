import Foundation
import XZAccounts
import XZCatalogue

/// Each user's saved play queue (by current song, or by index: the indexBasedQueue extension) and bookmarks.
extension SubsonicEndpoints {
    static let playQueueAndBookmarks: [SubsonicEndpoint] = [
        SubsonicEndpoint("getPlayQueue") { call in
            let user = try call.signedInUser()
            let (queue, songs, current) = try SavedQueues.load(call)
            return .document(SubsonicDocument("playQueue", SubsonicPlayQueue(
                current: current.map { SubsonicID.song(songs[$0].id).text }, position: queue.positionMs, username: user.name,
                changed: SubsonicDate(queue.changedAt), changedBy: queue.changedBy,
                entry: songs.isEmpty ? nil : try ListenerAnnotations(call).children(of: songs))))
        },
        SubsonicEndpoint("getPlayQueueByIndex") { call in
            let user = try call.signedInUser()
            let (queue, songs, current) = try SavedQueues.load(call)
            return .document(SubsonicDocument("playQueueByIndex", SubsonicPlayQueueByIndex(
                currentIndex: current, position: queue.positionMs, username: user.name,
                changed: SubsonicDate(queue.changedAt), changedBy: queue.changedBy,
                entry: songs.isEmpty ? nil : try ListenerAnnotations(call).children(of: songs))))
        },
        SubsonicEndpoint("savePlayQueue") { call in
            let songs = try call.librarySongs(call.ids("id"), parameter: "id")
            var current: Int?
            if !songs.isEmpty {
                // OpenSubsonic: `current` is required unless the queue is empty, and is one of its songs.
                guard case .song(let row) = try call.id("current"), let index = songs.firstIndex(where: { $0.id == row }) else {
                    throw SubsonicError.generic("parameter 'current' must be one of the queue's songs")
                }
                current = index
            }
            try SavedQueues.save(call, songs: songs, current: current)
            return .empty
        },
        SubsonicEndpoint("savePlayQueueByIndex") { call in
            let songs = try call.librarySongs(call.ids("id"), parameter: "id")
            var current: Int?
            if !songs.isEmpty {
                guard let index = try call.optionalInt("currentIndex", in: 0...(songs.count - 1)) else {
                    throw SubsonicError.missingParameter("required parameter 'currentIndex' is missing")
                }
                current = index
            }
            try SavedQueues.save(call, songs: songs, current: current)
            return .empty
        },
        SubsonicEndpoint("getBookmarks") { call in
            let user = try call.signedInUser()
            let kept = try UserBookmarks(database: call.library.database, user: user.id).all().filter { $0.songId != nil }
            let songs = try call.library.database.songs(ids: kept.compactMap(\.songId))
            let children = try ListenerAnnotations(call).children(of: songs)
            let byId = Dictionary(zip(songs.map(\.id), children)) { first, _ in first }
            let bookmarks = kept.compactMap { bookmark -> SubsonicBookmark? in
                // A song removed between the two reads has no bookmark to show.
                guard let id = bookmark.songId, let child = byId[id] else { return nil }
                return SubsonicBookmark(position: bookmark.positionMs, username: user.name,
                                        comment: bookmark.comment.isEmpty ? nil : bookmark.comment,
                                        created: SubsonicDate(bookmark.createdAt), changed: SubsonicDate(bookmark.changedAt), entry: child)
            }
            return .document(SubsonicDocument("bookmarks", SubsonicBookmarks(bookmark: bookmarks)))
        },
        SubsonicEndpoint("createBookmark") { call in
            let user = try call.signedInUser()
            let song = try call.librarySongs([call.id("id")], parameter: "id")[0]
            guard let position = try call.optionalInt64("position", in: 0...Int64.max) else {
                throw SubsonicError.missingParameter("required parameter 'position' is missing")
            }
            try userData {
                try UserBookmarks(database: call.library.database, user: user.id)
                    .save(songId: song.id, positionMs: position, comment: try call.text("comment") ?? "")
            }
            return .empty
        },
        SubsonicEndpoint("deleteBookmark") { call in
            let user = try call.signedInUser()
            guard case .song(let row) = try call.id("id") else { throw SubsonicError.notFound("'id' names no song") }
            guard try UserBookmarks(database: call.library.database, user: user.id).delete(songId: row) else {
                throw SubsonicError.notFound("no bookmark of that song")
            }
            return .empty
        },
    ]
}

enum SavedQueues {
    /// The caller's saved queue with the songs the library still holds, and the current one's index among
    /// them; with none saved, an empty queue changed at the epoch by no client (the spec's answer always
    /// holds a queue).
    static func load(_ call: SubsonicCall) throws -> (SavedPlayQueue, [Song], Int?) {
        let user = try call.signedInUser()
        guard let queue = try UserPlayQueues(database: call.library.database, user: user.id).load() else {
            return (SavedPlayQueue(entries: [], currentIndex: nil, positionMs: 0, changedAt: Date(timeIntervalSince1970: 0), changedBy: ""), [], nil)
        }
        let found = try call.library.database.songs(ids: Array(Set(queue.entries.compactMap(\.songId))))
        let byId = Dictionary(found.map { ($0.id, $0) }) { first, _ in first }
        var songs: [Song] = []
        var current: Int?
        for (index, entry) in queue.entries.enumerated() {
            // A song a rescan removed is left out; the current one stays the one it was.
            guard let song = entry.songId.flatMap({ byId[$0] }) else { continue }
            if index == queue.currentIndex { current = songs.count }
            songs.append(song)
        }
        return (queue, songs, current)
    }

    /// Saves the caller's queue, at most the host's `max_playlist_length` songs; an empty one clears it.
    static func save(_ call: SubsonicCall, songs: [Song], current: Int?) throws {
        let user = try call.signedInUser()
        let position = try call.int64("position", default: 0, in: 0...Int64.max)
        let queue = SavedPlayQueue(entries: songs.map { SavedPlayQueue.Entry(songKey: $0.songKey) }, currentIndex: current,
                                   positionMs: position, changedBy: call.value("c") ?? "")
        try userData {
            try UserPlayQueues(database: call.library.database, user: user.id).save(queue, maxLength: call.library.host.maxQueueLength)
        }
    }
}
