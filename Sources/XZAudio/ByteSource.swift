#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import XZSystem

/// The bytes a callback-driven C decoder (libFLAC, libvorbisfile, libopusfile, libavformat) reads: a plain
/// file through its descriptor, or a growing file whose reads wait for bytes. Used by one decoder on one
/// thread; the C libraries reach it through an unretained pointer the decoder keeps alive.
final class ByteSource {
    let name: String
    private(set) var position: Int64 = 0
    private let descriptor: Int32
    private let growing: GrowingFile?
    private let giveUp: () -> Bool
    private let fileSize: Int64

    init(_ input: AudioInput) throws {
        name = input.name
        switch input {
        case .file(let path):
            let (fd, size) = try RegularFile.audio(path)
            descriptor = fd
            fileSize = size
            growing = nil
            giveUp = { false }
        case .growing(let file, _, let stop):
            descriptor = -1
            fileSize = 0
            growing = file
            giveUp = stop
        }
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// The whole size: a file's, or a stream's once its server said it.
    var size: Int64? { growing.map { $0.size } ?? fileSize }

    /// Why a stream's bytes stopped coming, if they did.
    var failureMessage: String? { growing?.failureMessage }

    /// The error to throw once a stream's bytes stopped coming; nil while they have not.
    var failure: AudioError? { failureMessage.map { AudioError.unreadable($0, file: name) } }

    var growingFile: GrowingFile? { growing }

    /// Reads at the current position and moves past what was read; 0 at the end, -1 on failure.
    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard buffer.count > 0 else { return 0 }
        let got: Int
        if let growing {
            got = growing.read(at: position, into: buffer, giveUp: giveUp)
        } else {
            got = pread(descriptor, buffer.baseAddress, buffer.count, off_t(position))
        }
        if got > 0 { position += Int64(got) }
        return got
    }

    /// Reads until `buffer` is full or the end; the count, or -1 on failure.
    func readFully(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        var filled = 0
        while filled < buffer.count {
            let n = read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
            if n < 0 { return filled > 0 ? filled : -1 }
            if n == 0 { break }
            filled += n
        }
        return filled
    }

    /// lseek's contract: the new position, or nil when it cannot be reached (negative, or the end unknown).
    @discardableResult
    func seek(_ offset: Int64, whence: Int32) -> Int64? {
        let target: Int64
        switch whence {
        case SEEK_SET: target = offset
        case SEEK_CUR: target = position + offset
        case SEEK_END:
            guard let size else { return nil }
            target = size + offset
        default: return nil
        }
        guard target >= 0 else { return nil }
        position = target
        return target
    }

    var isAtEnd: Bool {
        guard let size else { return false }
        return position >= size
    }
}

extension RegularFile {
    /// `openForReading`, its refusal as the audio layer words it.
    static func audio(_ path: String) throws(AudioError) -> (descriptor: Int32, size: Int64) {
        do {
            return try openForReading(path)
        } catch {
            throw AudioError.unreadable(error, path: path)
        }
    }

    /// `check`, its refusal as the audio layer words it: for libraries that open files by name.
    static func checkAudio(_ path: String) throws(AudioError) {
        do {
            try check(path)
        } catch {
            throw AudioError.unreadable(error, path: path)
        }
    }
}

extension AudioError {
    static func unreadable(_ refusal: RegularFile.Refusal, path: String) -> AudioError {
        switch refusal.kind {
        case .cannotOpen:
            return .unreadable("cannot open the file: " + String(cString: strerror(refusal.code)), file: path)
        case .folder:
            return .unreadable("is a folder, not an audio file", file: path)
        case .notRegular:
            return .unreadable("is not a regular file (a FIFO, device or socket)", file: path)
        }
    }
}
