import Foundation
import GRDB
import XZAudio
import XZCatalogue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a job running a task needs.
struct JobEnvironment: Sendable {
    let fetcher: Fetcher
    let store: DownloadStore
    let library: LibraryFolder
    /// The `.part` files of running audio tasks as players read them.
    let streams: StreamRegistry

    /// Where partial downloads live: inside the library folder, so the final rename is on the same disk.
    func downloadsFolder() throws -> URL { try FileNaming.makeFolder(["downloads"], in: library) }

    func partPath(for task: TaskRecord) throws -> String {
        try downloadsFolder().appendingPathComponent("\(task.kind.rawValue)-\(task.id).part").path
    }

    var libraryRoot: String { FileNaming.realPath(library.url) }
}

struct JobOutcome: Sendable, Equatable {
    var path: String = ""
    var note: String = ""
    var bytes: Int64?
}

/// Fetches a song's audio into its `.part`, checks it, and moves it into `songs/`.
enum AudioJob {
    static func run(_ task: TaskRecord, env: JobEnvironment, live: LiveProgress) async throws -> JobOutcome {
        guard let song = try env.store.song(key: task.songKey) else {
            throw DownloadError.database("the song \(task.songKey) is no longer in the library")
        }
        if song.isLocal { return JobOutcome(path: song.localPath, note: "already offline") }
        if let origin = try env.store.database.songOrigin(songKey: song.songKey), !origin.downloadAllowed {
            throw DownloadError.catalogueSource("\(origin.source) allows this song to be played online only, not downloaded")
        }
        let partPath = try env.partPath(for: task)
        // A player may be reading this `.part` as it fills; it hears of every byte, the end, or the failure.
        let growing = env.streams.file(for: song.songKey, path: partPath)
        defer { env.streams.remove(song.songKey, growing) }
        let jumps = SeekJumps(growing: growing)
        growing.onWant { offset in jumps.want(offset) }
        do {
            let path = try await fetchAndInstall(task, song: song, partPath: partPath, growing: growing, jumps: jumps,
                                                 env: env, live: live)
            return JobOutcome(path: path, bytes: PartFile.size(ofFile: path))
        } catch {
            if (error as? DownloadError) == .tooLarge {
                // More than promised can never be kept, nor resumed: the library holds no half download.
                unlink(partPath)
                try? env.store.saveProgress(id: task.id, bytesDone: 0, bytesTotal: nil)
            } else if jumps.isJumping {
                // Only the gapless start of a `.part` filled out of order is safe to resume from.
                let prefix = growing.heldRanges.contiguous(from: 0)
                truncate(partPath, off_t(prefix))
                // A row left behind only makes the resume check the `.part` against the server again.
                try? env.store.saveProgress(id: task.id, bytesDone: prefix, bytesTotal: growing.size)
            }
            growing.fail(Task.isCancelled ? "the download of \(song.title) was stopped"
                : (error as? DownloadError)?.description ?? "\(error)")
            throw error
        }
    }

