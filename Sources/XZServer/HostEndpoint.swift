import Foundation
import XZCatalogue
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// Where a library's host listens, found from the library alone: a Unix socket under
/// `$XDG_RUNTIME_DIR/xzmusic/` named after the library folder, else `host.sock` in the library folder.
package struct HostEndpoint: Sendable, Equatable {
    package let socketPath: String
    /// Held by the running host; a socket whose lock is free was left by a host that died.
    package let lockPath: String

    package init(library: LibraryFolder, environment: [String: String] = ProcessEnvironment.variables("XDG_RUNTIME_DIR")) {
        lockPath = library.url.appendingPathComponent("host.lock").path
        if let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") {
            let name = String(HostEndpoint.fnv1a(library.url.path), radix: 16)
            socketPath = runtime + "/xzmusic/" + name + ".sock"
        } else {
            socketPath = library.url.appendingPathComponent("host.sock").path
        }
    }

    /// The running host, or nil when none answers (no socket, or one left by a host that died).
    package func connect() throws -> MPDClient? {
        try MPDClient.connect(unixPath: socketPath)
    }

    /// A short stable name for a folder path (FNV-1a, 64 bits).
    static func fnv1a(_ text: String) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// The lock that makes one host per library. Released by the kernel when the host dies, so a socket
/// left behind by a killed host is known to be stale.
package final class HostLock: Sendable {
    private let descriptor: Int32

    /// Takes the lock and records `description` (pid and addresses) for a second host to name; throws
    /// naming the running host when it is taken.
    package init(path: String, description: String) throws {
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServerError.cannotOpen("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else {
            // The lock file only names the running host for the message; unreadable, it names none.
            let running = (try? String(contentsOfFile: path, encoding: .utf8))?
                .trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
            close(fd)
            throw ServerError.hostRunning("another xzmusic already hosts this library (\(running.isEmpty ? "starting" : running))")
        }
        _ = ftruncate(fd, 0)
        let text = description + "\n"
        _ = text.withCString { write(fd, $0, strlen($0)) }
        descriptor = fd
    }

    deinit {
        _ = ftruncate(descriptor, 0)
        close(descriptor)
    }
}

