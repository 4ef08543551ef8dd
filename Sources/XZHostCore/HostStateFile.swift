import Foundation
import XZCatalogue
import XZPlaybackValues
import XZSystem

extension PlayerHost {
    /// Restores what `path` holds (MPD's `state_file`); `paused` (MPD's `restore_paused`) brings back
    /// playing music paused. As MPD, a line with a bad value is dropped and every other line kept: each
    /// dropped line is said in one line, and the file as it was is kept beside it (`NAME.damaged`, the first
    /// time only) before the next save replaces it. The file is read to a cap its queue's cap sets; a
    /// missing file says nothing.
    package func restoreState(from path: String, paused: Bool) {
        let name = Self.printable(path)
        let descriptor: Int32
        do {
            descriptor = try RegularFile.openForReading(path).descriptor
        } catch {
            switch error.kind {
            case .cannotOpen where error.code == ENOENT: return
            case .cannotOpen: report("state file \(name) cannot be read (\(String(cString: strerror(error.code)))); starting with an empty queue")
            case .folder, .notRegular: report("state file \(name) is not a regular file; starting with an empty queue")
            }
            return
        }
        defer { close(descriptor) }
        let maxQueueLength = self.maxQueueLength
        let limit = HostState.maxFileBytes(maxQueueLength: maxQueueLength)
        var parser = HostState.Parser(maxQueueLength: maxQueueLength)
        let end = Self.readLines(descriptor, limit: limit, into: &parser)
        let reading = parser.finish(cut: end != .whole)
        for line in reading.dropped { report("state file \(name) \(line): dropped, the rest kept") }
        if reading.droppedCount > reading.dropped.count {
            report("state file \(name): \(reading.droppedCount - reading.dropped.count) more bad lines dropped")
        }
        switch end {
        case .whole:
            if reading.queueCut { report("state file \(name) holds more than max_playlist_length (\(maxQueueLength)) songs: the first kept") }
        case .cut:
            report("state file \(name) is longer than \(limit) bytes, the most max_playlist_length (\(maxQueueLength)) needs: read to there")
        case .failed(let code):
            report("state file \(name) cannot be read past line \(parser.lineNumber) (\(String(cString: strerror(code)))): read to there")
        }
        if reading.droppedCount > 0 || reading.queueCut || end != .whole, let copy = Self.keepDamaged(path) {
            report("state file \(name) kept as it was in \(Self.printable(copy))")
        }
        restore(reading.state, paused: paused)
    }

    private enum ReadEnd: Equatable {
        case whole, cut, failed(Int32)
    }

