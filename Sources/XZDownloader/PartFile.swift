import Foundation
import SystemPackage
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `.part` file a body streams into, written with plain POSIX calls so every received chunk is
/// in the kernel at once: a killed process leaves all of it for the next resume.
final class PartFile {
    let path: String
    private let fd: Int32
    private(set) var size: Int64

    /// Opens for appending at `offset` (the rest is cut off), or from zero when `offset` is 0.
    init(path: String, offset: Int64) throws {
        self.path = path
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Self.error(errno, action: "open", path: path, size: 0) }
        // Truncating to the resume point drops any bytes past it that a dead writer left half-way.
        if ftruncate(fd, off_t(offset)) != 0, offset != Self.currentSize(fd) {
            let code = errno
            close(fd)
            throw Self.error(code, action: "truncate", path: path, size: 0)
        }
        if lseek(fd, off_t(offset), SEEK_SET) < 0 {
            let code = errno
            close(fd)
            throw Self.error(code, action: "seek in", path: path, size: 0)
        }
        self.fd = fd
        size = offset
    }

    deinit { close(fd) }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        do {
            try FileDescriptor(rawValue: fd).writeAll(bytes)
        } catch let error as Errno {
            throw Self.error(error.rawValue, action: "write", path: path, size: size)
        }
        size += Int64(bytes.count)
    }

    /// Bytes of a file on disk, 0 when it does not exist.
    static func size(ofFile path: String) -> Int64 {
        var info = stat()
        return stat(path, &info) == 0 ? Int64(info.st_size) : 0
    }

    private static func currentSize(_ fd: Int32) -> Int64 {
        var info = stat()
        return fstat(fd, &info) == 0 ? Int64(info.st_size) : -1
    }

    /// ENOSPC and EDQUOT become `.diskFull` with what to do about it; the `.part` is kept either way.
    static func error(_ code: Int32, action: String, path: String, size: Int64) -> DownloadError {
        let reason = String(cString: strerror(code))
        if code == ENOSPC || code == EDQUOT {
            return DownloadError.diskFull("disk full while writing \(path) (\(reason)); the \(size) bytes already downloaded are kept: free some space and resume")
        }
        return DownloadError.io("cannot \(action) \(path): \(reason)")
    }
}

