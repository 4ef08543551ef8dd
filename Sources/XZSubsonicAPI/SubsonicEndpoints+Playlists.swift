import Foundation
import XZAccounts
import XZCatalogue

/// Playlists are the library's stored playlists, the same MPD clients list, load and save; who owns
/// each and whether others see it is kept beside them.
extension SubsonicEndpoints {
    static let playlists: [SubsonicEndpoint] = [
        SubsonicEndpoint("getPlaylists") { call in
            let user = try call.signedInUser()
            var owner = user
            if let name = try call.text("username"), name != user.name {
                guard user.isAdmin else { throw SubsonicError.notAuthorized("only an admin lists another user's playlists") }
                guard let other = try call.library.accounts.user(named: name) else { throw SubsonicError.notFound("no such user") }
                owner = other
            }
            let playlists = try LibraryPlaylists(call)
            let owners = try playlists.ownerNames()
            return .document(SubsonicDocument("playlists", SubsonicPlaylists(
                playlist: try playlists.visible(to: owner).map { playlists.summary($0, owners: owners) })))
        },
        SubsonicEndpoint("getPlaylist") { call in
            let playlists = try LibraryPlaylists(call)
            return .document(SubsonicDocument("playlist", try playlists.withSongs(playlists.visible(try playlistName(call, "id")))))
        },
        SubsonicEndpoint("createPlaylist") { call in
            let user = try call.signedInUser()
            let playlists = try LibraryPlaylists(call)
            let songs = try call.librarySongs(call.ids("songId"), parameter: "songId")
            let entries = songs.map(playlists.entry)
            let name: String
            if call.value("playlistId") != nil {
                // Replacing the songs of a playlist the caller may change.
                name = try playlistName(call, "playlistId")
                try playlists.checkMayChange(playlists.visible(name))
                try playlists.playlistCall { try playlists.files.save(name, entries, mode: .replace) }
            } else {
                name = try playlists.checkedName(call.required("name"))
                if try playlists.files.exists(name) {
                    // A name is a playlist's id: saving under one the caller may change replaces its songs.
                    try playlists.checkMayChange(playlists.visible(name))
                    try playlists.playlistCall { try playlists.files.save(name, entries, mode: .replace) }
                } else {
                    try playlists.playlistCall { try playlists.files.save(name, entries, mode: .create) }
                    try call.library.database.setPlaylistOwnership(name, PlaylistOwnership(userId: user.id.rawValue, isPublic: false))
                }
            }
            call.library.host.wrote(.storedPlaylists)
            return .document(SubsonicDocument("playlist", try playlists.withSongs(playlists.visible(name))))
        },
        SubsonicEndpoint("updatePlaylist") { call in
            let playlists = try LibraryPlaylists(call)
            let name = try playlistName(call, "playlistId")
            let current = try playlists.visible(name)
            try playlists.checkMayChange(current)
            // Every parameter is read before anything changes.
            let newName = try call.text("name").map(playlists.checkedName)
            let comment = try call.text("comment").map { text in
                String(text.unicodeScalars.filter { $0.properties.generalCategory != .control }
                    .prefix(LibraryPlaylists.maxComment).map(Character.init))
            }
            let isPublic = try call.optionalBool("public")
            let added = try call.librarySongs(call.ids("songIdToAdd"), parameter: "songIdToAdd").map(playlists.entry)
            let removed = try Set(call.texts("songIndexToRemove").map { text -> Int in
                guard let index = Int(text), index >= 0 else {
                    throw SubsonicError.generic("parameter 'songIndexToRemove' must be a song's index in the playlist")
                }
                return index
            })
            if let newName, newName != name, try playlists.files.exists(newName) {
                throw SubsonicError.generic("a playlist of that name exists")
            }
            if !added.isEmpty || !removed.isEmpty {
                try playlists.playlistCall {
                    try playlists.files.edit(name) { entries in
                        // Indexes count the songs a client was shown: lines naming no song are not counted.
                        let songs = try playlists.songs(of: entries)
                        let shown = songs.indices.filter { songs[$0] != nil }
                        guard removed.allSatisfy({ $0 < shown.count }) else {
                            throw SubsonicError.generic("parameter 'songIndexToRemove' is past the playlist's \(shown.count) songs")
                        }
                        let dropped = Set(removed.map { shown[$0] })
                        entries = entries.indices.filter { !dropped.contains($0) }.map { entries[$0] } + added
                    }
                }
            }
            var ownership = current.ownership
            if let comment { ownership.comment = comment }
            if let isPublic { ownership.isPublic = isPublic }
            if let newName, newName != name {
                try playlists.playlistCall { try playlists.files.rename(name, to: newName) }
                // The row follows its file, written after it: a renamed playlist keeps its owner, flag and comment.
                try call.library.database.setPlaylistOwnership(newName, ownership)
                try call.library.database.removePlaylistOwnership(name)
            } else if ownership != current.ownership {
                try call.library.database.setPlaylistOwnership(name, ownership)
            }
            call.library.host.wrote(.storedPlaylists)
            return .empty
        },
        SubsonicEndpoint("deletePlaylist") { call in
            let playlists = try LibraryPlaylists(call)
            let name = try playlistName(call, "id")
            try playlists.checkMayChange(playlists.visible(name))
            try playlists.playlistCall { try playlists.files.remove(name) }
            try call.library.database.removePlaylistOwnership(name)
            call.library.host.wrote(.storedPlaylists)
            return .empty
        },
    ]

    /// The stored playlist's name the id `parameter` gives; any other id is 70.
    private static func playlistName(_ call: SubsonicCall, _ parameter: String) throws -> String {
        guard case .playlist(let name) = try call.id(parameter) else { throw SubsonicError.notFound("'\(parameter)' names no playlist") }
        return name
    }
}
