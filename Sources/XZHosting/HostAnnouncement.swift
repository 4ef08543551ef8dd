import XZSystem
import XZZeroconf

/// A port the host listens on for others, at the address it is bound to: the protocol's, or an HTTP
/// stream output's.
public struct ListeningPort: Sendable, Hashable {
    public var address: String
    public var port: Int

    public init(address: String, port: Int) {
        self.address = address
        self.port = port
    }
}

/// What a host announces with Zeroconf (`zeroconf_enabled`, `zeroconf_name`): `_mpd._tcp` on the port its
/// protocol listener bound and `_http._tcp` for each stream output, none that listens on loopback only (a
/// phone told of it could not connect). Avahi's thread starts only once there is something to announce.
final class HostAnnouncement: Sendable {
    /// The expanded `zeroconf_name`; nil when zeroconf is off.
    private let name: String?
    private let protocolPort: ListeningPort?
    /// `zeroconf_enabled = yes` was written: a port left unannounced is told.
    private let asked: Bool
    private let notes: @Sendable (String) -> Void
    private let announcer = Mutex<ZeroconfAnnouncer?>(nil)
    private let stopped = Mutex(false)

    init(settings: HostSettings, tcpPort: Int?, notes: @escaping @Sendable (String) -> Void) {
        name = settings.zeroconfEnabled != false ? ZeroconfName.expand(settings.zeroconfName) : nil
        asked = settings.zeroconfEnabled == true
        protocolPort = tcpPort.map { ListeningPort(address: settings.bindAddress, port: $0) }
        self.notes = notes
    }

    /// The services for the protocol port and `httpStreams`, and one line for each port left unannounced
    /// because only this machine reaches it.
    static func services(name: String, protocolPort: ListeningPort?, httpStreams: [ListeningPort])
        -> (services: [ZeroconfService], unannounced: [String]) {
        var services: [ZeroconfService] = []
        var unannounced: [String] = []
        if let protocolPort, let port = UInt16(exactly: protocolPort.port), port != 0 {
            if HostSettings.isLoopback(protocolPort.address) {
                unannounced.append("zeroconf: the host listens on \(protocolPort.address) only, so phones are not told of it; "
                                   + "set bind_to_address (with a password) for them to find it")
            } else {
                services.append(ZeroconfService(name: name, kind: .mpd, port: port))
            }
        }
        for stream in httpStreams {
            guard let port = UInt16(exactly: stream.port), port != 0 else { continue }
            if HostSettings.isLoopback(stream.address) {
                unannounced.append("zeroconf: the stream on port \(port) listens on \(stream.address) only and is not announced")
            } else {
                // One name per stream: two services of one type and name would collide with each other.
                services.append(ZeroconfService(name: httpStreams.count == 1 ? name : "\(name) (port \(port))",
                                                kind: .http, port: port))
            }
        }
        return (services, unannounced)
    }

    /// Announces the protocol port and exactly `httpStreams` (replacing the streams announced before).
    func announce(httpStreams: [ListeningPort]) {
        guard let name, !stopped.withLock({ $0 }) else { return }
        let (services, unannounced) = Self.services(name: name, protocolPort: protocolPort, httpStreams: httpStreams)
        // Unasked, a host on loopback (the default) is no news.
        if asked { unannounced.forEach(notes) }
        announcer.withLock { announcer in
            if announcer == nil, !services.isEmpty { announcer = ZeroconfAnnouncer(report: notes) }
            announcer?.announce(services)
        }
    }

    /// The services established on the network, with the names they are announced by.
    var announced: [ZeroconfService: String] {
        announcer.withLock { $0?.announced ?? [:] }
    }

    /// Withdraws everything and ends Avahi's thread.
    func stop() {
        stopped.withLock { $0 = true }
        announcer.withLock { announcer in
            announcer?.stop()
            announcer = nil
        }
    }
}
