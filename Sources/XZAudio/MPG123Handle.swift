import CMPG123
import XZSystem
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Owns one libmpg123 handle with an open file; shared by the probe and the decoder.
final class MPG123Handle {
    let pointer: OpaquePointer
    let path: String

    /// mpg123_init is a no-op in recent libmpg123 but older ones need it once, before any handle.
    /// A static let is initialised exactly once, thread-safely.
    private static let initResult: Int32 = mpg123_init()

    /// Opens `path` with S16 output allowed at every rate and channel count, gapless on, quiet.
    init(path: String) throws {
        self.path = path
        pointer = try Self.makeHandle(path: path)
        // From here on deinit releases the handle when we throw.
        try configure()
        // libmpg123's own reader makes two read() calls per frame; a stdio buffer makes one per 64 KiB.
        let (fd, _) = try RegularFile.audio(path)
        guard let file = fdopen(fd, "rb") else {
            close(fd)
            throw AudioError.unreadable("cannot open the file: " + String(cString: strerror(errno)), file: path)
        }
        self.file = file
        setvbuf(file, nil, _IOFBF, 1 << 16)
        try check(mpg123_replace_reader_handle(pointer, { handle, buffer, count in
            let file = OpaquePointer(handle).map { UnsafeMutablePointer<FILE>($0) }
            guard let file, let buffer else { return -1 }
            let got = fread(buffer, 1, count, file)
            return got == 0 && ferror(file) != 0 ? -1 : got
        }, { handle, offset, whence in
            guard let file = OpaquePointer(handle).map({ UnsafeMutablePointer<FILE>($0) }),
                  fseeko(file, offset, whence) == 0 else { return -1 }
            return ftello(file)
        }, nil))
        let openCode = mpg123_open_handle(pointer, UnsafeMutableRawPointer(file))
        if openCode != MPG123_OK.rawValue {
            throw AudioError.unreadable(message(openCode), file: path)
        }
    }

    /// Opens a file that may still be arriving; `name` (its URL) stands for it in messages. libmpg123 is told
    /// not to peek at the end (that would wait for the whole download) yet to treat the stream as seekable.
    init(source: GrowingFile, name: String, giveUp: @escaping () -> Bool) throws {
        path = name
        pointer = try Self.makeHandle(path: name)
        try configure()
        let flags = Int(MPG123_NO_PEEK_END.rawValue | MPG123_FORCE_SEEKABLE.rawValue)
        try check(mpg123_param2(pointer, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0))
        let reader = SourceReader(source: source, giveUp: giveUp)
        self.reader = reader
        try check(mpg123_replace_reader_handle(pointer, { handle, buffer, count in
            guard let handle, let buffer else { return -1 }
            let reader = Unmanaged<SourceReader>.fromOpaque(handle).takeUnretainedValue()
            let got = reader.source.read(at: reader.position, into: UnsafeMutableRawBufferPointer(start: buffer, count: count),
                                         giveUp: reader.giveUp)
            if got > 0 { reader.position += Int64(got) }
            return got
        }, { handle, offset, whence in
            guard let handle else { return -1 }
            let reader = Unmanaged<SourceReader>.fromOpaque(handle).takeUnretainedValue()
            switch whence {
            case SEEK_SET: reader.position = Int64(offset)
            case SEEK_CUR: reader.position += Int64(offset)
            default:
                guard let size = reader.source.size else { return -1 }
                reader.position = size + Int64(offset)
            }
            return off_t(reader.position)
        }, nil))
        try openSource()
    }

    /// Opens the source from its start again on this handle (settings kept).
    func openSource() throws {
        guard let reader else { return }
        reader.position = 0
        let openCode = mpg123_open_handle(pointer, Unmanaged.passUnretained(reader).toOpaque())
        if openCode != MPG123_OK.rawValue {
            throw sourceFailure ?? AudioError.unreadable(message(openCode), file: path)
        }
    }

    /// Where libmpg123 reads next in a growing source, nil for a plain file.
    var sourceOffset: Int64? { reader?.position }
    var source: GrowingFile? { reader?.source }

    /// The error to throw once a stream's bytes stopped coming; nil while they have not.
    var sourceFailure: AudioError? {
        reader?.source.failureMessage.map { AudioError.unreadable($0, file: path) }
    }

    /// The growing file and libmpg123's place in it.
    final class SourceReader {
        let source: GrowingFile
        let giveUp: () -> Bool
        var position: Int64 = 0

        init(source: GrowingFile, giveUp: @escaping () -> Bool) {
            self.source = source
            self.giveUp = giveUp
        }
    }

    private var reader: SourceReader?

    private static func makeHandle(path: String) throws -> OpaquePointer {
        let initCode = MPG123Handle.initResult
        guard initCode == MPG123_OK.rawValue else {
            throw AudioError.libraryFailed("cannot initialise libmpg123: " + MPG123Handle.plainMessage(initCode), file: path)
        }
        var err: Int32 = 0
        guard let mh = mpg123_new(nil, &err) else {
            throw AudioError.libraryFailed("cannot create decoder: " + MPG123Handle.plainMessage(err), file: path)
        }
        return mh
    }

    private func configure() throws {
        let mh = pointer
        let flags = Int(MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue)
        try check(mpg123_param2(mh, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0))
        // Fuzzy seeking would make seek(toSample:) approximate.
        try check(mpg123_param2(mh, Int32(MPG123_REMOVE_FLAGS.rawValue), Int(MPG123_FUZZY.rawValue), 0))
        try check(mpg123_format_none(mh))
        try allowS16AtAllRates()
    }

