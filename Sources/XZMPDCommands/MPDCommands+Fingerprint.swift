import XZAudio
import XZProtocol
import XZSystem

/// `getfingerprint URI`: the file's Chromaprint fingerprint, as MPD computes it (`AudioFingerprint`), for
/// tagging clients. MPD answers its failures outside any command (`{}`), as its background commands do.
extension MPDCommands {
    static let fingerprintCommands: [MPDCommand] = [
        MPDCommand("getfingerprint", 1...1, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in
            let text = call.arguments[0]
            // A station is never fingerprinted (two minutes of it take two minutes); other schemes are
            // MPD's refusal.
            if text.contains("://") && !text.hasPrefix("file://") { throw MPDError(.arg, "Unsupported URI scheme") }
            let path = try call.location(text).path
            call.response.add("chromaprint", try fingerprint(path: path, deadline: call.deadline))
        },
    ]

    /// MPD's checks in its order: a name without a decoder's suffix is not opened; then the file must
    /// open as a regular file; then a decoder must read it.
    static func fingerprint(path: String, deadline: Deadline) throws(MPDError) -> String {
        let decodingFailed = MPDError(.unknown, "Decoding failed", command: "")
        guard AudioDecoders.hasAudioSuffix(path) else { throw decodingFailed }
        do {
            try RegularFile.check(path)
        } catch where error == .cannotOpen {
            throw MPDError(.system, "Failed to open '\(path)': \(String(cString: strerror(error.code)))", command: "")
        } catch {
            throw MPDError(.unknown, "Not a regular file: \(path)", command: "")
        }
        do {
            return try AudioFingerprint.chromaprint(path: path, deadline: deadline)
        } catch let passed as DeadlinePassed {
            throw MPDError(failure: passed)
        } catch {
            throw decodingFailed
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
