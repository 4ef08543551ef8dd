import Foundation
import XZAudio
import XZPlayback

/// What the command table's handlers share: reading arguments as MPD does, and the answers several build.
extension MPDCommands {
    // MARK: Helpers

    /// Queue positions (within the optional range) of entries changed after version `arguments[0]`.
    static func changedSince(_ arguments: [String], _ snapshot: PlayerSnapshot) throws(MPDError) -> [Int] {
        let version = try integer(arguments[0])
        let count = snapshot.entries.count
        let range = try arguments.count > 1 ? positionRange(arguments[1], count: count) : 0..<count
        return range.filter { $0 < count && snapshot.entries[$0].version > version }
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
        call.response.add("mixrampdb", 0)
        let state: String
        switch status.state {
        case .playing: state = "play"
        case .paused: state = "pause"
        case .idle, .stopped: state = "stop"
        }
        call.response.add("state", state)
        // MPD has no such state: clients see `play`; our own remote commands read this extra line.
        if status.isBuffering { call.response.add("xzmusic_buffering", 1) }
        if let index = status.currentIndex, let id = status.currentId {
            call.response.add("song", index)
            call.response.add("songid", id)
        }
        if status.state == .playing || status.state == .paused {
            let total = status.durationMs ?? 0
            call.response.add("time", "\((status.positionMs + 500) / 1000):\((total + 500) / 1000)")
            call.response.add("elapsed", milliseconds: status.positionMs)
            if let format = status.audioFormat {
                call.response.add("bitrate", format.bitrateKbps ?? 0)
            }
            if let duration = status.durationMs { call.response.add("duration", milliseconds: duration) }
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
        call.player.seek(target)
    }

    static func items(forURI uri: String, call: Invocation) throws(MPDError) -> [QueueItem] {
        var text = uri
        if text.hasPrefix("file://") { text = String(text.dropFirst(7)) }
        if QueueItem.isStreamURL(text) {
            guard call.host.canStream else { throw MPDError(.noExist, "Unsupported URI scheme: only files play on this host") }
            // A catalogue song that is not offline is named by its URL: it plays as it downloads.
            if let song = try? call.host.database.song(audioURL: text) {
                return [QueueItem(playing: song, database: call.host.database)]
            }
            return [QueueItem(url: text)]
        }
        let path: String
        if text.isEmpty || text == "/" {
            path = call.host.uris.musicDirectory
        } else {
            path = try call.host.uris.path(forURI: text, allowAbsolute: call.session.peer == .local)
            if text.hasPrefix(SongURIs.cataloguePrefix), (try? call.host.database.song(localPath: path)) == nil {
                throw MPDError(.noExist, "No such song")
            }
        }
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
            throw MPDError(.noExist, "No such directory")
        }
        guard isFolder.boolValue else { return [QueueItem(file: path, database: call.host.database)] }
        // A folder adds its audio files, in path order, as MPD adds a directory of its database.
        let base = URL(fileURLWithPath: path)
        let enumerator = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)
        var files: [String] = []
        while let url = enumerator?.nextObject() as? URL {
            if AudioDecoders.hasAudioSuffix(url.path) { files.append(url.standardizedFileURL.path) }
        }
        return files.sorted().map { QueueItem(file: $0, database: call.host.database) }
    }

    static func integer(_ text: String) throws(MPDError) -> Int {
        guard let value = Int(text) else { throw MPDError(.arg, "Integer expected: \(text)") }
        return value
    }

    static func boolean(_ text: String) throws(MPDError) -> Bool {
        switch text {
        case "0": return false
        case "1": return true
        default: throw MPDError(.arg, "Boolean (0/1) expected: \(text)")
        }
    }

    static func priorityValue(_ text: String) throws(MPDError) -> Int {
        let value = try integer(text)
        guard (0...255).contains(value) else { throw MPDError(.arg, "Priority out of range: \(text)") }
        return value
    }

    /// `N` or `START:END` (END may be left out: to the end of the queue).
    static func positionRange(_ text: String, count: Int) throws(MPDError) -> Range<Int> {
        let parts = text.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false)
        guard let start = Int(parts[0]), start >= 0 else { throw MPDError(.arg, "Integer expected: \(text)") }
        guard parts.count == 2 else { return start..<(start + 1) }
        if parts[1].isEmpty { return start..<max(start, count) }
        guard let end = Int(parts[1]), end >= start else { throw MPDError(.arg, "Malformed range: \(text)") }
        return start..<end
    }

    /// A queue position to insert or move to: absolute, or `+N` / `-N` relative to the current song.
    static func insertPosition(_ text: String, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        if let sign = text.first, sign == "+" || sign == "-" {
            guard let current = snapshot.currentIndex else { throw MPDError(.arg, "No current song") }
            let offset = try integer(String(text.dropFirst()))
            let position = sign == "+" ? current + 1 + offset : current - offset
            guard (0...snapshot.entries.count).contains(position) else { throw MPDError(.arg, "Bad song index") }
            return position
        }
        let position = try integer(text)
        guard (0...snapshot.entries.count).contains(position) else { throw MPDError(.arg, "Bad song index") }
        return position
    }

    static func queueIndex(id text: String, _ snapshot: PlayerSnapshot) throws(MPDError) -> Int {
        let id = try integer(text)
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