    /// Hands `parser` the lines of the first `limit` bytes of `descriptor`, a chunk at a time, so only what
    /// is kept stays in memory. A line longer than `HostState.maxLineBytes` is skipped unkept; the line a cut
    /// ends inside is not read.
    private static func readLines(_ descriptor: Int32, limit: Int, into parser: inout HostState.Parser) -> ReadEnd {
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var line: [UInt8] = []
        var overlong = false
        var total = 0
        while true {
            // One byte past the cap tells a file that goes on from one that ends there.
            let wanted = min(chunk.count, limit - total + 1)
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, wanted) }
            if count < 0 {
                if errno == EINTR { continue }
                return .failed(errno)
            }
            if count == 0 { break }
            let usable = min(count, limit - total)
            total += count
            for byte in chunk[..<usable] {
                if byte == 0x0A {
                    if overlong { parser.skipLongLine() } else { parser.read(String(decoding: line, as: UTF8.self)[...]) }
                    line.removeAll(keepingCapacity: true)
                    overlong = false
                } else if !overlong {
                    line.append(byte)
                    if line.count > HostState.maxLineBytes {
                        overlong = true
                        line.removeAll(keepingCapacity: true)
                    }
                }
            }
            if total > limit { return .cut }
        }
        // A last line without its newline.
        if overlong { parser.skipLongLine() } else if !line.isEmpty { parser.read(String(decoding: line, as: UTF8.self)[...]) }
        return .whole
    }

    /// Keeps a damaged state file as it is at `path` + `.damaged`, unless one is kept already (the first
    /// damage is the one worth a look). Returns the copy's path when it made one.
    private static func keepDamaged(_ path: String) -> String? {
        let copy = path + ".damaged"
        // A second name for the same bytes, never replacing one: the next save renames a new file over `path`.
        if linkat(AT_FDCWD, path, AT_FDCWD, copy, AT_SYMLINK_FOLLOW) == 0 { return copy }
        guard errno != EEXIST, !FileManager.default.fileExists(atPath: copy) else { return nil }
        // A file system without hard links: a copy, whole under its name or not there.
        let partial = copy + ".partial"
        try? FileManager.default.removeItem(atPath: partial)
        do {
            try FileManager.default.copyItem(atPath: path, toPath: partial)
            guard rename(partial, copy) == 0 else { throw CocoaError(.fileWriteUnknown) }
            return copy
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            return nil
        }
    }

    /// Keeps the state in `path` from now on: a second after the last change, every few seconds while
    /// playing (a killed host loses that much of the position) and at `shutdown`.
    package func keepState(at path: String) {
        let keeper = HostStateKeeper(host: self, path: path)
        let earlier = stateKeeper.withLock { kept in
            defer { kept = keeper }
            return kept
        }
        earlier?.finish()
    }

    /// The state to save now.
    package func currentState() -> HostState {
        let snapshot = snapshot()
        var state = HostState()
        state.volume = snapshot.volume
        // Every output by the name MPD keeps it by, the one chosen by `--output` as the config's.
        state.outputs = outputSet == nil ? [HostState.OutputState(name: output.name, enabled: isOutputEnabled)]
            : outputStatuses.map { HostState.OutputState(name: $0.name, enabled: $0.enabled) }
        switch snapshot.state {
        case .playing: state.playState = .play
        case .paused: state.playState = .pause
        default: state.playState = .stop
        }
        state.elapsedSeconds = Double(snapshot.positionMs) / 1000
        state.shuffle = snapshot.shuffle
        state.repeats = snapshot.repeats
        state.single = snapshot.single
        state.consume = snapshot.consume
        state.replayGainMode = snapshot.replayGainMode
        state.crossfadeSeconds = snapshot.crossfade.seconds
        state.mixRampDb = snapshot.crossfade.mixRampDB
        state.mixRampDelaySeconds = snapshot.crossfade.mixRampDelay
        // A name with a line break cannot be a line of the file: that entry is not kept.
        for (index, entry) in snapshot.entries.enumerated() {
            let name = uri(of: entry.item)
            guard !name.contains(where: \.isNewline) else { continue }
            if index == snapshot.currentIndex { state.current = state.queue.count }
            state.queue.append(HostState.Entry(uri: name, priority: entry.priority))
        }
        return state
    }

    /// The outputs' choices of a state file: the config's outputs by name, as MPD restores them (a name the
    /// config no longer has is dropped); the one chosen by `--output` takes the file's first, whatever its name.
    func restoreOutputs(_ saved: [HostState.OutputState], _ turn: PlayerTurn) {
        guard outputSet != nil else {
            if let first = saved.first { turn.setOutputEnabled(first.enabled) }
            return
        }
        for status in outputStatuses {
            if let kept = saved.first(where: { $0.name == status.name }) { turn.setOutputEnabled(kept.enabled, id: status.id) }
        }
    }

    /// Puts `state` into the player: its songs that are gone are left out with one line each, and
    /// music that was playing comes back paused at its place when `paused`.
    package func restore(_ state: HostState, paused: Bool) {
        var playables: [Playable] = []
        var priorities: [Int] = []
        var current: Int?
        for (index, entry) in state.queue.enumerated() {
            guard let playable = restorable(entry.uri) else {
                report("\(Self.printable(entry.uri)) is gone: left out of the restored queue")
                continue
            }
            if index == state.current { current = playables.count }
            playables.append(playable)
            priorities.append(entry.priority)
        }
        let items = QueueItem.items(playables, database: database)
        // One turn: no client sees the queue half restored.
        exclusively { turn in
            turn.setVolume(state.volume)
            turn.setRepeats(state.repeats)
            turn.setSingle(state.single)
            turn.setConsume(state.consume)
            if let mode = state.replayGainMode {
                var replayGain = turn.replayGain
                replayGain.mode = mode
                turn.replayGain = replayGain
            }
            turn.updateCrossfade { crossfade in
                crossfade.seconds = state.crossfadeSeconds
                crossfade.mixRampDB = state.mixRampDb
                crossfade.mixRampDelay = state.mixRampDelaySeconds
            }
            restoreOutputs(state.outputs, turn)
            turn.insert(items, at: nil)
            for priority in Set(priorities) where priority != 0 {
                turn.setPriority(priority, at: priorities.indices.filter { priorities[$0] == priority })
            }
            turn.setShuffle(state.shuffle)
            guard let current, state.playState != .stop else { return }
            turn.playItem(at: current)
            if paused || state.playState == .pause || !isOutputEnabled { turn.pause() }
            // A file's number: held to a day past any song's end rather than trusted.
            let ms = Int(clamping: state.elapsedSeconds * 1000, to: 0...86_400_000)
            if ms > 0 { turn.requestSeek(.absolute(ms: ms)) }
        }
    }

    /// What a saved name plays here, or nil when it is gone: a file must still be there, a stream needs a
    /// host that streams.
    private func restorable(_ uri: String) -> Playable? {
        if QueueItem.isStreamURL(uri) { return canStream ? .stream(uri) : nil }
        // The host's own file names absolute paths too; a catalogue name still needs its song.
        guard let path = try? naming.locate(uri, allowAbsolute: true, catalogue: database).path,
              (try? RegularFile.check(path)) != nil else { return nil }
        return .file(path)
    }

    /// A name from a file, fit to print: no control characters.
    private static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }
}

