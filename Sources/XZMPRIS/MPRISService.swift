import CSystemdBus
import Foundation
import XZHostCore
import XZPlaybackEngine
import XZPlaybackValues
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// A host on the session bus as an MPRIS media player (`org.mpris.MediaPlayer2` and its `.Player`), so
/// media keys, desktop widgets, KDE Connect and playerctl drive it. The bus is served by a thread of its
/// own: sd-bus's calls block, and the host's changes wake it through an eventfd.
///
/// `@unchecked Sendable` for its C handles: the sd-bus connection, its slots, vtables and their strings
/// are touched only by `start` before the bus thread begins, by that thread, and by `stop` after it has
/// ended. Everything else is immutable or behind a lock.
package final class MPRISService: @unchecked Sendable {
    /// The name it holds: `org.mpris.MediaPlayer2.xzmusic`, or with `.instance<pid>` when another host has
    /// that; nil until the bus has answered (or when it refused both).
    package var busName: String? { naming.withLock { $0.held } }
    private struct Naming {
        var asked = MPRISService.baseName
        var held: String?
    }
    private let naming = Mutex(Naming())
    /// Signalled once the bus answered for the name (or the bus thread ended).
    private let named = DispatchSemaphore(value: 0)
    let host: PlayerHost
    private let bus: OpaquePointer
    private var slots: [OpaquePointer?] = []
    private var vtables: [UnsafeMutablePointer<sd_bus_vtable>] = []
    private var strings: [UnsafeMutablePointer<UInt8>] = []
    private let covers: CoverCache
    private let report: @Sendable (String) -> Void

    private struct Waiting {
        /// Written to wake the bus thread; -1 once closed.
        var wake: Int32
        var stopping = false
        /// Where the player seeked to, for the `Seeked` signal.
        var seekedMs: Int?
    }
    private let waiting: Mutex<Waiting>
    private let finished = DispatchSemaphore(value: 0)
    private let changeToken = Mutex(0)

    /// The bus thread's own: the current entry's metadata and what was last told.
    private struct Told {
        var entry: QueueEntry?
        var metadata = TrackMetadata.none
        var view: PlayerView?
    }
    private let told = Mutex(Told())

    static let objectPath = "/org/mpris/MediaPlayer2"
    static let rootInterface = "org.mpris.MediaPlayer2"
    static let playerInterface = "org.mpris.MediaPlayer2.Player"
    static let baseName = "org.mpris.MediaPlayer2.xzmusic"
    /// How long the host's start waits for the bus to answer for the name; a bus that does not answer
    /// (its daemon stuck) then holds up nothing: the name comes when it answers.
    static let namePatience: DispatchTimeInterval = .seconds(2)

    private init(bus: OpaquePointer, wake: Int32, host: PlayerHost, covers: CoverCache,
                 report: @escaping @Sendable (String) -> Void) {
        self.bus = bus
        self.host = host
        self.covers = covers
        self.report = report
        waiting = Mutex(Waiting(wake: wake))
    }

    /// Joins the session bus (or `settings.busAddress`), registers the objects, takes the name and starts
    /// the bus thread. `report` hears one line when the bus goes away later.
    package static func start(host: PlayerHost, settings: MPRISSettings,
                             report: @escaping @Sendable (String) -> Void = { _ in }) throws(MPRISError) -> MPRISService {
        var opened: OpaquePointer?
        var r: Int32
        if let address = settings.busAddress {
            r = sd_bus_new(&opened)
            if r >= 0 { r = address.withCString { sd_bus_set_address(opened, $0) } }
            if r >= 0 { r = sd_bus_set_bus_client(opened, 1) }
            if r >= 0 { r = sd_bus_start(opened) }
        } else {
            // No bus to join costs no libsystemd: the library is loaded only for a bus that is there.
            let environment = ProcessEnvironment.variables("DBUS_SESSION_BUS_ADDRESS", "XDG_RUNTIME_DIR")
            if environment["DBUS_SESSION_BUS_ADDRESS", default: ""].isEmpty,
               let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty, access(runtime + "/bus", F_OK) != 0 {
                throw .noSessionBus(because: "no bus at \(runtime)/bus")
            }
            r = sd_bus_open_user(&opened)
        }
        guard r >= 0, let bus = opened else {
            sd_bus_unref(opened)
            // sd-bus's ENOMEDIUM: no address in the environment to look for one at.
            throw .noSessionBus(because: r == -ENOMEDIUM ? "neither DBUS_SESSION_BUS_ADDRESS nor XDG_RUNTIME_DIR is set" : errorText(r))
        }
        let wake = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wake >= 0 else {
            sd_bus_flush_close_unref(bus)
            throw .cannotRegister(because: String(cString: strerror(errno)))
        }
        // The name is taken last, so no client finds it before its objects are there.
        let service = MPRISService(bus: bus, wake: wake, host: host,
                                   covers: CoverCache(folder: settings.coverFolder), report: report)
        do throws(MPRISError) {
            try service.register()
            try service.askForName(baseName)
        } catch {
            service.close()
            throw error
        }
        service.serve()
        _ = service.named.wait(timeout: .now() + namePatience)
        return service
    }

    private func register() throws(MPRISError) {
        let me = Unmanaged.passUnretained(self).toOpaque()
        for (interface, table) in [(Self.rootInterface, rootVtable()), (Self.playerInterface, playerVtable())] {
            let stored = UnsafeMutablePointer<sd_bus_vtable>.allocate(capacity: table.count)
            stored.initialize(from: table, count: table.count)
            vtables.append(stored)
            var slot: OpaquePointer?
            let r = sd_bus_add_object_vtable(bus, &slot, Self.objectPath, interface, stored, me)
            guard r >= 0 else { throw .cannotRegister(because: "\(interface): \(Self.errorText(r))") }
            slots.append(slot)
        }
    }

    /// Asks for `wanted` without waiting: `nameAnswered` hears the bus's answer on the bus thread.
    private func askForName(_ wanted: String) throws(MPRISError) {
        naming.withLock { $0.asked = wanted }
        let r = sd_bus_request_name_async(bus, nil, wanted, 0, requestNameAnswered, Unmanaged.passUnretained(self).toOpaque())
        guard r >= 0 else { throw .cannotRegister(because: "\(wanted): \(Self.errorText(r))") }
    }

    /// The bus's answer to RequestName: held, or taken by another host (then the spec's instance name is
    /// asked for), or refused (one line).
    func nameAnswered(_ reply: OpaquePointer) {
        let asked = naming.withLock { $0.asked }
        if sd_bus_message_is_method_error(reply, nil) != 0 {
            let message = sd_bus_message_get_error(reply)?.pointee.message.map { String(cString: $0) } ?? "refused"
            report(MPRISError.cannotRegister(because: "\(asked): \(message)").description)
            named.signal()
            return
        }
        var code: UInt32 = 0
        _ = sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "u")), &code)
        // D-Bus's RequestName answers: 1 primary owner, 3 exists, 4 already owner.
        switch code {
        case 1, 4:
            naming.withLock { $0.held = asked }
            named.signal()
        case 3 where asked == Self.baseName:
            do throws(MPRISError) {
                try askForName(Self.baseName + ".instance\(getpid())")
            } catch {
                report(error.description)
                named.signal()
            }
        default:
            report(MPRISError.cannotRegister(because: "\(asked) is taken").description)
            named.signal()
        }
    }

    private func serve() {
        // Changes are told on the thread that made them, which must not block: they only wake the bus.
        let token = host.observeChanges { [weak self] _ in self?.wakeUp() }
        changeToken.withLock { $0 = token }
        host.observe { [weak self] event in
            guard let self, case .seeked(let ms) = event else { return }
            waiting.withLock { $0.seekedMs = ms }
            wakeUp()
        }
        let thread = Thread { [self] in run() }
        thread.name = "xzmusic MPRIS"
        thread.start()
    }

    private func wakeUp() {
        waiting.withLock { waiting in
            guard waiting.wake >= 0 else { return }
            var one: UInt64 = 1
            _ = write(waiting.wake, &one, 8)
        }
    }

    /// Stops serving and leaves the bus (the name is released with the connection).
    package func stop() {
        let running = waiting.withLock { waiting -> Bool in
            defer { waiting.stopping = true }
            return !waiting.stopping
        }
        guard running else { return }
        host.stopObserving(changeToken.withLock { $0 })
        wakeUp()
        finished.wait()
        close()
    }

    private func close() {
        for slot in slots { sd_bus_slot_unref(slot) }
        slots = []
        sd_bus_flush_close_unref(bus)
        vtables.forEach { $0.deallocate() }
        vtables = []
        strings.forEach { $0.deallocate() }
        strings = []
        waiting.withLock { waiting in
            if waiting.wake >= 0 { Glibc.close(waiting.wake) }
            waiting.wake = -1
        }
    }

    // MARK: The bus thread

    private func run() {
        defer {
            named.signal()
            finished.signal()
        }
        let wake = waiting.withLock { $0.wake }
        while true {
            var r: Int32
            repeat { r = sd_bus_process(bus, nil) } while r > 0
            if r < 0 {
                report("MPRIS left the session bus: \(Self.errorText(r))")
                return
            }
            let (stopping, seekedMs) = waiting.withLock { waiting in
                defer { waiting.seekedMs = nil }
                return (waiting.stopping, waiting.seekedMs)
            }
            if stopping { return }
            tellChanges()
            if let seekedMs { tellSeeked(ms: seekedMs) }
            var fds = [pollfd(fd: sd_bus_get_fd(bus), events: Int16(truncatingIfNeeded: sd_bus_get_events(bus)), revents: 0),
                       pollfd(fd: wake, events: Int16(POLLIN), revents: 0)]
            if poll(&fds, 2, pollTimeoutMs()) > 0, fds[1].revents != 0 {
                var count: UInt64 = 0
                _ = read(wake, &count, 8)
            }
        }
    }

    /// Milliseconds until sd-bus's next deadline (a call's timeout); -1 for none.
    private func pollTimeoutMs() -> Int32 {
        var until: UInt64 = 0
        guard sd_bus_get_timeout(bus, &until) >= 0, until != UInt64.max else { return -1 }
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nowUs = UInt64(now.tv_sec) &* 1_000_000 &+ UInt64(now.tv_nsec / 1000)
        guard until > nowUs else { return 0 }
        return Int32(clamping: (until - nowUs + 999) / 1000)
    }

    /// PropertiesChanged for what differs from what was last told.
    private func tellChanges() {
        let view = PlayerView(host.snapshot(), metadata: currentMetadata)
        let last = told.withLock { told in
            defer { told.view = view }
            return told.view
        }
        guard let last else { return }
        let changed = view.changedNames(since: last)
        guard !changed.isEmpty else { return }
        var pointers = changed.map { strdup($0) } + [nil]
        defer { pointers.forEach { free($0) } }
        _ = pointers.withUnsafeMutableBufferPointer { buffer in
            sd_bus_emit_properties_changed_strv(bus, Self.objectPath, Self.playerInterface, buffer.baseAddress)
        }
    }

    private func tellSeeked(ms: Int) {
        var signal: OpaquePointer?
        guard sd_bus_message_new_signal(bus, &signal, Self.objectPath, Self.playerInterface, "Seeked") >= 0,
              let signal else { return }
        defer { sd_bus_message_unref(signal) }
        var message = BusMessage(signal)
        message.appendInt64(Microseconds(ms: playedPositionMs(absoluteMs: ms, host.snapshot())))
        if message.result >= 0 { sd_bus_send(bus, signal, nil) }
    }

    /// The current entry's metadata, made again only when the entry changed (the cover is read then).
    var currentMetadata: TrackMetadata {
        let snapshot = host.snapshot()
        let entry = snapshot.currentIndex.map { snapshot.entries[$0] }
        return told.withLock { told in
            if entry != told.entry {
                told.entry = entry
                told.metadata = entry.map { TrackMetadata(entry: $0, host: host, covers: covers) } ?? .none
            }
            return told.metadata
        }
    }

    // MARK: Vtables

    /// A C string kept until `close`, NUL-separated parts allowed (sd-bus's argument names).
    private func keep(_ text: String) -> UnsafePointer<CChar> {
        let bytes = Array(text.utf8) + [0]
        let stored = UnsafeMutablePointer<UInt8>.allocate(capacity: bytes.count)
        stored.initialize(from: bytes, count: bytes.count)
        strings.append(stored)
        return UnsafeRawPointer(stored).assumingMemoryBound(to: CChar.self)
    }

    private func method(_ name: String, _ signature: String = "", names: [String] = []) -> sd_bus_vtable {
        xz_bus_vtable_method(keep(name), keep(signature), keep(""), keep(names.map { $0 + "\0" }.joined()), callMethod)
    }

    private func property(_ name: String, _ signature: String, writable: Bool = false, changes: Bool = true,
                          constant: Bool = false) -> sd_bus_vtable {
        xz_bus_vtable_property(keep(name), keep(signature), getProperty, writable ? setProperty : nil,
                               changes ? 1 : 0, constant ? 1 : 0)
    }

    private func rootVtable() -> [sd_bus_vtable] {
        [xz_bus_vtable_start(),
         method("Raise"), method("Quit"),
         property("CanQuit", "b", constant: true), property("CanRaise", "b", constant: true),
         property("HasTrackList", "b", constant: true), property("Identity", "s", constant: true),
         property("DesktopEntry", "s", constant: true), property("SupportedUriSchemes", "as", constant: true),
         property("SupportedMimeTypes", "as", constant: true),
         xz_bus_vtable_end()]
    }

    private func playerVtable() -> [sd_bus_vtable] {
        [xz_bus_vtable_start(),
         method("Next"), method("Previous"), method("Pause"), method("PlayPause"), method("Stop"), method("Play"),
         method("Seek", "x", names: ["Offset"]), method("SetPosition", "ox", names: ["TrackId", "Position"]),
         method("OpenUri", "s", names: ["Uri"]),
         xz_bus_vtable_signal(keep("Seeked"), keep("x"), keep("Position\0")),
         property("PlaybackStatus", "s"), property("LoopStatus", "s", writable: true),
         property("Rate", "d", writable: true), property("Shuffle", "b", writable: true),
         property("Metadata", "a{sv}"), property("Volume", "d", writable: true),
         // The spec: Position is read when wanted, never told as a change (`Seeked` tells jumps).
         property("Position", "x", changes: false),
         property("MinimumRate", "d", constant: true), property("MaximumRate", "d", constant: true),
         property("CanGoNext", "b"), property("CanGoPrevious", "b"), property("CanPlay", "b"),
         property("CanPause", "b"), property("CanSeek", "b"), property("CanControl", "b", constant: true),
         xz_bus_vtable_end()]
    }

    static func errorText(_ r: Int32) -> String { String(cString: strerror(-r)) }
}

/// sd-bus's callbacks, which carry the service as their userdata.
private let callMethod: sd_bus_message_handler_t = { message, userdata, error in
    guard let message, let userdata else { return -EINVAL }
    return Unmanaged<MPRISService>.fromOpaque(userdata).takeUnretainedValue().call(message, error: error)
}

private let getProperty: sd_bus_property_get_t = { _, _, _, property, reply, userdata, error in
    guard let property, let reply, let userdata else { return -EINVAL }
    return Unmanaged<MPRISService>.fromOpaque(userdata).takeUnretainedValue()
        .get(String(cString: property), into: reply, error: error)
}

private let requestNameAnswered: sd_bus_message_handler_t = { reply, userdata, _ in
    guard let reply, let userdata else { return 0 }
    Unmanaged<MPRISService>.fromOpaque(userdata).takeUnretainedValue().nameAnswered(reply)
    return 0
}

private let setProperty: sd_bus_property_set_t = { _, _, _, property, value, userdata, error in
    guard let property, let value, let userdata else { return -EINVAL }
    return Unmanaged<MPRISService>.fromOpaque(userdata).takeUnretainedValue()
        .set(String(cString: property), from: value, error: error)
}
