import CMPG123
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

    /// Opens `path` with S16 output allowed at every rate and channel count, gapless on, quiet;
    /// `pictures` keeps ID3v2 APIC frames (off by default: cover art can be megabytes).
    init(path: String, pictures: Bool = false) throws {
        self.path = path
        let initCode = MPG123Handle.initResult
        guard initCode == MPG123_OK.rawValue else {
            throw AudioError(file: path, message: "cannot initialise libmpg123: " + MPG123Handle.plainMessage(initCode))
        }
        var err: Int32 = 0
        guard let mh = mpg123_new(nil, &err) else {
            throw AudioError(file: path, message: "cannot create decoder: " + MPG123Handle.plainMessage(err))
        }
        pointer = mh
        // From here on deinit releases the handle when we throw.

        let flags = Int(MPG123_QUIET.rawValue | MPG123_GAPLESS.rawValue | (pictures ? MPG123_PICTURE.rawValue : 0))
        try check(mpg123_param2(mh, Int32(MPG123_ADD_FLAGS.rawValue), flags, 0))
        // Fuzzy seeking would make seek(toSample:) approximate.
        try check(mpg123_param2(mh, Int32(MPG123_REMOVE_FLAGS.rawValue), Int(MPG123_FUZZY.rawValue), 0))
        try check(mpg123_format_none(mh))
        try allowS16AtAllRates()
        // libmpg123's own reader makes two read() calls per frame; a stdio buffer makes one per 64 KiB.
        guard let file = fopen(path, "rb") else {
            throw AudioError(file: path, message: "cannot open the file: " + String(cString: strerror(errno)))
        }
        self.file = file
        var info = stat()
        if fstat(fileno(file), &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw AudioError(file: path, message: "is a folder, not an audio file")
        }
        setvbuf(file, nil, _IOFBF, 1 << 16)
        try check(mpg123_replace_reader_handle(mh, { handle, buffer, count in
            let file = OpaquePointer(handle).map { UnsafeMutablePointer<FILE>($0) }
            guard let file, let buffer else { return -1 }
            let got = fread(buffer, 1, count, file)
            return got == 0 && ferror(file) != 0 ? -1 : got
        }, { handle, offset, whence in
            guard let file = OpaquePointer(handle).map({ UnsafeMutablePointer<FILE>($0) }),
                  fseeko(file, offset, whence) == 0 else { return -1 }
            return ftello(file)
        }, nil))
        let openCode = mpg123_open_handle(mh, UnsafeMutableRawPointer(file))
        if openCode != MPG123_OK.rawValue {
            throw AudioError(file: path, message: message(openCode))
        }
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
        AudioError(file: path, message: message(code))
    }

    /// The handle's message when it has one, else the plain text for `code`.
    func message(_ code: Int32) -> String {
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
            // libmpg123 reads a whole ID3v2 tag before parsing it, so a tag cut short hides everything.
            if let tagEnd = id3v2End(), let file = ReadOnlyFile(path: path), tagEnd > file.size {
                let cleanEnd = code == MPG123_OK.rawValue || code == MPG123_DONE.rawValue || code == MPG123_NEED_MORE.rawValue
                let detail = cleanEnd ? "" : " (libmpg123: \(message(code)))"
                throw AudioError(file: path, message: "ID3v2 tag claims \(tagEnd) bytes but the file has only \(file.size); it is cut short and holds no audio" + detail)
            }
            // A clean end before any frame has no libmpg123 message of its own.
            if code == MPG123_OK.rawValue || code == MPG123_DONE.rawValue || code == MPG123_NEED_MORE.rawValue {
                throw AudioError(file: path, message: "no MPEG audio frames found")
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
