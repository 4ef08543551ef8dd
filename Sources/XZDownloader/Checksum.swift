import Crypto
import Foundation
import SystemPackage

/// SHA-256 as catalogues write it: 64 lower-case hexadecimal digits.
enum Checksum {
    static func sha256Hex(_ data: Data) -> String { hex(SHA256.hash(data: data)) }

    /// The digest of a whole file, read in 1 MiB chunks so memory stays flat for any size.
    static func sha256Hex(ofFile path: String) throws -> String {
        do {
            let file = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
            return try file.closeAfter {
                var hasher = SHA256()
                let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
                defer { buffer.deallocate() }
                while true {
                    let count = try file.read(into: buffer)
                    if count == 0 { break }
                    hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0 ..< count]))
                }
                return hex(hasher.finalize())
            }
        } catch let error as Errno {
            throw DownloadError.io("cannot read \(path): \(String(cString: strerror(error.rawValue)))")
        }
    }

    private static func hex(_ digest: SHA256.Digest) -> String {
        digest.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
    }
}
