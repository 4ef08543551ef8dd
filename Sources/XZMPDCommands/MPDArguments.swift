import Foundation
import XZSystem
import XZAudio
import XZCatalogue
import XZHost
import XZPlayback
import XZProtocol

/// What the command table's handlers share: reading arguments as MPD does, and the answers several build.
extension MPDCommands {
    // MARK: Helpers

    /// Queue positions (within the optional range) of entries changed after version `arguments[0]`.
    static func changedSince(_ arguments: [String], _ snapshot: PlayerSnapshot) throws(MPDError) -> [Int] {
        let version = try MPDArgument.integer(arguments[0])
        let count = snapshot.entries.count
        let range = try arguments.count > 1 ? MPDArgument.positionRange(arguments[1], count: count) : 0..<count
        return range.filter { $0 < count && snapshot.entries[$0].version > version }
    }

    /// Lists queue entries at `indices` as MPD does, their catalogue songs read in one query.
    static func addQueueEntries(_ call: inout Invocation, _ snapshot: PlayerSnapshot, _ indices: [Int],
                                durationMs: Int? = nil) {
        let songs = catalogueSongs(indices.map { snapshot.entries[$0] }, call.host)
        for index in indices {
            let entry = snapshot.entries[index]
            call.response.addQueueEntry(entry, position: index, host: call.host, tags: call.session.tagTypes,
                                        durationMs: durationMs, catalogue: entry.item.songId.flatMap { songs[$0] })
        }
    }

    /// The catalogue songs of queue entries, by id, in one read.
    static func catalogueSongs(_ entries: [QueueEntry], _ host: PlayerHost) -> [Int64: Song] {
        let ids = entries.compactMap(\.item.songId)
        guard !ids.isEmpty else { return [:] }
        // Unreadable, the entries are listed from what the queue keeps of them.
        let songs = (try? host.database.songs(ids: ids)) ?? []
        return Dictionary(songs.map { ($0.id, $0) }) { first, _ in first }
    }

    /// A float as MPD prints one: the shortest text of its single-precision value ("-17", "1.5", "nan").
    static func mpdFloat(_ value: Double) -> String {
        let text = Float(value).description
        return text.hasSuffix(".0") ? String(text.dropLast(2)) : text
    }

    static func status(_ call: inout Invocation) {
        let status = call.player.snapshot()
        call.response.add("volume", status.volume)
        call.response.add("repeat", status.repeats ? 1 : 0)
        call.response.add("random", status.shuffle ? 1 : 0)
        call.response.add("single", status.single.rawValue)
        call.response.add("consume", status.consume ? 1 : 0)
        call.response.add("partition", "default")
        call.response.add("playlist", status.queueVersion)
        call.response.add("playlistlength", status.queueLength)
        call.response.add("mixrampdb", mpdFloat(status.crossfade.mixRampDB))
        let state: String
        switch status.state {
        case .playing: state = "play"
        case .paused: state = "pause"
        case .idle, .stopped: state = "stop"
        }
        call.response.add("state", state)
        // As MPD: only when set.
        if status.crossfade.seconds > 0 { call.response.add("xfade", status.crossfade.seconds) }
        if status.crossfade.isMixRampEnabled { call.response.add("mixrampdelay", mpdFloat(status.crossfade.mixRampDelay)) }
        // MPD has no such state: clients see `play`; our own remote commands read this extra line.
        if status.isBuffering { call.response.add("xzmusic_buffering", 1) }
        if let index = status.currentIndex, let id = status.currentId {
            call.response.add("song", index)
            call.response.add("songid", id)
        }
        if status.state == .playing || status.state == .paused {
            // In a part of a song (rangeid), times count from the part's start, as MPD's.
            let range = status.currentIndex.flatMap { status.entries[$0].item.range }
            let start = range?.startMs ?? 0
            let duration = status.durationMs.map { (range?.endMs ?? $0) - start }
            let elapsed = max(0, status.positionMs - start)
            call.response.add("time", "\((elapsed + 500) / 1000):\(((duration ?? 0) + 500) / 1000)")
            call.response.add("elapsed", milliseconds: elapsed)
            if let format = status.audioFormat {
                call.response.add("bitrate", format.bitrateKbps ?? 0)
            }
            if let duration { call.response.add("duration", milliseconds: duration) }
            if let format = status.audioFormat {
                call.response.add("audio", format.mpdFormat)
            }
        }
        if status.currentIndex != nil, let next = status.nextIndex, let nextId = status.nextId {
            call.response.add("nextsong", next)
            call.response.add("nextsongid", nextId)
        }
        if let job = call.host.updates.current { call.response.add("updating_db", job) }
        if let error = status.lastError { call.response.add("error", error) }
    }

