import Foundation
import XZSystem
import XZAudio
import XZCatalogue
import XZFolderScan

/// Config keys `auto_update` (yes/no; on unless `no`) and `auto_update_depth` (folders below the music
/// folder that are watched; 0: only the music folder itself; unset: all), MPD's names.
package struct LibraryWatchSettings: Sendable, Equatable {
    package var enabled = true
    package var depth: Int?
    /// How long writes must have settled before the folders they touched are updated.
    package var timing = FolderWatch.Timing()
    /// How often a music folder inotify cannot watch is rescanned instead, in seconds.
    package var rescanInterval: Double = 60
    /// At most this many folders watched (nil: as many as the system allows).
    package var watchLimit: Int?

    package init() {}

    package init(config: ConfigFile) throws(SystemError) {
        if let enabled = try config.yesNo(.autoUpdate) { self.enabled = enabled }
        if let depth = try config.wholeNumber(.autoUpdateDepth) { self.depth = depth }
    }
}

extension FolderWatch.Timing: Equatable {
    package static func == (a: Self, b: Self) -> Bool { a.quiet == b.quiet && a.ceiling == b.ceiling }
}

/// The music folder's watch: changed folders become one update job per settled batch, and where inotify
/// cannot watch, a rescan of the whole folder every `rescanInterval` (said once).
final class LibraryWatch: Sendable {
    private struct State {
        var watch: FolderWatch?
        var rescans: RescanTimer?
        /// Bumped by every start and stop, so a failure of a watch that was replaced changes nothing.
        var generation = 0
    }

    private let state = Mutex(State())

    /// Watches `root` (an existing folder, symbolic links resolved) as `settings` say, replacing any
    /// watch before. `update` starts a job for the folders a batch named, or for the whole of `root`
    /// (nil) when it is rescanned; `quiet` for a rescan.
    func start(root: String, settings: LibraryWatchSettings, report: @escaping @Sendable (String) -> Void,
               update: @escaping @Sendable (_ folders: [String]?, _ quiet: Bool) -> Void) {
        stop()
        guard settings.enabled else { return }
        let generation = state.withLock { state in
            state.generation += 1
            return state.generation
        }
        let watch = FolderWatch(
            root: root, depth: settings.depth, timing: settings.timing, limit: settings.watchLimit,
            relevant: { name in
                AudioDecoders.hasAudioSuffix(name) || name.hasSuffix(".lrc") || name.hasSuffix(".LRC")
                    || FolderPlaylists.isPlaylistFileName(name) || name == ".mpdignore" || CueSheet.isSheetName(name)
            },
            changed: { folders in update(folders, false) },
            failed: { [weak self] error in
                report("\(error); rescanning it every \(String(format: "%g", settings.rescanInterval)) s instead")
                self?.rescanPeriodically(every: settings.rescanInterval, generation: generation) { update(nil, true) }
            })
        state.withLock { state in
            if state.generation == generation { state.watch = watch }
        }
    }

    /// Ends the watch or the rescans; a job already queued still runs.
    func stop() {
        let (watch, rescans) = state.withLock { state in
            state.generation += 1
            defer {
                state.watch = nil
                state.rescans = nil
            }
            return (state.watch, state.rescans)
        }
        watch?.stop()
        rescans?.source.cancel()
    }

    private func rescanPeriodically(every interval: Double, generation: Int, rescan: @escaping @Sendable () -> Void) {
        let timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        // At once as well: what the watch missed before it failed is found without waiting.
        timer.schedule(deadline: .now(), repeating: interval, leeway: .seconds(1))
        timer.setEventHandler(handler: rescan)
        let current = state.withLock { state in
            guard state.generation == generation else { return false }
            state.rescans = RescanTimer(source: timer)
            return true
        }
        if current { timer.resume() }
    }
}

/// A libdispatch timer; dispatch sources may be cancelled from any thread (libdispatch synchronises its
/// handles), so sharing this handle is safe.
private struct RescanTimer: @unchecked Sendable {
    let source: DispatchSourceTimer
}

extension PlayerHost {
    /// Watches the music folder (MPD's `auto_update`): files added, changed, removed or renamed in it
    /// reach the catalogue through an update job of the folders they are in, started once writes have
    /// settled, and observers hear `update` and `database` as after `update`. A music folder that is not
    /// there is not watched.
    package func watchLibrary(_ settings: LibraryWatchSettings) {
        guard let resolved = realpath(naming.musicDirectory, nil) else { return }
        let root = String(cString: resolved)
        free(resolved)
        var info = stat()
        guard stat(root, &info) == 0, info.st_mode & S_IFMT == S_IFDIR else { return }
        libraryWatch.start(root: root, settings: settings, report: report) { [weak self] folders, quiet in
            guard let self else { return }
            // A rescan waits for no job of its own kind: one queued or running will find the same.
            if quiet, updates.current != nil { return }
            let database = database
            _ = updates.start(root, database: database, playlists: playlistsFolder, quiet: quiet,
                              announce: { [weak self] changes in self?.announce(changes) }, report: report) {
                if let folders { try database.importChanges(in: folders, root: root) } else { try database.importFolder(at: URL(fileURLWithPath: root)) }
            }
        }
    }
}
