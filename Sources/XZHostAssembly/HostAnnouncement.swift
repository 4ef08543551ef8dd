import XZSystem
import XZZeroconf

/// A port the host listens on for others, at the address it is bound to: the protocol's, or an HTTP
/// stream output's.
package struct ListeningPort: Sendable, Hashable {
    package var address: String
    package var port: Int

    package init(address: String, port: Int) {
        self.address = address
        self.port = port
    }
}

/// What a host announces with Zeroconf (`zeroconf_enabled`, `zeroconf_name`): `_mpd._tcp` on the port its
/// protocol listener bound and `_http._tcp` for each stream output, none that listens on loopback only (a
/// phone told of it could not connect; the key's summary says so, and the default host, on loopback, says
/// nothing at each start). Avahi's thread starts only once there is something to announce.
final class HostAnnouncement: Sendable {
    /// The expanded `zeroconf_name`; nil when zeroconf is off.
    private let name: String?
    private let protocolPort: ListeningPort?
    private let notes: @Sendable (String) -> Void
    /// Made at the first service to announce; none once stopped.
    private let state = Mutex<(announcer: ZeroconfAnnouncer?, stopped: Bool)>((nil, false))

    init(settings: HostSettings, tcpPort: Int?, notes: @escaping @Sendable (String) -> Void) {
        name = settings.zeroconfEnabled ? ZeroconfName.expand(settings.zeroconfName) : nil
        protocolPort = tcpPort.map { ListeningPort(address: settings.bindAddress, port: $0) }
        self.notes = notes
    }

    /// The services for the protocol port and `httpStreams` that others reach.
    static func services(name: String, protocolPort: ListeningPort?, httpStreams: [ListeningPort]) -> [ZeroconfService] {
        func reached(_ listening: ListeningPort) -> UInt16? {
            guard !HostSettings.isLoopback(listening.address), let port = UInt16(exactly: listening.port), port != 0 else { return nil }
            return port
        }
        let streamPorts = httpStreams.compactMap(reached)
        // One name per stream: two services of one type and name would collide with each other.
        return (protocolPort.flatMap(reached).map { [ZeroconfService(name: name, kind: .mpd, port: $0)] } ?? [])
            + streamPorts.map { ZeroconfService(name: streamPorts.count == 1 ? name : "\(name) (port \($0))", kind: .http, port: $0) }
    }

    /// Announces the protocol port and exactly `httpStreams` (replacing the streams announced before).
    func announce(httpStreams: [ListeningPort]) {
        guard let name else { return }
        let services = Self.services(name: name, protocolPort: protocolPort, httpStreams: httpStreams)
        state.withLock { state in
            guard !state.stopped else { return }
            if state.announcer == nil, !services.isEmpty { state.announcer = ZeroconfAnnouncer(report: notes) }
            state.announcer?.announce(services)
        }
    }

    /// The services established on the network, with the names they are announced by.
    var announced: [ZeroconfService: String] {
        state.withLock { $0.announcer?.announced ?? [:] }
    }

    /// Withdraws everything and ends Avahi's thread.
    func stop() {
        let announcer = state.withLock { state in
            defer { state = (nil, true) }
            return state.announcer
        }
        // Outside the lock: stopping joins Avahi's thread.
        announcer?.stop()
    }
}
