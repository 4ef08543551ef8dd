import CAvahiClient
import XZSystem
#if canImport(Glibc)
import Glibc
#endif

/// Announces services through avahi-daemon, as MPD's zeroconf does: each under its name, a name taken on
/// the network replaced by Avahi's alternative ("Name #2"), everything announced again when the daemon
/// restarts, and one line, no error, when no daemon runs (the services appear once it starts).
/// All of Avahi's work (its D-Bus calls) happens on Avahi's own poll thread; `announce` only hands the
/// list over and wakes it, never waiting for it. `stop()` (or the end of the announcer) withdraws everything.
package final class ZeroconfAnnouncer: Sendable {
    private let session: AvahiSession

    /// Starts Avahi's thread and its connection to the daemon. `report` hears one line (`zeroconf: …`) for
    /// what people should know: a name announced or renamed, no daemon, a daemon gone or back, a failure.
    package init(report: @escaping @Sendable (String) -> Void) {
        session = AvahiSession(report: report)
        session.start()
    }

    deinit { session.stop() }

    /// Announces exactly `services` (those announced already stay as they are, with their names).
    package func announce(_ services: [ZeroconfService]) {
        session.want(services)
    }

    /// Withdraws every service; the connection to the daemon stays for the next `announce`.
    package func withdraw() {
        session.want([])
    }

    /// The services the daemon has established on the network, each with the name it is announced by
    /// (another than its own after a collision).
    package var announced: [ZeroconfService: String] {
        session.established.withLock { $0 }
    }

    /// Withdraws everything and ends Avahi's thread; later calls do nothing.
    package func stop() {
        session.stop()
    }
}

/// Avahi's threaded poll, client and entry groups: C handles, so `@unchecked Sendable`. Safe because every
/// mutable field is touched only on Avahi's thread (in its callbacks), before `start()` lets it run and by
/// `stop()` once it has ended. Other threads reach it only through `handOver` (a lock of its own, and an
/// eventfd that wakes the thread) and read `established` under its lock.
final class AvahiSession: @unchecked Sendable {
    private struct Entry {
        var service: ZeroconfService
        /// The name it is announced by: the service's, or Avahi's alternative after a collision.
        var name: String
        var group: OpaquePointer?
    }

    private let report: @Sendable (String) -> Void
    private let poll: OpaquePointer?
    private var client: OpaquePointer?
    private var wanted: [ZeroconfService] = []
    private var entries: [Entry] = []
    /// The list `want` hands over (nil: taken), and whether the session has stopped.
    private let handOver = Mutex<(wanted: [ZeroconfService]?, stopped: Bool)>((nil, false))
    /// Written by `want`, read on Avahi's thread: a new list waits in `handOver`.
    private let wakeUp: Int32
    /// Armed to make a new client after the last one failed.
    private var reconnectTimer: OpaquePointer?
    private var toldNoDaemon = false
    private var toldUnreachable = false
    private var retained: Unmanaged<AvahiSession>?
    let established = Mutex<[ZeroconfService: String]>([:])

    /// A collision is answered with a new name this many times at most, so a network that takes every
    /// name cannot keep the thread renaming.
    private static let maxRenames = 32
    private var renames = 0

    init(report: @escaping @Sendable (String) -> Void) {
        self.report = report
        poll = avahi_threaded_poll_new()
        wakeUp = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
    }

    private var api: UnsafePointer<AvahiPoll>? { poll.flatMap { avahi_threaded_poll_get($0) } }

    private static func from(_ userdata: UnsafeMutableRawPointer?) -> AvahiSession {
        Unmanaged<AvahiSession>.fromOpaque(userdata!).takeUnretainedValue()
    }

    /// Arms `timer` to fire after `milliseconds`.
    private func arm(_ timer: OpaquePointer?, milliseconds: UInt32) {
        guard let api, let timer else { return }
        var when = timeval()
        avahi_elapse_time(&when, milliseconds, 0)
        api.pointee.timeout_update(timer, &when)
    }

