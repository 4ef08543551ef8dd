import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches a folder and its subfolders through inotify, on a thread of its own, and tells which folders
/// changed once writes have settled: `quiet` seconds without a new event and no created file still open
/// for writing, or at the latest `ceiling` seconds after the first event of a batch, so a copy that never
/// ends is still seen. A copied album is one batch, not one per file. Folders that appear are watched
/// from then on (down to `depth` below the root; nil: all), folders that go are dropped.
///
/// A batch names the folders to look at again: the folder of a changed file, a folder that appeared or
/// went (as itself), never one inside another of the batch. Only files whose name `relevant` accepts
/// count. With `inPlaceWrites`, every write to a file counts as it happens (a database's log, which its
/// writers keep open), not once the file is closed. When inotify cannot watch (too many folders for the system's limit, or no inotify at all)
/// `failed` hears why, once, and the watch ends.
package final class FolderWatch: Sendable {
    package struct Timing: Sendable {
        package var quiet: Double
        package var ceiling: Double

        package init(quiet: Double = 0.5, ceiling: Double = 10) {
            self.quiet = quiet
            self.ceiling = ceiling
        }
    }

    /// The pipe that wakes the watch thread to stop; nil once stopped.
    private let stopPipe: Mutex<(reader: Int32, writer: Int32)?>
    private let finished = DispatchSemaphore(value: 0)

    /// Starts watching `root` at once. `limit`: at most that many folders watched, as if the system's
    /// limit were reached there.
    package init(root: String, depth: Int? = nil, timing: Timing = Timing(), limit: Int? = nil, inPlaceWrites: Bool = false,
                relevant: @escaping @Sendable (_ fileName: String) -> Bool,
                changed: @escaping @Sendable (_ folders: [String]) -> Void,
                failed: @escaping @Sendable (SystemError) -> Void) {
        var ends: [Int32] = [-1, -1]
        let piped = pipe(&ends) == 0
        let pipeError = errno
        if piped {
            for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        }
        stopPipe = Mutex(piped ? (ends[0], ends[1]) : nil)
        let reader = ends[0]
        let finished = finished
        Thread.detachNewThread {
            var failure: SystemError?
            if piped {
                var loop = WatchLoop(root: root, depth: depth, timing: timing, limit: limit, inPlaceWrites: inPlaceWrites,
                                     relevant: relevant)
                failure = loop.run(stopReader: reader, changed: changed)
            } else {
                failure = .watch("cannot watch \(root): \(String(cString: strerror(pipeError)))")
            }
            // Signalled first: `failed` may let go of the last reference to this watch.
            finished.signal()
            if let failure { failed(failure) }
        }
    }

    deinit { stop() }

    /// Ends the watch and waits for its thread to leave; a batch being told is told to the end.
    package func stop() {
        guard let ends = stopPipe.withLock({ ends in
            defer { ends = nil }
            return ends
        }) else {
            finished.wait()
            finished.signal()
            return
        }
        // The reader stays open until the thread has left, so this write never meets a closed pipe.
        var byte: UInt8 = 1
        _ = write(ends.writer, &byte, 1)
        finished.wait()
        finished.signal()
        close(ends.writer)
        close(ends.reader)
    }
}

/// The watch thread's own state: the inotify descriptor, what each watch descriptor watches, and the
/// batch being gathered. Never leaves that thread.
private struct WatchLoop {
    let root: String
    let depth: Int?
    let timing: FolderWatch.Timing
    let limit: Int?
    let inPlaceWrites: Bool
    let relevant: @Sendable (String) -> Bool

    private var inotify: Int32 = -1
    private var watched: [Int32: (path: String, depth: Int)] = [:]
    private var batch = Set<String>()
    /// Created files not yet closed after writing: the batch waits for them (up to the ceiling).
    private var writing = Set<String>()
    private var firstEvent: UInt64 = 0
    private var lastEvent: UInt64 = 0
    private var failure: SystemError?

    /// Created, written, moved and deleted entries, and a watched folder's own end. Links are not
    /// followed, so a watch never leaves the tree.
    private static let mask = UInt32(IN_CREATE | IN_CLOSE_WRITE | IN_ATTRIB | IN_MOVED_FROM | IN_MOVED_TO | IN_DELETE
        | IN_ONLYDIR | IN_DONT_FOLLOW | IN_EXCL_UNLINK)

    init(root: String, depth: Int?, timing: FolderWatch.Timing, limit: Int?, inPlaceWrites: Bool,
         relevant: @escaping @Sendable (String) -> Bool) {
        self.root = root.count > 1 && root.hasSuffix("/") ? String(root.dropLast()) : root
        self.depth = depth
        self.timing = timing
        self.limit = limit
        self.inPlaceWrites = inPlaceWrites
        self.relevant = relevant
    }