    private static func fetchAndInstall(_ task: TaskRecord, song: Song, partPath: String, growing: GrowingFile,
                                        jumps: SeekJumps, env: JobEnvironment, live: LiveProgress) async throws -> String {
        let url = try DownloadURL.checked(song.audioURL)
        let store = env.store
        let id = task.id
        let fetcher = env.fetcher
        let streams = env.streams
        let total = try await fetcher.withRetries(live, url: url, onFailure: { error in
            // The note is for `downloads` to show; the retries go on without it.
            try? store.noteAttempt(id: id, error: error.description)
        }, playing: { streams.isPlayed(song.songKey) }, {
            // Each attempt starts from what is really on disk and the version the row says it is;
            // bytes fetched from another URL (the feed changed it) belong to some other file.
            let row = try store.task(id)
            if jumps.isJumping, let total = row?.bytesTotal {
                return try await fetcher.fetchGaps(url, partPath: partPath, growing: growing, jumps: jumps,
                                                   validator: row?.validator ?? "", total: total, live: live)
            }
            let same = row?.url == song.audioURL
            let partial = PartialDownload(bytesOnDisk: same ? PartFile.size(ofFile: partPath) : 0,
                                          validator: same ? row?.validator ?? "" : "",
                                          expectedTotal: same ? row?.bytesTotal : nil)
            do {
                return try await fetcher.fetchFile(url, partPath: partPath, partial: partial, live: live, growing: growing,
                                                   jumps: jumps, limit: .of(catalogueSize: song.size, settings: fetcher.settings)) {
                    _, validator, total, offset in
                    try store.saveSource(id: id, url: song.audioURL, validator: validator, bytesTotal: total, bytesDone: offset)
                }
            } catch is JumpedAway {
                // A seek past the arrived bytes: from here on the gaps are filled, the wanted one first.
                let row = try store.task(id)
                guard let total = row?.bytesTotal else { throw DownloadError.network("cannot seek in a file of unknown size") }
                return try await fetcher.fetchGaps(url, partPath: partPath, growing: growing, jumps: jumps,
                                                   validator: row?.validator ?? "", total: total, live: live)
            }
        })
        // Every byte is in the `.part` (a 416 for a whole file wrote nothing new): readers need not wait.
        growing.didWrite(at: 0, count: Int(total))
        growing.setTotal(total)
        growing.finish()
        let suffix: String
        do {
            suffix = try verify(partPath, total: total, song: song, origin: try store.database.songOrigin(songKey: song.songKey))
        } catch {
            // A .part that failed its check would only fail again on resume.
            unlink(partPath)
            // The error thrown is the one to tell; a stale count is corrected by the next attempt's start.
            try? store.saveProgress(id: id, bytesDone: 0, bytesTotal: nil)
            throw error
        }
        return try install(partPath, suffix: suffix, song: song, task: task, env: env)
    }

    /// Size against the announced length and the catalogue, the catalogue's checksum, and a decode
    /// of the first frames: nothing reaches `songs/` that would not play. Returns the suffix the content
    /// calls for.
    static func verify(_ path: String, total: Int64, song: Song, origin: CatalogueSong? = nil) throws -> String {
        let size = PartFile.size(ofFile: path)
        guard size == total else {
            throw DownloadError.verification("downloaded \(size) bytes, expected \(total)")
        }
        if let expected = song.size, expected > 0, expected != size {
            throw DownloadError.verification("downloaded \(size) bytes, but the catalogue says \(expected); the file was not kept")
        }
        try Checksum.check(path, sha256: song.sha256, md5: origin?.md5 ?? "", sha1: origin?.sha1 ?? "")
        return try checkDecodes(path)
    }

    /// The suffix the file's content calls for, once its first blocks decode.
    static func checkDecodes(_ path: String) throws -> String {
        do {
            return try AudioDecoders.checkDecodes(path: path)
        } catch let error as AudioError {
            throw DownloadError.notAudio("the download is not playable audio (\(error.message)); the file was not kept")
        }
    }

    /// Moves the verified file to `songs/<Singer>/<Album>/<NN> <Title>.<suffix>` (the suffix its content
    /// calls for) and marks the song offline and the task done in one transaction; if the transaction fails
    /// the file goes back.
    static func install(_ partPath: String, suffix: String, song: Song, task: TaskRecord, env: JobEnvironment) throws -> String {
        let parts = FileNaming.songStem(title: song.title, singer: song.singer, album: song.album, track: song.track)
        let folder = try FileNaming.makeFolder(Array(parts.dropLast()), in: env.library)
        let root = env.libraryRoot
        // Where the file went inside the transaction, to move it back if the transaction fails.
        var placed: String?
        do {
            try env.store.wrap {
                try env.store.database.pool.write { db in
                    let target = try FileNaming.moveNoClobber(partPath, folder: folder, stem: parts[parts.count - 1],
                                                              ext: suffix, libraryRoot: root)
                    placed = target
                    try db.execute(sql: "UPDATE song SET local_path = ? WHERE song_key = ?", arguments: [target, song.songKey])
                    try env.store.finish(id: task.id, state: .done, path: target, bytes: PartFile.size(ofFile: target), in: db)
                }
            }
        } catch {
            if let placed { rename(placed, partPath) }
            throw error
        }
        return placed ?? ""
    }
}