    func start() {
        guard let poll, let api, wakeUp >= 0 else {
            report("zeroconf: cannot start Avahi's thread; the host is not announced")
            return
        }
        // Held by Avahi's callbacks until `stop()` has ended its thread.
        let retained = Unmanaged.passRetained(self)
        self.retained = retained
        let userdata = retained.toOpaque()
        _ = api.pointee.watch_new(api, wakeUp, AVAHI_WATCH_IN, { _, _, _, userdata in AvahiSession.from(userdata).takeWanted() }, userdata)
        reconnectTimer = api.pointee.timeout_new(api, nil, { _, userdata in AvahiSession.from(userdata).connect() }, userdata)
        // The client is made on Avahi's thread too: connecting is a D-Bus round trip.
        arm(reconnectTimer, milliseconds: 0)
        if avahi_threaded_poll_start(poll) < 0 {
            report("zeroconf: cannot start Avahi's thread; the host is not announced")
        }
    }

    func want(_ services: [ZeroconfService]) {
        handOver.withLock { handOver in
            guard !handOver.stopped, wakeUp >= 0 else { return }
            handOver.wanted = services
            var one: UInt64 = 1
            // Nonblocking: a counter already that high has a wake-up pending anyway.
            _ = write(wakeUp, &one, MemoryLayout<UInt64>.size)
        }
    }

    func stop() {
        let wasStopped = handOver.withLock { handOver in
            defer { handOver.stopped = true }
            return handOver.stopped
        }
        guard !wasStopped else { return }
        defer { if wakeUp >= 0 { close(wakeUp) } }
        guard let poll else { return }
        avahi_threaded_poll_stop(poll)
        // Avahi's thread has ended: the handles are this thread's alone. Freeing the client withdraws
        // its groups from the daemon.
        entries.removeAll()
        if let client { avahi_client_free(client) }
        client = nil
        established.withLock { $0 = [:] }
        avahi_threaded_poll_free(poll)
        retained?.release()
        retained = nil
    }

    // MARK: - On Avahi's thread, with its lock held

    /// Replaces a failed client (or makes the first); a daemon not running yet is waited for
    /// (AVAHI_CLIENT_NO_FAIL), a missing system bus tried again each minute.
    private func connect() {
        dropGroups()
        if let client { avahi_client_free(client) }
        client = nil
        guard let api, let userdata = retained?.toOpaque() else { return }
        var error: Int32 = 0
        let made = avahi_client_new(api, AVAHI_CLIENT_NO_FAIL, { client, state, userdata in
            AvahiSession.from(userdata).clientChanged(client, state)
        }, userdata, &error)
        guard let made else {
            if !toldUnreachable {
                toldUnreachable = true
                report("zeroconf: cannot reach avahi-daemon (\(Self.message(error))); the host is not announced")
            }
            arm(reconnectTimer, milliseconds: 60_000)
            return
        }
        client = made
    }

    private func clientChanged(_ client: OpaquePointer?, _ state: AvahiClientState) {
        guard let client else { return }
        switch state {
        case AVAHI_CLIENT_S_RUNNING:
            if toldNoDaemon { report("zeroconf: avahi-daemon runs; announcing the host") }
            toldNoDaemon = false
            toldUnreachable = false
            register(with: client)
        case AVAHI_CLIENT_S_COLLISION, AVAHI_CLIENT_S_REGISTERING:
            // The daemon is renaming the machine: groups are registered again once it runs.
            dropGroups()
        case AVAHI_CLIENT_CONNECTING:
            if !toldNoDaemon {
                toldNoDaemon = true
                report("zeroconf: avahi-daemon is not running; the host is not announced until it starts")
            }
        case AVAHI_CLIENT_FAILURE:
            dropGroups()
            let error = avahi_client_errno(client)
            if error == Int32(AVAHI_ERR_DISCONNECTED) {
                // The daemon stopped: a new client waits for the next one.
                report("zeroconf: avahi-daemon stopped; the host is announced again when it is back")
                toldNoDaemon = true
                arm(reconnectTimer, milliseconds: 0)
            } else {
                report("zeroconf: Avahi failed (\(Self.message(error))); trying again in 10 seconds")
                arm(reconnectTimer, milliseconds: 10_000)
            }
        default:
            break
        }
    }

    /// Takes the list `want` handed over, if any, and brings the groups in line with it.
    private func takeWanted() {
        var count: UInt64 = 0
        _ = read(wakeUp, &count, MemoryLayout<UInt64>.size)
        guard let services = handOver.withLock({ handOver in defer { handOver.wanted = nil }; return handOver.wanted }) else { return }
        wanted = services
        sync()
    }

