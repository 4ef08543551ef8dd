#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one way the program opens a song, a picture or a cover a client can name: regular files only, as
/// MPD opens them. A FIFO, a device or a socket named `x.mp3` would block a reader forever (or never end),
/// so it is refused before a byte is read.
package enum RegularFile {
    /// Why a file was not opened: `catch .folder`, `error == .cannotOpen` (then `code` says why).
    package struct Refusal: KindedError {
        package enum Kind: Hashable, Sendable {
            /// It could not be opened or asked.
            case cannotOpen
            /// It is a folder.
            case folder
            /// It is a FIFO, a device, a socket: nothing a song or picture is read from.
            case notRegular
        }

        package let kind: Kind
        package var message: String
        /// The system's errno of `.cannotOpen`; 0 otherwise.
        package var code: Int32 = 0

        package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

        package static let cannotOpen = Refusal(kind: .cannotOpen, message: "cannot open the file")
        package static func cannotOpen(_ code: Int32) -> Refusal {
            Refusal(kind: .cannotOpen, message: "cannot open the file: " + String(cString: strerror(code)), code: code)
        }
        package static let folder = Refusal(kind: .folder, message: "is a folder")
        package static let notRegular = Refusal(kind: .notRegular, message: "is not a regular file (a FIFO, device or socket)")
    }

    /// A descriptor for reading `path` (symbolic links followed, as MPD follows them), once it is a regular
    /// file. Opened without blocking, so a FIFO cannot hold the caller before it is refused; the descriptor
    /// then blocks again as plain file reads expect. The caller closes it.
    package static func openForReading(_ path: String) throws(Refusal) -> (descriptor: Int32, size: Int64) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw .cannotOpen(errno) }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw .cannotOpen(code)
        }
        switch info.st_mode & S_IFMT {
        case S_IFREG: break
        case S_IFDIR:
            close(fd)
            throw .folder
        default:
            close(fd)
            throw .notRegular
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return (fd, Int64(info.st_size))
    }

    /// Checks, without opening it, that `path` is a regular file: for libraries that open files by name
    /// (TagLib), asked just before they do.
    package static func check(_ path: String) throws(Refusal) {
        var info = stat()
        guard stat(path, &info) == 0 else { throw .cannotOpen(errno) }
        switch info.st_mode & S_IFMT {
        case S_IFREG: return
        case S_IFDIR: throw .folder
        default: throw .notRegular
        }
    }

    /// The whole of a small regular file (a cover picture), nil when it is not one, cannot be read, or is
    /// larger than `limit` bytes.
    package static func contents(atPath path: String, limit: Int) -> [UInt8]? {
        (try? readWhole(path, limit: limit)) ?? nil
    }

    /// The whole of a small regular file, nil when it is larger than `limit` bytes; why it could not be
    /// opened otherwise.
    package static func readWhole(_ path: String, limit: Int) throws(Refusal) -> [UInt8]? {
        let (fd, size) = try openForReading(path)
        defer { close(fd) }
        guard size >= 0, size <= Int64(limit) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(size))
        var filled = 0
        while filled < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            filled += count
        }
        // A file that shrank while read is what was there.
        return filled == bytes.count ? bytes : Array(bytes[..<filled])
    }
}
