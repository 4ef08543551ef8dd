import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Writes a whole file or nothing: the bytes go to a temporary file in the same folder, are flushed to
/// disk, and are renamed over the target, so a crash or a full disk never leaves half a file there.
public enum AtomicFile {
    /// Throws `SystemError.fileWrite`, in words that name the file and the system's reason.
    public static func write(_ data: Data, toPath path: String) throws(SystemError) {
        func failure(_ what: String, _ code: Int32 = errno) -> SystemError {
            .fileWrite("cannot write \(path): \(what)\(String(cString: strerror(code)))")
        }
        var info = stat()
        if stat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw .fileWrite("cannot write \(path): it is a folder")
        }
        let url = URL(fileURLWithPath: path)
        let folder = url.deletingLastPathComponent().path
        let temporary = folder + "/.\(url.lastPathComponent).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
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
}
