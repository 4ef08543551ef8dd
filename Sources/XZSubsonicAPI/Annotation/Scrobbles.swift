import Foundation
import GRDB
import XZAccounts
import XZCatalogue
import XZHostCore
import XZStats
import XZSystem

/// `scrobble`: a "now playing" report kept for getNowPlaying, or plays heard on a client counted for
/// its user at the times it gives.
enum Scrobbles {
    /// How far ahead of the host's clock a play may be said to have happened (clocks differ a little).
    static let futureSlack: TimeInterval = 24 * 60 * 60

    /// Plays are checked and counted one scrobble at a time, so a client's retry sent while the first
    /// is still being counted is seen as the same play.
    private static let counting = Mutex(())

    static func answer(_ call: SubsonicCall) throws -> SubsonicReply {
        let user = try call.signedInUser()
        let ids = try call.ids("id")
        guard !ids.isEmpty else { throw SubsonicError.missingParameter("required parameter 'id' is missing") }
        let songs = try call.librarySongs(ids, parameter: "id")
        let times = try playTimes(call, count: songs.count)
        let submission = try call.bool("submission", default: true)
        guard submission else {
            // One report per client: the last song named is the one playing.
            if let song = songs.last {
                NowPlayingReports.of(call.library).add(NowPlayingReport(
                    user: user.id, username: user.name, client: call.value("c") ?? "", songId: song.id, at: Date()))
            }
            return .empty
        }
        let counted = try counting.withLock { _ in
            try zip(songs, times).reduce(0) { counted, pair in
                try count(pair.0, at: pair.1, user: user.id, database: call.library.database) ? counted + 1 : counted
            }
        }
        // The owner's plays are MPD's playcount and lastplayed stickers.
        if counted > 0, user.isOwner { call.library.host.wrote(.stickers) }
        return .empty
    }

    /// Counts one play unless the same user's play of the song at the same second is counted already.
    private static func count(_ song: Song, at date: Date, user: UserID, database: LibraryDatabase) throws -> Bool {
        let already = try database.pool.read { db in
            try Bool.fetchOne(db, sql: """
                SELECT 1 FROM play_session WHERE user_id = ? AND song_key = ? AND started_at = ? AND counted = 1 LIMIT 1
                """, arguments: [user.rawValue, song.songKey, UTCStamp.string(date)]) ?? false
        }
        guard !already else { return false }
        try StatsStore(database: database, user: user).recordPlay(songKey: song.songKey, title: song.title, singer: song.singer,
                                                                  durationMs: song.durationMs, at: date)
        return true
    }

    /// The `time` of each song (milliseconds since 1970), now for all when none is given. Negative
    /// times, times past 64 bits or year 9999, and times more than a day ahead are refused.
    private static func playTimes(_ call: SubsonicCall, count: Int) throws -> [Date] {
        let texts = try call.texts("time")
        guard !texts.isEmpty else { return Array(repeating: Date(), count: count) }
        guard texts.count == count else {
            throw SubsonicError.generic("parameter 'time' must be given once for each 'id', or not at all")
        }
        let latest = Date().addingTimeInterval(futureSlack)
        return try texts.map { text in
            guard text.utf8.count <= 19, !text.isEmpty, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                  let milliseconds = Int64(text), milliseconds <= SubsonicParameterLimits.maxDateMilliseconds else {
                throw SubsonicError.generic("parameter 'time' must be milliseconds since 1970, from 0 to year 9999")
            }
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            guard date <= latest else { throw SubsonicError.generic("parameter 'time' lies in the future") }
            return date
        }
    }
}
