import Crypto
import Foundation
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// The 256-bit key that seals the library's passwords, kept in one file readable by its owner alone
/// (`accounts.key` in the library folder). Made on first use: written whole to a private temporary
/// file, then linked into place, so two processes starting at once agree on one key. A file others may
/// read, or that belongs to someone else, is refused rather than used.
package final class AccountKeyFile: Sendable {
    package static let fileName = "accounts.key"
    static let keyBytes = 32

    package let url: URL
    private let loaded = Mutex<SymmetricKey?>(nil)

    package init(url: URL) {
        self.url = url
    }

    /// The key, read once (or made when the file is missing).
    func key() throws(AccountError) -> SymmetricKey {
        try loaded.withLock { (loaded: inout SymmetricKey?) throws(AccountError) -> SymmetricKey in
            if let loaded { return loaded }
            let key = try Self.readOrCreate(url.path)
            loaded = key
            return key
        }
    }

    private static func readOrCreate(_ path: String) throws(AccountError) -> SymmetricKey {
        if let key = try load(path) { return key }
        let key = SymmetricKey(size: .bits256)
        try create(path, key: key)
        // Another process may have linked its key first: the file's key is the one.
        guard let stored = try load(path) else { throw AccountError.keyFile("\(path) vanished while it was made") }
        return stored
    }

    /// The key in the file; nil when there is no file.
    private static func load(_ path: String) throws(AccountError) -> SymmetricKey? {
        let fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw AccountError.keyFile("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else {
            throw AccountError.keyFile("cannot read \(path): \(String(cString: strerror(errno)))")
        }
        guard status.st_mode & S_IFMT == S_IFREG else { throw AccountError.keyFile("\(path) is not a regular file") }
        guard status.st_uid == geteuid() else {
            throw AccountError.keyFile("\(path) belongs to another user (uid \(status.st_uid)); it must be this user's own")
        }
        guard status.st_mode & 0o077 == 0 else {
            throw AccountError.keyFile(
                "\(path) may be read by others (mode \(String(status.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        var bytes = [UInt8](repeating: 0, count: keyBytes + 1)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count == keyBytes else {
            throw AccountError.keyFile("\(path) does not hold a \(keyBytes)-byte key")
        }
        return SymmetricKey(data: bytes.prefix(keyBytes))
    }

    private static func create(_ path: String, key: SymmetricKey) throws(AccountError) {
        let temporary = path + ".new-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw AccountError.keyFile("cannot make \(path): \(String(cString: strerror(errno)))") }
        defer { unlink(temporary) }
        let written = key.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        let synced = fsync(fd) == 0
        let failure = errno
        close(fd)
        guard written == keyBytes, synced else {
            throw AccountError.keyFile("cannot write \(path): \(String(cString: strerror(failure)))")
        }
        // link fails when the name exists: a key already in place is never replaced.
        if link(temporary, path) != 0 {
            if errno == EEXIST { return }
            throw AccountError.keyFile("cannot make \(path): \(String(cString: strerror(errno)))")
        }
        // The new name outlives a power cut only once its folder is written too.
        let folder = open((path as NSString).deletingLastPathComponent, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }
}
