import Foundation
import XZSystem
import XZAudio
import XZCatalogue
import XZFolderScan
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What becomes of a catalogue song's bytes once they have played: `keep` makes them the verified offline copy
/// (the song is fetched once), `none` streams without keeping, as a pure stream player does.
package enum OnlineCache: String, Sendable, CaseIterable {
    case keep, none
}

/// The `.part` files of running audio tasks as players read them, by song key: a song that is downloading
/// plays from that download instead of fetching again.
package final class StreamRegistry: Sendable {
    private struct State {
        var files: [String: GrowingFile] = [:]
        /// Songs a player reads as they download.
        var played: Set<String> = []
        /// Fetches of kept URLs, which go on after the player let go.
        var kept: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func keep(_ task: Task<Void, Never>) { state.withLock { $0.kept.append(task) } }

    func takeKept() -> [Task<Void, Never>] {
        state.withLock { state in
            defer { state.kept.removeAll() }
            return state.kept
        }
    }

    /// The song's growing file, made now when there is none.
    func file(for songKey: String, path: String) -> GrowingFile {
        state.withLock { state in
            if let file = state.files[songKey] { return file }
            let file = GrowingFile(path: path)
            state.files[songKey] = file
            return file
        }
    }

    func existing(_ songKey: String) -> GrowingFile? { state.withLock { $0.files[songKey] } }

    func remove(_ songKey: String, _ file: GrowingFile) {
        state.withLock { state in
            if state.files[songKey] === file {
                state.files[songKey] = nil
                state.played.remove(songKey)
            }
        }
    }

    func markPlayed(_ songKey: String) { _ = state.withLock { $0.played.insert(songKey) } }
    func isPlayed(_ songKey: String) -> Bool { state.withLock { $0.played.contains(songKey) } }
}

extension DownloadManager {
    /// A catalogue song's audio as it arrives, returned at once while the fetching goes on in the background:
    /// its offline file when it has one, else the running download of it, else its download started now,
    /// ahead of the queue. A kept download ends as the song's verified offline copy exactly as any download.
    package nonisolated func openStream(song: Song, cache: OnlineCache = .keep) throws -> GrowingFile {
        if song.isLocal, FileManager.default.fileExists(atPath: song.localPath) {
            return try GrowingFile(completeFileAt: song.localPath)
        }
        if let running = streams.existing(song.songKey) {
            streams.markPlayed(song.songKey)
            return running
        }
        guard !song.audioURL.isEmpty else {
            throw DownloadError.unsupportedURL("\(song.title) — \(song.singer) has no audio URL to play from")
        }
        let env = environment
        // A source that allows streaming only (Jamendo) gets no kept copy.
        let keepable = try env.store.database.songOrigin(songKey: song.songKey)?.downloadAllowed ?? true
        if cache == .none || !keepable { return try openStream(url: song.audioURL) }
        // A task another program runs (a separate `xzmusic download`) is left to it: play without keeping.
        guard let record = try env.store.queueAndClaim(songKey: song.songKey, url: song.audioURL, pid: Int32(pid)) else {
            return try streams.existing(song.songKey) ?? openStream(url: song.audioURL)
        }
        let path: String
        do {
            path = try env.partPath(for: record)
        } catch {
            // The first error is the one to tell; a task left claimed is taken back when its pid is gone.
            try? env.store.finish(id: record.id, state: .queued)
            throw error
        }
        let growing = streams.file(for: song.songKey, path: path)
        streams.markPlayed(song.songKey)
        Task { await self.startNow(record, growing: growing) }
        return growing
    }

    /// A URL outside the catalogue, fetched with the downloader's retry and resume rules into a `.part` of its
    /// own. Not kept: the `.part` goes when the player lets go of it. Kept (`play --keep`): the fetch goes on
    /// to the end even when the player moves on, and a file that decodes is placed under `songs/` by its tags
    /// and imported, as a folder scan would.
    /// New bytes a dropped stream's connection must have brought for its reconnects to count from 0 again.
    static let reconnectProgressBytes: Int64 = 256 << 10

    package nonisolated func openStream(url text: String, keep: Bool = false) throws -> GrowingFile {
        let url = try DownloadURL.checked(text)
        let path = try environment.downloadsFolder().appendingPathComponent("stream-\(UUID().uuidString).part").path
        let growing = GrowingFile(path: path)
        let fetcher = self.fetcher
        let env = environment
        let source = StreamSource()
        let task = Task {
            let live = LiveProgress(interval: 1)
            do {
                // A dropped station is called again `retries` times (5), backing off from half a second to 8 s,
                // so one that restarts within some 15 s plays on; a connection that brought a quarter MiB (some
                // 16 s at 128 kbit/s) starts the count again, and a station that only flaps is given up.
                let total = try await fetcher.withRetries(live, url: url, onFailure: { _ in }, playing: { true },
                                                          progressFloor: Self.reconnectProgressBytes) {
                    let partial = source.partial(bytesOnDisk: PartFile.size(ofFile: path))
                    // A kept stream is written whole (capped); one only listened to keeps a window of it when
                    // its length is unknown (radio).
                    return try await fetcher.fetchFile(url, partPath: path, partial: partial, live: live, growing: growing,
                                                       window: keep ? nil : fetcher.settings.streamBuffer) {
                        _, validator, total, _ in source.remember(validator: validator, total: total)
                    }
                }
                growing.didWrite(at: 0, count: Int(total))
                growing.setTotal(total)
                growing.finish()
                guard keep else { return }
                do {
                    try keepStream(path, name: url.deletingPathExtension().lastPathComponent, env: env)
                } catch {
                    // It played; only keeping failed, and a half-placed file is worse than none.
                    unlink(path)
                }
            } catch {
                growing.fail(Task.isCancelled ? "stopped" : (error as? DownloadError)?.description ?? "\(error)")
                if keep || (error as? DownloadError) == .tooLarge { unlink(path) }
            }
        }
        if keep {
            streams.keep(task)
        } else {
            growing.onRelease {
                task.cancel()
                unlink(path)
            }
        }
        return growing
    }
}

extension DownloadManager {
    /// Waits for kept URLs to be fetched and placed; for a program about to leave.
    package func finishKeptStreams() async {
        for task in streams.takeKept() { await task.value }
    }
}

/// Places a whole streamed file under `songs/<Singer>/<Album>/<NN> <Title>.<suffix>` by its tags (the URL's
/// name as title without them) and imports its folder, so it is a local song like any scanned file.
private func keepStream(_ path: String, name: String, env: JobEnvironment) throws {
    let suffix = try AudioJob.checkDecodes(path)
    // A file with no readable tags is named from the stream instead.
    let tags = try? AudioTags.read(path: path)
    func named(_ text: String?) -> String? { text.flatMap { $0.isEmpty ? nil : $0 } }
    let parts = FileNaming.songStem(title: named(tags?.title) ?? named(name) ?? "Stream", singer: named(tags?.artist) ?? "",
                                    album: tags?.album, track: tags?.track)
    let folder = try FileNaming.makeFolder(Array(parts.dropLast()), in: env.library)
    _ = try FileNaming.moveNoClobber(path, folder: folder, stem: parts[parts.count - 1], ext: suffix, libraryRoot: env.libraryRoot)
    _ = try env.store.database.importFolder(at: folder)
}

/// Which version of a stream's file its `.part` holds, for resuming after a dropped connection.
private final class StreamSource: Sendable {
    private let version = Mutex<(validator: String, total: Int64?)>(("", nil))

    func remember(validator: String, total: Int64?) {
        version.withLock { $0 = (validator, total) }
    }

    func partial(bytesOnDisk: Int64) -> PartialDownload {
        version.withLock { PartialDownload(bytesOnDisk: bytesOnDisk, validator: $0.validator, expectedTotal: $0.total) }
    }
}
