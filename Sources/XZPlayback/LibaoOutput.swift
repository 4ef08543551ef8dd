import CAO
import Foundation
import XZSystem
import XZAudio
import XZPlaybackTerms
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Output through libao: the default live driver, the null driver, or the wav/au file drivers.
///
/// Formats: a live or null device is reopened on a format change. A wav/au file has one format in its
/// header, and reopening would truncate it, so a track in another format is refused (the player reports
/// it as an error and goes on). The file is finished (header sizes written) by `close()`, which the
/// player calls when playback stops; playing again afterwards starts the file over.
// Sendable by hand: the libao device is used from one thread only, the player's audio thread once given to it.
package final class LibaoOutput: AudioOutput, @unchecked Sendable {
    package let spec: OutputSpec
    /// A live driver by name (`ao`, `alsa`, `pulse` blocks) with libao's options for it; nil for `spec`.
    package let driver: (name: String, options: [(key: String, value: String)])?
    private let realtime: Bool
    private var device: OpaquePointer?
    private var format: AudioFormat?
    /// Set once the default driver failed; later opens go straight to null without a second notice.
    private var usingNullFallback = false
    private var notices: [String] = []

    package init(spec: OutputSpec, realtime: Bool = false) {
        self.spec = spec
        self.realtime = realtime
        driver = nil
    }

    /// libao's live driver `name` (`pulse`, `alsa`, `null`, …) with its options (`dev`, `server`, …); an
    /// output that cannot open fails rather than falling back, as one of several outputs should.
    package init(driver name: String, options: [(key: String, value: String)] = []) {
        spec = .systemDefault
        realtime = false
        driver = (name, options)
    }

    deinit { close() }

    package var needsPacing: Bool {
        if let driver { return driver.name == "null" }
        switch spec {
        case .systemDefault: return usingNullFallback
        case .null: return true
        case .wav, .au, .raw: return realtime
        }
    }

    package var isLive: Bool {
        if let driver { return driver.name != "null" }
        if case .systemDefault = spec { return !usingNullFallback }
        return false
    }

    /// libao does not report device latency; live drivers block in ao_play instead.
    package var bufferedFrames: Int { 0 }

    /// True when `default` could not open a live device and audio goes to the null driver.
    package var isFallbackToNull: Bool { usingNullFallback }

    package func takeNotices() -> [String] {
        defer { notices = [] }
        return notices
    }

    package func prepare() {
        _ = LibaoOutput.initialized
    }

    package func open(format newFormat: AudioFormat) throws {
        if device != nil {
            if format == newFormat { return }
            if case .wav(let path) = spec { throw mismatch(path, newFormat) }
            if case .au(let path) = spec { throw mismatch(path, newFormat) }
            close()
        }
        guard LibaoOutput.initialized else { throw PlaybackError.outputFailed("libao could not be initialised") }
        var sample = ao_sample_format(bits: Int32(newFormat.sample.bytes * 8), rate: Int32(newFormat.sampleRate), channels: Int32(newFormat.channels),
                                      byte_format: Int32(AO_FMT_NATIVE), matrix: nil)
        if let driver {
            device = try openDriver(driver.name, driver.options, &sample)
            format = newFormat
            return
        }
        switch spec {
        case .systemDefault:
            device = usingNullFallback ? nil : openDefault(&sample)
            if device == nil { device = try openNull(&sample) }
        case .null:
            device = try openNull(&sample)
        case .wav(let path):
            device = try openFile("wav", path, &sample)
        case .au(let path):
            device = try openFile("au", path, &sample)
        case .raw(let path):
            device = try openFile("raw", path, &sample)
        }
        format = newFormat
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        guard let device else { throw PlaybackError.outputFailed("output \(spec) is not open") }
        guard let base = pcm.baseAddress, pcm.count > 0 else { return }
        // ao_play takes char* but does not write through it.
        let bytes = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self)
        if ao_play(device, bytes, UInt32(pcm.count)) == 0 {
            throw PlaybackError.outputFailed("output \(spec) stopped accepting audio")
        }
    }

    package func close() {
        if let device { ao_close(device) }
        device = nil
        format = nil
    }

    // MARK: Opening

    /// ao_initialize once per process; a static let runs its initialiser exactly once, thread-safely.
    private static let initialized: Bool = {
        StderrSilencer.run { ao_initialize() }
        return true
    }()

    /// The configured/default live driver, or nil (with a notice) when there is none or it cannot open.
    /// alsa-lib prints its complaints straight to fd 2, so fd 2 is silenced around the calls.
    private func openDefault(_ sample: inout ao_sample_format) -> OpaquePointer? {
        var failure = ""
        let opened: OpaquePointer? = StderrSilencer.run {
            let id = ao_default_driver_id()
            guard id >= 0 else {
                failure = "libao found no usable sound driver"
                return nil
            }
            if let device = ao_open_live(id, &sample, nil) { return device }
            failure = "libao driver \"\(Self.driverName(id))\": \(Self.errorText(errno))"
            return nil
        }
        if opened == nil {
            usingNullFallback = true
            notices.append("No sound device could be opened (\(failure)); playing to the null output instead.")
        }
        return opened
    }

    private func openDriver(_ name: String, _ options: [(key: String, value: String)],
                            _ sample: inout ao_sample_format) throws -> OpaquePointer {
        // MPD's `driver "default"`: libao's choice of live driver.
        let id = name == "default" ? ao_default_driver_id() : ao_driver_id(name)
        guard id >= 0 else { throw PlaybackError.outputFailed("libao has no \"\(name)\" driver") }
        var list: UnsafeMutablePointer<ao_option>?
        defer { ao_free_options(list) }
        for option in options where ao_append_option(&list, option.key, option.value) == 0 {
            throw PlaybackError.outputFailed("libao cannot take the option \(option.key)")
        }
        var failure: Int32 = 0
        let opened: OpaquePointer? = StderrSilencer.run {
            let device = ao_open_live(id, &sample, list)
            failure = errno
            return device
        }
        guard let opened else {
            throw PlaybackError.outputFailed("libao driver \"\(name)\": \(Self.errorText(failure))")
        }
        return opened
    }

    private func openNull(_ sample: inout ao_sample_format) throws -> OpaquePointer {
        let id = ao_driver_id("null")
        guard id >= 0 else { throw PlaybackError.outputFailed("libao has no null driver") }
        guard let device = ao_open_live(id, &sample, nil) else {
            throw PlaybackError.outputFailed("cannot open libao's null driver: " + Self.errorText(errno))
        }
        return device
    }

    private func openFile(_ driver: String, _ path: String, _ sample: inout ao_sample_format) throws -> OpaquePointer {
        let id = ao_driver_id(driver)
        guard id >= 0 else { throw PlaybackError.outputFailed("libao has no \(driver) driver") }
        guard let device = ao_open_file(id, path, 1, &sample, nil) else {
            throw PlaybackError.outputFailed("cannot open \(path) for writing (\(Self.errorText(errno)))")
        }
        return device
    }

    private func mismatch(_ path: String, _ wanted: AudioFormat) -> PlaybackError {
        let have = format.map(Self.describe) ?? "another format"
        return PlaybackError.outputFormatRefused("\(path) is being written as \(have); a \(Self.describe(wanted)) track cannot go into the same file")
    }

    static func describe(_ format: AudioFormat) -> String {
        let layout = format.channels == 1 ? "mono" : format.channels == 2 ? "stereo" : "\(format.channels) channels"
        return "\(format.sampleRate) Hz \(layout)" + (format.sample == .s16 ? "" : " \(format.sample.bytes * 8)-bit")
    }

    private static func driverName(_ id: Int32) -> String {
        guard let info = ao_driver_info(id), let name = info.pointee.short_name else { return "#\(id)" }
        return String(cString: name)
    }

    /// libao leaves one of its AO_E* codes in errno.
    private static func errorText(_ code: Int32) -> String {
        switch code {
        case AO_ENODRIVER: return "no such driver"
        case AO_ENOTFILE: return "not a file driver"
        case AO_ENOTLIVE: return "not a live driver"
        case AO_EBADOPTION: return "bad option"
        case AO_EOPENDEVICE: return "cannot open the device"
        case AO_EOPENFILE: return "cannot open the file"
        case AO_EFILEEXISTS: return "file exists"
        case AO_EBADFORMAT: return "sample format not supported"
        default: return "libao error \(code)"
        }
    }
}