    /// Watches until the stop pipe is written; nil, or why watching became impossible.
    mutating func run(stopReader: Int32, changed: @Sendable ([String]) -> Void) -> SystemError? {
        inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard inotify >= 0 else { return .watch("cannot watch \(root): inotify: \(String(cString: strerror(errno)))") }
        defer { close(inotify) }
        watchTree(root, depth: 0)
        if let failure { return failure }
        // inotify_event is 16 bytes and a name of at most NAME_MAX + 1; the buffer holds many.
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 8)
        defer { buffer.deallocate() }
        var fds = [pollfd(fd: stopReader, events: Int16(POLLIN), revents: 0),
                   pollfd(fd: inotify, events: Int16(POLLIN), revents: 0)]
        while true {
            let ready = poll(&fds, 2, timeout())
            if ready < 0 && errno != EINTR { return .watch("cannot watch \(root): \(String(cString: strerror(errno)))") }
            if fds[0].revents != 0 { return nil }
            if fds[1].revents != 0 {
                read(into: buffer, size: 64 * 1024)
                if let failure { return failure }
            }
            if !batch.isEmpty, DispatchTime.now().uptimeNanoseconds >= deadline() {
                let folders = Self.outermost(batch)
                batch.removeAll()
                writing.removeAll()
                changed(folders)
            }
        }
    }

    /// When the batch is due: quiet after the last event unless a created file is still being
    /// written, and never later than the ceiling after the first.
    private func deadline() -> UInt64 {
        let ceiling = firstEvent + UInt64(timing.ceiling * 1e9)
        return writing.isEmpty ? min(lastEvent + UInt64(timing.quiet * 1e9), ceiling) : ceiling
    }

    /// Milliseconds until the batch is due; -1 (no timeout) without one.
    private func timeout() -> Int32 {
        guard !batch.isEmpty else { return -1 }
        let now = DispatchTime.now().uptimeNanoseconds
        let due = deadline()
        return due <= now ? 0 : Int32(min((due - now + 999_999) / 1_000_000, UInt64(Int32.max)))
    }

    private mutating func read(into buffer: UnsafeMutableRawPointer, size: Int) {
        while failure == nil {
            let count = Glibc.read(inotify, buffer, size)
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return }
            var offset = 0
            while offset + 16 <= count {
                let wd = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let name = length == 0 ? "" : String(cString: (buffer + offset + 16).assumingMemoryBound(to: CChar.self))
                handle(wd: wd, mask: mask, name: name)
                offset += 16 + length
            }
        }
    }

    private mutating func handle(wd: Int32, mask: UInt32, name: String) {
        if mask & UInt32(IN_Q_OVERFLOW) != 0 {
            // Events were lost: the whole tree is looked at again, and folders made meanwhile watched.
            note(root)
            watchTree(root, depth: 0)
            return
        }
        if mask & UInt32(IN_IGNORED) != 0 {
            watched[wd] = nil
            return
        }
        guard let folder = watched[wd], !name.isEmpty else { return }
        let path = folder.path == "/" ? "/" + name : folder.path + "/" + name
        if mask & UInt32(IN_ISDIR) != 0 {
            if mask & UInt32(IN_CREATE | IN_MOVED_TO) != 0 {
                note(path)
                watchTree(path, depth: folder.depth + 1)
            } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                note(path)
                unwatchTree(path)
            }
            return
        }
        guard relevant(name) else { return }
        // A file written in place is never waited for: its writer may keep it open for good.
        if mask & UInt32(IN_CREATE) != 0, !inPlaceWrites { writing.insert(path) }
        if mask & UInt32(IN_CLOSE_WRITE | IN_DELETE | IN_MOVED_FROM) != 0 { writing.remove(path) }
        note(folder.path)
    }

    private mutating func note(_ folder: String) {
        let now = DispatchTime.now().uptimeNanoseconds
        if batch.isEmpty { firstEvent = now }
        lastEvent = now
        batch.insert(folder)
    }

    /// Watches `path` and its subfolders down to the depth limit. A folder that vanished or may not be
    /// read is left out; running out of watches is a failure.
    private mutating func watchTree(_ path: String, depth start: Int) {
        var folders = [(path, start)]
        while let (folder, level) = folders.popLast(), failure == nil {
            if let depth, level > depth { continue }
            let wd = inotify_add_watch(inotify, folder, inPlaceWrites ? Self.mask | UInt32(IN_MODIFY) : Self.mask)
            if wd < 0 {
                if errno == ENOSPC || errno == ENOMEM {
                    failure = .watch("cannot watch \(folder): too many folders for inotify (fs.inotify.max_user_watches)")
                }
                continue
            }
            // A folder watched already (the tree walked again after lost events) keeps its descriptor.
            if watched[wd] == nil, let limit, watched.count >= limit {
                inotify_rm_watch(inotify, wd)
                failure = .watch("cannot watch \(folder): more than \(limit) folders")
                return
            }
            watched[wd] = (folder, level)
            if let depth, level >= depth { continue }
            guard let dir = opendir(folder) else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name == "." || name == ".." { continue }
                var type = entry.pointee.d_type
                if type == UInt8(DT_UNKNOWN) {
                    var info = stat()
                    guard fstatat(dirfd(dir), name, &info, AT_SYMLINK_NOFOLLOW) == 0 else { continue }
                    type = info.st_mode & S_IFMT == S_IFDIR ? UInt8(DT_DIR) : UInt8(DT_REG)
                }
                if type == UInt8(DT_DIR) { folders.append((folder == "/" ? "/" + name : folder + "/" + name, level + 1)) }
            }
        }
    }

    /// Stops watching `path` and everything under it (a folder moved away keeps its watches otherwise,
    /// under a path that no longer names it).
    private mutating func unwatchTree(_ path: String) {
        let prefix = path + "/"
        for (wd, folder) in watched where folder.path == path || folder.path.hasPrefix(prefix) {
            inotify_rm_watch(inotify, wd)
            watched[wd] = nil
        }
    }

    /// The folders of `batch` that lie inside no other of them, sorted.
    static func outermost(_ batch: Set<String>) -> [String] {
        batch.filter { folder in
            guard folder != "/" else { return true }
            var parent = Substring(folder)
            while let slash = parent.lastIndex(of: "/") {
                parent = slash == parent.startIndex ? "/" : parent[..<slash]
                if batch.contains(String(parent)) { return false }
                if parent == "/" { break }
            }
            return true
        }.sorted()
    }
}
