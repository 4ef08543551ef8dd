import XZAudio
import XZSystem
import XZEncoders
import XZPlaybackEngine
import XZPlaybackValues
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// MPD's `recorder` output with an encoder (vorbis, opus, lame, flac): what plays, encoded, into `path`.
///
/// As MPD's: the file is created (or truncated) when the output opens and finished when it closes (the
/// encoder's last pages, then the file closed), so it is whole after a stop or `disableoutput`; a new
/// song sends its tag (an Ogg file chains a new stream with it); a new format starts the file again.
package final class RecorderOutput: AudioOutput {
    package let name: String
    package let path: String
    package let encoderKind: EncoderKind
    package var needsPacing: Bool { true }
    package var bufferedFrames: Int { 0 }

    private struct Recording {
        let encoder: AudioEncoder
        var fd: Int32 = -1
        /// What the player writes and what the encoder takes, while open.
        var format: AudioFormat?
        var layout: AudioFormat?
        var widened: [UInt8] = []
    }

    private let recording: Mutex<Recording>

    /// Makes the encoder, which checks `settings` (a bad one is `EncoderError.badSetting` naming its key).
    package init(name: String, path: String, encoder kind: EncoderKind, settings: [String: String]) throws(EncoderError) {
        self.name = name
        self.path = path
        encoderKind = kind
        recording = Mutex(Recording(encoder: try makeEncoder(kind: kind, settings: settings)))
    }

    deinit { close() }

    package func outputFormat(for source: AudioFormat) -> AudioFormat { source.with(sample: .s16) }

    package func open(format: AudioFormat) throws {
        try recording.withLock { recording throws(PlaybackError) in
            // The next song of the same format goes on in the same file.
            if recording.format == format { return }
            Self.finish(&recording)
            // Non-blocking: a FIFO nobody reads fails here (ENXIO), one that fills fails its write (EAGAIN),
            // and the audio thread, with every other output, goes on.
            let fd = recorderOpen(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NONBLOCK, 0o644)
            guard fd >= 0 else {
                throw PlaybackError.outputFailed("recorder \"\(name)\": cannot open \(path) for writing: " + unwritableReason(errno))
            }
            recording.fd = fd
            let layout: AudioFormat
            do {
                layout = try recording.encoder.open(format: format)
            } catch {
                Self.finish(&recording)
                throw PlaybackError.outputFailed("recorder \"\(name)\": \(error)")
            }
            recording.format = format
            recording.layout = layout
            guard layout.sampleRate == format.sampleRate, layout.channels == format.channels else {
                Self.finish(&recording)
                throw PlaybackError.outputFormatRefused("recorder \"\(name)\": the \(encoderKind.rawValue) encoder cannot take \(format.mpdFormat)")
            }
            try save(recording.encoder.takeOutput(), recording.fd)
        }
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        // A copy the lock may take in (a few KiB per period), as the stream output's.
        let samples = [UInt8](pcm)
        try recording.withLock { recording throws(PlaybackError) in
            guard let layout = recording.layout else { throw PlaybackError.outputFailed("recorder \"\(name)\" is not open") }
            do {
                if layout.sample == .s16 {
                    try samples.withUnsafeBytes { [encoder = recording.encoder] in try encoder.encode($0) }
                } else {
                    widenS16(samples, to: layout.sample, into: &recording.widened)
                    try recording.widened.withUnsafeBytes { [encoder = recording.encoder] in try encoder.encode($0) }
                }
            } catch {
                throw PlaybackError.outputFailed("recorder \"\(name)\": \(error)")
            }
            try save(recording.encoder.takeOutput(), recording.fd)
        }
    }

    package func songStarted(title: String?, artist: String?, album: String?) {
        recording.withLock { recording in
            guard recording.format != nil else { return }
            // MPD goes on without the tag when the encoder refuses it.
            try? recording.encoder.sendTag(StreamTag(title: title, artist: artist, album: album))
            try? save(recording.encoder.takeOutput(), recording.fd)
        }
    }

    package func close() {
        recording.withLock { Self.finish(&$0) }
    }

    /// Ends the encoder's stream into the file and closes it.
    private static func finish(_ recording: inout Recording) {
        if recording.format != nil {
            recording.encoder.close()
            if recording.fd >= 0 { try? writeAll(recording.encoder.takeOutput(), recording.fd) }
        }
        if recording.fd >= 0 { _ = recorderClose(recording.fd) }
        recording.fd = -1
        recording.format = nil
        recording.layout = nil
    }

    private func save(_ bytes: [UInt8], _ fd: Int32) throws(PlaybackError) {
        do {
            try Self.writeAll(bytes, fd)
        } catch {
            throw PlaybackError.outputFailed("recorder \"\(name)\": cannot write to \(path): \(error)")
        }
    }

    private struct WriteFailed: Error, CustomStringConvertible {
        let description: String
    }

    private static func writeAll(_ bytes: [UInt8], _ fd: Int32) throws(WriteFailed) {
        var done = 0
        while done < bytes.count {
            let written = bytes.withUnsafeBytes { recorderWrite(fd, $0.baseAddress! + done, bytes.count - done) }
            if written < 0 {
                if errno == EINTR { continue }
                throw WriteFailed(description: unwritableReason(errno))
            }
            done += written
        }
    }
}

// File-scope wrappers: inside the output class `open`, `write` and `close` name its methods.
private func recorderOpen(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 { open(path, flags, mode) }
private func recorderWrite(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int { write(fd, bytes, count) }
@discardableResult private func recorderClose(_ fd: Int32) -> Int32 { close(fd) }

extension OutputType {
    /// Encoders of a recorder beside MPD's: `wave` is libao's WAV file (its header has the real sizes),
    /// `au` libao's Sun AU file, `null` raw PCM.
    static let recorderEncoders = (EncoderKind.allCases.map(\.rawValue) + ["null", "au"]).sorted()

    /// MPD's `recorder` output: what plays, encoded by `encoder` (MPD's default vorbis), into `path`.
    package static let recorder = OutputType("recorder", keys: [Key("path", .path(orNone: false)), Key("encoder", .choice(recorderEncoders))]
                                             + EncoderKind.allSettingNames.map { Key($0, .text(allowsEmpty: false)) }) { block in
        let path = try block.required("path")
        switch block.text("encoder") ?? EncoderKind.vorbis.rawValue {
        case "wave": return LibaoOutput(.file(driver: "wav", path: path), realtime: block.realtime)
        case "au": return LibaoOutput(.file(driver: "au", path: path), realtime: block.realtime)
        case "null": return RawFileOutput(path: path, realtime: block.realtime)
        case let text:
            let kind = EncoderKind(rawValue: text)!  // the key's domain
            let settings = block.settings(of: kind.settingNames)
            do {
                return try RecorderOutput(name: try block.required("name"), path: path, encoder: kind, settings: settings)
            } catch let error as EncoderError {
                // A refused setting names its own line.
                let key = error.setting.flatMap { settings[$0] == nil ? nil : $0 }
                throw block.error(key ?? "encoder", "\(kind.rawValue) encoder: \(error)")
            }
        }
    }
}