/// Writes the host's state to its file on a thread of its own: a second after the last change (at
/// most five after the first of a burst), every few seconds while playing, and once more at `finish`.
final class HostStateKeeper: Sendable {
    private struct Pending: Sendable {
        var firstChange: DispatchTime?
        var lastChange = DispatchTime.now()
        var finishing = false
        var finished = false
    }

    private static let quiet = 1.0
    private static let longestDelay = 5.0
    private static let whilePlaying = 3.0

    private let path: String
    private let pending: Monitor<Pending>
    private let token: Int
    private weak let host: PlayerHost?

    init(host: PlayerHost, path: String) {
        self.path = path
        self.host = host
        let pending = Monitor(Pending())
        self.pending = pending
        token = host.observeChanges({ changes in
            guard !changes.isDisjoint(with: [.queue, .playback, .volume, .options, .output]) else { return }
            let burstBegins = pending.withLock { state in
                let now = DispatchTime.now()
                state.lastChange = now
                defer { if state.firstChange == nil { state.firstChange = now } }
                return state.firstChange == nil
            }
            // The thread sleeps without a deadline while nothing changed: the first change of a burst wakes it.
            if burstBegins { pending.wake() }
        }, client: false)
        let thread = Thread { [self] in run() }
        thread.name = "xzmusic-state-file"
        thread.start()
    }

    /// Saves the state once more and stops; returns when it is written.
    func finish() {
        pending.change { $0.finishing = true }
        _ = pending.wait { $0.finished ? true : nil }
        host?.stopObserving(token)
    }

    private func run() {
        var written: String?
        var lastSave = DispatchTime.now()
        var lastFailure: String?
        func save() {
            guard let host else { return }
            let text = host.currentState().text
            lastSave = .now()
            guard text != written else { return }
            do {
                try AtomicFile.write(Data(text.utf8), toPath: path)
                written = text
                lastFailure = nil
            } catch {
                // Said once until it works again, not at every attempt.
                if lastFailure != error.description { host.report("state not saved: \(error)") }
                lastFailure = error.description
            }
        }
        while true {
            // Asleep until a save is due: a burst's settling, and every few seconds while playing; nothing
            // else wakes the thread.
            let playing = host?.snapshot().state == .playing
            let (deadline, inBurst) = pending.withLock { state -> (DispatchTime?, Bool) in
                var deadline = state.firstChange.map { min(state.lastChange + Self.quiet, $0 + Self.longestDelay) }
                if playing { deadline = min(deadline ?? .distantFuture, lastSave + Self.whilePlaying) }
                return (deadline, state.firstChange != nil)
            }
            let finishing = pending.wait(until: deadline) { state -> Bool? in
                if state.finishing { return true }
                // A burst began after the deadline was reckoned.
                return state.firstChange != nil && !inBurst ? false : nil
            } ?? false
            if finishing || host == nil { break }
            let now = DispatchTime.now()
            let due = pending.withLock { state -> Bool in
                guard let first = state.firstChange,
                      Self.seconds(from: state.lastChange, to: now) >= Self.quiet
                        || Self.seconds(from: first, to: now) >= Self.longestDelay else { return false }
                state.firstChange = nil
                return true
            }
            if due || (Self.seconds(from: lastSave, to: now) >= Self.whilePlaying && host?.snapshot().state == .playing) {
                save()
            }
        }
        save()
        pending.change { $0.finished = true }
    }

    private static func seconds(from start: DispatchTime, to end: DispatchTime) -> Double {
        Double(end.uptimeNanoseconds &- start.uptimeNanoseconds) / 1e9
    }
}
