import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What stat(2) says of a file: its kind, size and modification time. Foundation's `attributesOfItem`
/// also names the file's owner and group, each a lookup through NSS (/etc/nsswitch.conf, /etc/passwd,
/// /etc/group) that nothing here needs; this asks the kernel alone.
package struct FileStatus: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        case regular, folder, symbolicLink, other
    }

    package let kind: Kind
    package let size: Int64
    package let modified: Date

    /// The file at `path`, or nil when it cannot be asked. A symbolic link is itself (as `attributesOfItem`
    /// takes it) unless `followingLinks`.
    package init?(path: String, followingLinks: Bool = false) {
        var info = stat()
        guard (followingLinks ? stat(path, &info) : lstat(path, &info)) == 0 else { return nil }
        switch info.st_mode & S_IFMT {
        case S_IFREG: kind = .regular
        case S_IFDIR: kind = .folder
        case S_IFLNK: kind = .symbolicLink
        default: kind = .other
        }
        size = Int64(info.st_size)
        modified = Date(timeIntervalSince1970: TimeInterval(info.st_mtim.tv_sec) + TimeInterval(info.st_mtim.tv_nsec) / 1_000_000_000)
    }
}
