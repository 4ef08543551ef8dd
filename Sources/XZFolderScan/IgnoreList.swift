import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// MPD's `.mpdignore` (its ExcludeList): each line of the file is a shell pattern (`fnmatch`, no flags)
/// matched against the names of the entries of its folder and of every folder below; spaces around a
/// pattern are cut, and a line starting with `#` is a comment (a `#` later on is part of the pattern,
/// as MPD 0.23 reads it). A matching file is no song, a matching folder is not entered.
struct IgnoreList: Sendable, Equatable {
    static let fileName = ".mpdignore"
    /// Bytes of one file read: far more patterns than anyone writes, and a huge file costs no memory.
    static let maxFileBytes = 64 * 1024
    /// Patterns in force at once (a folder's and its parents'): each name is matched against all of them.
    static let maxPatterns = 1_024

    private(set) var patterns: [String] = []

    /// True when a pattern in force matches `name`.
    func ignores(_ name: String) -> Bool {
        patterns.contains { fnmatch($0, name, 0) == 0 }
    }

    /// These patterns and those of the `.mpdignore` in `folder` (none when it has no readable regular one).
    func adding(folder: String) -> IgnoreList {
        guard let data = Self.read(folder + "/" + Self.fileName) else { return self }
        var list = self
        for raw in String(decoding: data, as: UTF8.self).split(whereSeparator: \.isNewline) {
            guard list.patterns.count < Self.maxPatterns else { break }
            let line = raw.trimmingCharacters(in: .whitespaces)
            // A NUL would end the pattern early in C: such a line is no pattern.
            guard !line.isEmpty, !line.hasPrefix("#"), !line.utf8.contains(0) else { continue }
            list.patterns.append(line)
        }
        return list
    }

    /// The patterns `folder` (`root` or below it) inherits: those of every `.mpdignore` from the root
    /// down to its parent. Nil when a folder on the way is itself ignored: nothing in it is music.
    static func inherited(by folder: String, root: String) -> IgnoreList? {
        let rootPrefix = root.hasSuffix("/") ? root : root + "/"
        guard folder.hasPrefix(rootPrefix) else { return IgnoreList() }
        var list = IgnoreList()
        var path = String(rootPrefix.dropLast())
        for name in folder.dropFirst(rootPrefix.count).split(separator: "/").map(String.init) {
            list = list.adding(folder: path)
            if list.ignores(name) { return nil }
            path += "/" + name
        }
        return list
    }

    /// The first bytes of a regular file (never a FIFO's wait), or nil.
    private static func read(_ path: String) -> Data? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        let handle = FileHandle(fileDescriptor: fd, closeOnDealloc: true)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return try? handle.read(upToCount: maxFileBytes)
    }
}
