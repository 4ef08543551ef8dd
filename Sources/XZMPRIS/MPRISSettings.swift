import Foundation
import XZSystem

/// Where a host shows itself over MPRIS (whether it does is the host's `mpris` key).
package struct MPRISSettings: Sendable, Equatable {
    /// The bus to join; nil for the user's session bus (`$DBUS_SESSION_BUS_ADDRESS`, else
    /// `$XDG_RUNTIME_DIR/bus`).
    package var busAddress: String?
    /// Where covers are extracted for `mpris:artUrl`.
    package var coverFolder: URL

    package init(environment: [String: String] = ProcessEnvironment.variables("XDG_CACHE_HOME", "HOME")) {
        let cache = environment["XDG_CACHE_HOME"].flatMap { $0.hasPrefix("/") ? $0 : nil }
            ?? HomePath.expand("~/.cache", environment: environment)
        coverFolder = URL(fileURLWithPath: cache).appendingPathComponent("xzmusic/covers")
    }
}

/// Why MPRIS could not start; the host runs on without it.
package enum MPRISError: Error, Equatable, CustomStringConvertible {
    /// No session bus to join (none running, or none reachable).
    case noSessionBus(String)
    /// The bus refused the objects or every name.
    case cannotRegister(String)

    package var description: String {
        switch self {
        case .noSessionBus(let reason): return "no session bus (\(reason)): MPRIS is off"
        case .cannotRegister(let reason): return "MPRIS could not register on the session bus (\(reason)): it is off"
        }
    }
}