    /// Brings the groups in line with `wanted`: withdraws what is no longer wanted, announces what is new.
    private func sync() {
        let gone = entries.filter { !wanted.contains($0.service) }
        for entry in gone {
            if let group = entry.group { avahi_entry_group_free(group) }
            established.withLock { _ = $0.removeValue(forKey: entry.service) }
        }
        entries.removeAll { !wanted.contains($0.service) }
        for service in wanted where !entries.contains(where: { $0.service == service }) {
            entries.append(Entry(service: service, name: service.name, group: nil))
        }
        if let client, avahi_client_get_state(client) == AVAHI_CLIENT_S_RUNNING { register(with: client) }
    }

    /// Makes and commits a group for each entry without one.
    private func register(with client: OpaquePointer) {
        guard let userdata = retained?.toOpaque() else { return }
        for index in entries.indices where entries[index].group == nil {
            guard let group = avahi_entry_group_new(client, { group, state, userdata in
                AvahiSession.from(userdata).groupChanged(group, state)
            }, userdata) else {
                report("zeroconf: cannot announce \(entries[index].service): \(Self.message(avahi_client_errno(client)))")
                continue
            }
            entries[index].group = group
            commit(index)
        }
    }

    /// Adds entry `index`'s service to its group under its current name and commits it; a name this
    /// daemon already holds is replaced by the alternative at once.
    private func commit(_ index: Int) {
        guard let group = entries[index].group else { return }
        let service = entries[index].service
        // `path=/`: where an `_http._tcp` browser finds the stream.
        let text = service.kind == .http ? avahi_string_list_add(nil, "path=/") : nil
        defer { avahi_string_list_free(text) }
        var error = Int32(AVAHI_ERR_COLLISION)
        while error == Int32(AVAHI_ERR_COLLISION) {
            error = avahi_entry_group_add_service_strlst(group, AvahiIfIndex(AVAHI_IF_UNSPEC), AvahiProtocol(AVAHI_PROTO_UNSPEC),
                                                         AvahiPublishFlags(0), entries[index].name, service.kind.rawValue,
                                                         nil, nil, service.port, text)
            if error == Int32(AVAHI_ERR_COLLISION), !rename(index) { return }
        }
        if error == 0 { error = avahi_entry_group_commit(group) }
        if error != 0 { report("zeroconf: cannot announce \(service): \(Self.message(error))") }
    }

    /// Gives entry `index` Avahi's alternative name, as MPD does; false once it has been renamed too often.
    private func rename(_ index: Int) -> Bool {
        guard renames < Self.maxRenames else {
            report("zeroconf: every name tried for \(entries[index].service) is taken; it is not announced")
            return false
        }
        renames += 1
        let old = entries[index].name
        guard let alternative = avahi_alternative_service_name(old) else { return false }
        entries[index].name = String(cString: alternative)
        avahi_free(alternative)
        report("zeroconf: \"\(old)\" is taken on the network; announcing \"\(entries[index].name)\" instead")
        return true
    }

    private func groupChanged(_ group: OpaquePointer?, _ state: AvahiEntryGroupState) {
        // The first call comes from within avahi_entry_group_new, before the entry holds its group.
        guard let group, let index = entries.firstIndex(where: { $0.group == group }) else { return }
        let entry = entries[index]
        switch state {
        case AVAHI_ENTRY_GROUP_ESTABLISHED:
            renames = 0
            established.withLock { $0[entry.service] = entry.name }
            report("zeroconf: announced \"\(entry.name)\" (\(entry.service.kind.rawValue), port \(entry.service.port))")
        case AVAHI_ENTRY_GROUP_COLLISION:
            established.withLock { _ = $0.removeValue(forKey: entry.service) }
            guard rename(index) else { return }
            avahi_entry_group_reset(group)
            commit(index)
        case AVAHI_ENTRY_GROUP_FAILURE:
            established.withLock { _ = $0.removeValue(forKey: entry.service) }
            report("zeroconf: announcing \(entry.service) failed: \(Self.message(avahi_client_errno(avahi_entry_group_get_client(group))))")
        default:
            break
        }
    }

    /// Frees every group (the client failed or the daemon renames the machine); the entries keep their
    /// names for when they are registered again.
    private func dropGroups() {
        for index in entries.indices {
            if let group = entries[index].group { avahi_entry_group_free(group) }
            entries[index].group = nil
        }
        established.withLock { $0 = [:] }
    }

    private static func message(_ error: Int32) -> String {
        avahi_strerror(error).map { String(cString: $0) } ?? "error \(error)"
    }
}