    /// The stdio stream libmpg123 reads through; closed after the handle that uses it.
    private var file: UnsafeMutablePointer<FILE>?

    deinit {
        mpg123_close(pointer)
        mpg123_delete(pointer)
        if let file { fclose(file) }
    }

    private func allowS16AtAllRates() throws {
        var list: UnsafePointer<Int>?
        var count = 0
        mpg123_rates(&list, &count)
        guard let rates = list else { return }
        let channels = Int32(MPG123_MONO.rawValue | MPG123_STEREO.rawValue)
        for i in 0..<count {
            try check(mpg123_format(pointer, rates[i], channels, Int32(MPG123_ENC_SIGNED_16.rawValue)))
        }
    }

    /// Throws libmpg123's own message for the handle when `code` is an error.
    func check(_ code: Int32) throws {
        if code != MPG123_OK.rawValue { throw error(code) }
    }

    func error(_ code: Int32) -> AudioError {
        sourceFailure ?? AudioError.damaged(message(code), file: path)
    }

    /// The handle's message when it has one, else the plain text for `code`.
    func message(_ code: Int32) -> String {
        // A stream whose bytes stopped coming: the download's reason says more than libmpg123's read error.
        if let failure = reader?.source.failureMessage { return failure }
        if code == MPG123_ERR.rawValue, let text = mpg123_strerror(pointer) {
            return String(cString: text)
        }
        return MPG123Handle.plainMessage(code)
    }

    static func plainMessage(_ code: Int32) -> String {
        guard let text = mpg123_plain_strerror(code) else { return "libmpg123 error \(code)" }
        return String(cString: text)
    }

    /// Output format of the stream (reads the first frame on the first call).
    /// Throws when libmpg123 finds no MPEG audio frame at all.
    func streamFormat() throws -> AudioFormat {
        var rate = 0
        var channels: Int32 = 0
        var encoding: Int32 = 0
        let code = mpg123_getformat(pointer, &rate, &channels, &encoding)
        guard code == MPG123_OK.rawValue, rate > 0, channels > 0 else {
            if let failure = sourceFailure { throw failure }
            // libmpg123 reads a whole ID3v2 tag before parsing it, so a tag cut short hides everything.
            if let tagEnd = id3v2End(), let file = ReadOnlyFile(path: path), tagEnd > file.size {
                let cleanEnd = code == MPG123_OK.rawValue || code == MPG123_DONE.rawValue || code == MPG123_NEED_MORE.rawValue
                let detail = cleanEnd ? "" : " (libmpg123: \(message(code)))"
                throw AudioError.damaged("ID3v2 tag claims \(tagEnd) bytes but the file has only \(file.size); it is cut short and holds no audio" + detail, file: path)
            }
            // A clean end before any frame has no libmpg123 message of its own.
            if code == MPG123_OK.rawValue || code == MPG123_DONE.rawValue || code == MPG123_NEED_MORE.rawValue {
                throw AudioError.unsupportedFormat("no MPEG audio frames found", file: path)
            }
            throw error(code)
        }
        return AudioFormat(sampleRate: rate, channels: Int(channels))
    }

    /// Where an ID3v2 tag at the start of the file says it ends (header, body, footer).
    private func id3v2End() -> Int? {
        guard let file = ReadOnlyFile(path: path) else { return nil }
        let h = file.read(at: 0, count: 10)
        guard h.count == 10, h[0] == 0x49, h[1] == 0x44, h[2] == 0x33,
              h[6] | h[7] | h[8] | h[9] < 0x80 else { return nil }
        let size = h[6...9].reduce(0) { $0 << 7 | Int($1) }  // synchsafe
        return 10 + size + (h[5] & 0x10 != 0 ? 10 : 0)
    }

    /// Fixes the output to `format` so libmpg123 converts a stream that changes mid-way
    /// instead of handing us a different rate or channel count.
    func fixOutput(to format: AudioFormat) throws {
        try check(mpg123_format_none(pointer))
        let channels = format.channels == 1 ? MPG123_MONO.rawValue : MPG123_STEREO.rawValue
        try check(mpg123_format(pointer, format.sampleRate, Int32(channels), Int32(MPG123_ENC_SIGNED_16.rawValue)))
    }

    func resyncWithoutLimit() throws {
        try check(mpg123_param2(pointer, Int32(MPG123_RESYNC_LIMIT.rawValue), -1, 0))
    }

    func frameInfo() -> mpg123_frameinfo2? {
        var info = mpg123_frameinfo2()
        return mpg123_info2(pointer, &info) == MPG123_OK.rawValue ? info : nil
    }

    /// A Xing/Info header (libmpg123 then reports its VBR mode) or a LAME tag (encoder delay known):
    /// mpg123_length is then the header's frame count, gapless-trimmed, instead of a size guess.
    var hasVBRHeader: Bool {
        guard let info = frameInfo() else { return false }
        return info.vbr != Int32(MPG123_CBR.rawValue) || (state(MPG123_ENC_DELAY) ?? -1) >= 0
    }

    func state(_ key: mpg123_state) -> Int? {
        var value = 0
        var fvalue = 0.0
        guard mpg123_getstate2(pointer, Int32(key.rawValue), &value, &fvalue) == MPG123_OK.rawValue else { return nil }
        return value
    }
}
