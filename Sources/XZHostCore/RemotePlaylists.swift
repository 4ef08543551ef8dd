import Foundation
import XZCatalogue
import XZPlaybackValues
import XZSystem

/// A remote playlist's body as its server sent it.
package struct FetchedPlaylist: Sendable {
    package var data: Data
    /// The server's Content-Type, if it sent one.
    package var contentType: String?

    package init(data: Data, contentType: String?) {
        self.data = data
        self.contentType = contentType
    }
}

/// Fetches a playlist URL, at most `maxBytes` of it within `seconds`, or throws an error whose
/// description is one line saying why not. Blocks: called on the host's blocking lane.
package typealias PlaylistFetcher = @Sendable (_ url: String, _ maxBytes: Int, _ seconds: Double) throws -> FetchedPlaylist

/// Why a remote playlist gives no songs.
package struct RemotePlaylistError: KindedError {
    package enum Kind: Hashable, Sendable {
        /// The host fetches no URLs (it has no downloader).
        case notFetched
        /// The server could not be asked, or its answer was too large, too slow or an HTTP error.
        case unreachable
        /// The answer is in no playlist format, by its Content-Type or the URL's suffix.
        case notAPlaylist
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let notFetched = RemotePlaylistError(kind: .notFetched, message: "this host fetches no URLs")
    package static let unreachable = RemotePlaylistError(kind: .unreachable, message: "the playlist's server cannot be reached")
    package static let notAPlaylist = RemotePlaylistError(kind: .notAPlaylist, message: "no .m3u, .pls or .xspf playlist")
    package static func notAPlaylist(url: String) -> RemotePlaylistError {
        notAPlaylist("\(url) is no .m3u, .pls or .xspf playlist")
    }
}

/// Playlists by URL, as MPD's playlist plugins read them: `load http://…/list.m3u` queues its lines.
package enum RemotePlaylist {
    /// The most bytes of a list read: 16,384 stream URLs and their titles fit.
    package static let maxBytes = 2 << 20
    /// The longest a fetch may take, slow servers and redirects included.
    package static let maxSeconds = 10.0

    /// The format a URL's path names by its suffix, if any.
    package static func format(ofURL url: String) -> PlaylistFormat? {
        guard let path = URL(string: url)?.path, !path.isEmpty else { return nil }
        return PlaylistFormat(fileName: path)
    }

    /// The entries of a list fetched from `url`: its format by the server's Content-Type, else by the
    /// URL's suffix; relative lines are read against the URL, as MPD builds them on the list's address.
    package static func entries(of fetched: FetchedPlaylist, url: String, maxEntries: Int) throws(RemotePlaylistError)
        -> [PlaylistEntry] {
        guard let format = fetched.contentType.flatMap(PlaylistFormat.init(contentType:)) ?? format(ofURL: url) else {
            throw .notAPlaylist(url: url)
        }
        let base = URL(string: url)
        // A line no URL parser takes ("a song.mp3") is put after the list's folder, as MPD builds it:
        // a relative line of a remote list never names a file here.
        let folder = url.lastIndex(of: "/").map { String(url[...$0]) } ?? url + "/"
        return format.parse(fetched.data, limit: maxEntries).map { entry in
            var resolved = entry
            let location = entry.location
            if !location.contains("://"), !location.hasPrefix("/") {
                resolved.location = URL(string: location, relativeTo: base)?.absoluteString ?? folder + location
            }
            return resolved
        }
    }
}

extension PlayerHost {
    /// The lines of the playlist at `url`, fetched through the host's downloader (capped in bytes and time).
    package func remotePlaylist(_ url: String, maxEntries: Int) throws(RemotePlaylistError) -> [PlaylistEntry] {
        guard let fetch = fetchPlaylist else { throw .notFetched }
        let fetched: FetchedPlaylist
        do {
            fetched = try fetch(url, RemotePlaylist.maxBytes, RemotePlaylist.maxSeconds)
        } catch {
            throw .unreachable("\(error)")
        }
        return try RemotePlaylist.entries(of: fetched, url: url, maxEntries: maxEntries)
    }
}
