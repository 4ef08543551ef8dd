import CAO
import Foundation
import XZSystem
import XZAudio
import XZPlaybackValues
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
    /// What libao opens.
    package enum Device: Sendable, CustomStringConvertible {
        /// libao's default live driver; falls back to null (with one notice) when it cannot open.
        case systemDefault
        /// Discards audio, paced to real time by the player.
        case null
        /// A live driver by name (`ao`, `alsa`, `pulse` blocks) with libao's options for it; one that cannot
        /// open fails rather than falling back, as one of several outputs should.
        case driver(String, options: [(key: String, value: String)])
        /// A RIFF WAVE (`wav`) or Sun AU (`au`) file through libao's file driver.
        case file(driver: String, path: String)

        package var description: String {
            switch self {
            case .systemDefault: return "default"
            case .null: return "null"
            case .driver(let name, _): return name
            case .file(let driver, let path): return driver + ":" + path
            }
        }
    }

    package let device: Device
    private let realtime: Bool
    private var handle: OpaquePointer?
    private var format: AudioFormat?
    /// Set once the default driver failed; later opens go straight to null without a second notice.
    private var usingNullFallback = false
    private var notices: [String] = []

    /// `realtime` paces a file to real time as a sound card would.
    package init(_ device: Device, realtime: Bool = false) {
        self.device = device
        self.realtime = realtime
    }

    deinit { close() }

    package var needsPacing: Bool {
        switch device {
        case .systemDefault: return usingNullFallback
        case .null: return true
        case .driver(let name, _): return name == "null"
        case .file: return realtime
        }
    }

    package var isLive: Bool {
        switch device {
        case .systemDefault: return !usingNullFallback
        case .driver(let name, _): return name != "null"
        case .null, .file: return false
        }
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
        guard !discards else { return }
        _ = LibaoOutput.initialized
    }

    /// The null device discards audio without libao: a host on the null output never loads libao's
    /// plug-ins (PulseAudio, ALSA, NAS, sndio) and the X11, D-Bus and codec libraries they bring in.
    private var discards: Bool {
        if case .null = device { return true }
        return false
    }

    package func open(format newFormat: AudioFormat) throws {
        if handle != nil {
            if format == newFormat { return }
            if case .file(_, let path) = device { throw mismatch(path, newFormat) }
            close()
        }
        if discards {
            format = newFormat
            return
        }
        guard LibaoOutput.initialized else { throw PlaybackError.outputFailed("libao could not be initialised") }
        var sample = ao_sample_format(bits: Int32(newFormat.sample.bytes * 8), rate: Int32(newFormat.sampleRate), channels: Int32(newFormat.channels),
                                      byte_format: Int32(AO_FMT_NATIVE), matrix: nil)
        switch device {
        case .systemDefault:
            handle = usingNullFallback ? nil : openDefault(&sample)
            if handle == nil { handle = try openNull(&sample) }
        case .null:
            handle = try openNull(&sample)
        case .driver(let name, let options):
            handle = try openDriver(name, options, &sample)
        case .file(let driver, let path):
            handle = try openFile(driver, path, &sample)
        }
        format = newFormat
    }

    package func write(_ pcm: UnsafeRawBufferPointer) throws {
        if discards, format != nil { return }
        guard let handle else { throw PlaybackError.outputFailed("output \(device) is not open") }
        guard let base = pcm.baseAddress, pcm.count > 0 else { return }
        // ao_play takes char* but does not write through it.
        let bytes = UnsafeMutableRawPointer(mutating: base).assumingMemoryBound(to: CChar.self)
        if ao_play(handle, bytes, UInt32(pcm.count)) == 0 {
            throw PlaybackError.outputFailed("output \(device) stopped accepting audio")
        }
    }

    package func close() {
        if let handle { ao_close(handle) }
        handle = nil
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
        // libao opens the file blocking and seeks back to write its sizes at the end: a FIFO would hold the
        // audio thread until someone reads it, and a socket cannot be opened at all.
        var info = stat()
        if stat(path, &info) == 0, [S_IFIFO, S_IFSOCK].contains(info.st_mode & S_IFMT) {
            throw PlaybackError.outputFailed("cannot write a \(driver) file into \(path): it is a FIFO or socket (the fifo output, or the recorder's encoder \"null\", writes a FIFO)")
        }
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

extension OutputType {
    /// MPD's `null` output: nothing heard, paced to real time.
    package static let null = OutputType("null") { _ in LibaoOutput(.null) }

    /// MPD's `ao` output: libao's `driver` (its default when unset) with MPD's `options "key=value;…"`. The one
    /// output chosen for a run (`--output default`) falls back to the null output when no sound card opens.
    package static let ao = OutputType("ao", keys: [Key("driver", .text(allowsEmpty: false)), Key("options", .text(allowsEmpty: true))]) { block in
        if block.chosenForRun, block.text("driver") == nil { return LibaoOutput(.systemDefault) }
        var options: [(key: String, value: String)] = []
        for pair in (block.text("options") ?? "").split(separator: ";", omittingEmptySubsequences: true) {
            guard let equals = pair.firstIndex(of: "="), equals != pair.startIndex else {
                throw block.error("options", "options are key=value;key=value, not \"\(pair.prefix(40))\"")
            }
            options.append((key: pair[..<equals].trimmingCharacters(in: .whitespaces),
                            value: pair[pair.index(after: equals)...].trimmingCharacters(in: .whitespaces)))
        }
        return LibaoOutput(.driver(block.text("driver") ?? "default", options: options))
    }

    /// MPD's `alsa` output through libao's driver, its `device` libao's `dev`.
    package static let alsa = OutputType("alsa", keys: [Key("device", .text(allowsEmpty: false))]) { block in
        LibaoOutput(.driver("alsa", options: block.text("device").map { [(key: "dev", value: $0)] } ?? []))
    }

    /// MPD's `pulse` output through libao's driver, with its `server` and `sink`.
    package static let pulse = OutputType("pulse", keys: [Key("server", .text(allowsEmpty: false)), Key("sink", .text(allowsEmpty: false))]) { block in
        LibaoOutput(.driver("pulse", options: [("server", block.text("server")), ("sink", block.text("sink"))]
            .compactMap { key, value in value.map { (key: key, value: $0) } }))
    }
}

extension NamedOutput {
    /// The null output as `outputs` names it when no other is chosen (tests, hosts without a sound card).
    package static var null: NamedOutput { NamedOutput(name: "Null Output", plugin: "null", output: LibaoOutput(.null)) }
}