    /// `play` without a position: resume a pause, else start the current (or first) song.
    static func resume(_ player: Player) {
        switch player.snapshot().state {
        case .paused: player.resume()
        case .stopped: player.togglePause()
        case .playing, .idle: break
        }
    }

    static func seek(_ call: inout Invocation, index: Int, target: SeekTarget) throws(MPDError) {
        let snapshot = call.player.snapshot()
        guard snapshot.entries.indices.contains(index) else { throw MPDError(.arg, "Bad song index") }
        let active = snapshot.state == .playing || snapshot.state == .paused
        if !active || snapshot.currentIndex != index { call.player.playItem(at: index) }
        // A place in a part of a song (rangeid) counts from the part's start.
        if case .absolute(let ms) = target, let start = snapshot.entries[index].item.range?.startMs {
            call.player.seek(.absolute(ms: ms + start))
        } else {
            call.player.seek(target)
        }
    }

    static func items(forURI uri: String, call: Invocation) throws(MPDError) -> [QueueItem] {
        QueueItem.items(try playables(forURI: uri, call: call), database: call.host.database)
    }

    /// What a URI names to queue: a stream, a regular file, or a folder's audio files.
    static func playables(forURI uri: String, call: Invocation) throws(MPDError) -> [Playable] {
        if QueueItem.isStreamURL(uri) {
            guard call.host.canStream else { throw MPDError(.noExist, "Unsupported URI scheme: only files play on this host") }
            // A catalogue song that is not offline is named by its URL: it plays as it downloads.
            return [.stream(uri)]
        }
        let location = try call.location(uri == "/" ? "" : uri)
        let path = location.path
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw MPDError(.noExist, "No such directory")
        }
        guard isFolder.boolValue else {
            // A FIFO or device named like a song would block whoever reads it: regular files only, as MPD.
            guard (try? RegularFile.check(path)) != nil else { throw MPDError(.noExist, "No such song") }
            return [.file(path)]
        }
        guard location.kind != .catalogueSong else { throw MPDError(.noExist, "No such song") }
        // A folder adds its audio files in MPD's database order (its walk of the folder).
        let base = URL(fileURLWithPath: path)
        let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        var files: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            guard AudioDecoders.hasAudioSuffix(url.path), (try? RegularFile.check(url.path)) != nil else { continue }
            files.append(url.standardizedFileURL.path)
        }
        // The library's files are its own only where their real paths stay in it: each is resolved again.
        if location.kind == .library {
            files = files.filter { (try? call.location(call.host.naming.uri(ofPath: $0)))?.kind == .library }
        }
        // Unreadable, the files are ordered by their paths alone.
        let songs = (try? call.host.database.songs(localPaths: files)) ?? [:]
        DatabaseOrder.sortByKey(&files) { file in
            let song = songs[file]
            return DatabaseOrder.key(uri: file, album: song?.album, disc: song?.disc, track: song?.track)
        }
        return files.map(Playable.file)
    }

    /// A queue position to insert or move to: absolute, or `+N` / `-N` relative to the current song.
    static func insertPosition(_ text: String, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        if let sign = text.first, sign == "+" || sign == "-" {
            guard let current = snapshot.currentIndex else { throw MPDError(.playerSync, "No current song") }
            let offset = try MPDArgument.integer(String(text.dropFirst()))
            let position = sign == "+" ? current + 1 + offset : current - offset
            guard (0...snapshot.entries.count).contains(position) else { throw MPDError(.arg, "Bad song index") }
            return position
        }
        let position = try MPDArgument.integer(text)
        guard (0...snapshot.entries.count).contains(position) else { throw MPDError(.arg, "Bad song index") }
        return position
    }

    static func queueIndex(id text: String, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        let id = try MPDArgument.integer(text)
        guard let index = snapshot.entries.firstIndex(where: { $0.id == id }) else { throw MPDError(.noExist, "No such song") }
        return index
    }

    /// Seconds (fractions allowed); `+S` / `-S` from the current position where allowed.
    static func seekTarget(_ text: String, relativeAllowed: Bool) throws(MPDError) -> SeekTarget {
        let signed = text.hasPrefix("+") || text.hasPrefix("-")
        guard let seconds = Double(signed ? String(text.dropFirst()) : text), seconds.isFinite, seconds >= 0,
              seconds < 1e7, !signed || relativeAllowed else {
            throw MPDError(.arg, "Float expected: \(text)")
        }
        let ms = Int((seconds * 1000).rounded())
        if signed { return .relative(ms: text.hasPrefix("-") ? -ms : ms) }
        return .absolute(ms: ms)
    }
}
