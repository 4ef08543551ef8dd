import Crypto
import Foundation
import SystemPackage
import XZSystem

/// Checksums as catalogues write them: lower-case hexadecimal digits. MD5 and SHA-1 only check what a
/// source (the Internet Archive) publishes; they are no defence against a forged file.
enum Checksum {
    static func sha256Hex(_ data: Data) -> String { ByteEncodings.hex(SHA256.hash(data: data)) }

    /// The SHA-256 of a whole file.
    static func sha256Hex(ofFile path: String) throws -> String { try hex(of: SHA256.self, file: path) }

    /// The catalogue's checksums (empty ones are not wanted) against the file's, each read in one pass;
    /// the first that differs is named.
    static func check(_ path: String, sha256: String, md5: String, sha1: String) throws {
        let wanted: [(String, String, (String) throws -> String)] = [
            ("SHA-256", sha256, { try hex(of: SHA256.self, file: $0) }),
            ("SHA-1", sha1, { try hex(of: Insecure.SHA1.self, file: $0) }),
            ("MD5", md5, { try hex(of: Insecure.MD5.self, file: $0) }),
        ]
        for (name, expected, digest) in wanted {
            let expected = expected.trimmingCharacters(in: .whitespaces).lowercased()
            guard !expected.isEmpty else { continue }
            let actual = try digest(path)
            guard actual == expected else {
                throw DownloadError.verification("\(name) \(actual) does not match the catalogue's \(expected); the file was not kept")
            }
        }
    }

    /// The digest of a whole file, read in 1 MiB chunks so memory stays flat for any size.
    static func hex<H: HashFunction>(of _: H.Type, file path: String) throws -> String {
        do {
            let file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
            return try file.closeAfter {
                var hasher = H()
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate() }
                while true {
                    let count = try file.read(into: buffer)
                    if count == 0 { break }
                    hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0 ..< count]))
                }
                return ByteEncodings.hex(hasher.finalize())
            }
        } catch let error as Errno {
            throw DownloadError.io("cannot read \(path): \(String(cString: strerror(error.rawValue)))")
        }
    }
}
