import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole file or nothing: the bytes go to a temporary file in the same folder, are flushed to
/// disk, and are renamed over the target, so a crash or a full disk never leaves half a file there.
package enum AtomicFile {
    /// Throws `SystemError.fileWrite`, in words that name the file and the system's reason.
    package static func write(_ data: Data, toPath path: String) throws(SystemError) {
        func failure(_ what: String, _ code: Int32 = errno) -> SystemError {
            .fileWrite("cannot write \(path): \(what)\(String(cString: strerror(code)))")
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .fileWrite("cannot write \(path): it is a folder")
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/" + temporaryName(for: url.lastPathComponent)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw failure("cannot create a file in \(folder): ") }
        var written = 0
        let ok = data.withUnsafeBytes { buffer -> Bool in
            while written < buffer.count {
                let count = Glibc.write(fd, buffer.baseAddress! + written, buffer.count - written)
                if count < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                written += count
            }
            return fsync(fd) == 0
        }
        let code = errno
        close(fd)
        guard ok else {
            unlink(temporary)
            throw failure("", code)
        }
        guard rename(temporary, path) == 0 else {
            let error = failure("")
            unlink(temporary)
            throw error
        }
    }

    /// `.NAME.PID.RANDOM.tmp`: hidden, beside its target, unique to the writing process.
    static func temporaryName(for name: String) -> String {
        ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    }

    /// How old a temporary file must be before it is taken for a dead writer's: a write in progress
    /// takes well under a second.
    package static let leftoverAge: TimeInterval = 60

    /// Removes from `folder` the temporary files a write left when its process died mid-way (`kill -9`,
    /// a power cut): regular files named as `write` names them (for the file `name` only, when given)
    /// and unchanged for `minimumAge` seconds, so another process's write in progress is never touched.
    /// Returns how many it removed; a folder that cannot be read has none.
    @discardableResult
    package static func removeLeftovers(in folder: String, of name: String? = nil,
                                       olderThan minimumAge: TimeInterval = leftoverAge) -> Int {
        guard let files = try? FileManager.default.contentsOfDirectory(atPath: folder) else { return 0 }
        let now = Date().timeIntervalSince1970
        var removed = 0
        for file in files where isTemporaryName(file, of: name) {
            let path = folder + "/" + file
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG,
                  now - Double(info.st_mtim.tv_sec) >= minimumAge else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Whether `file` is named as `temporaryName` names one (of `name`, when given).
    static func isTemporaryName(_ file: String, of name: String?) -> Bool {
        let parts = file.split(separator: ".", omittingEmptySubsequences: false)
        let isNumber = { (part: Substring) in !part.isEmpty && part.allSatisfy { $0.isASCII && $0.isNumber } }
        guard file.hasPrefix("."), parts.count >= 5, parts.last == "tmp", isNumber(parts[parts.count - 2]),
              isNumber(parts[parts.count - 3]) else { return false }
        let target = parts[1..<(parts.count - 3)].joined(separator: ".")
        return !target.isEmpty && (name == nil || target == name)
    }
}
