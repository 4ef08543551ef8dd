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
package struct MPRISError: KindedError {
    package enum Kind: Hashable, Sendable {
        /// No session bus to join (none running, or none reachable).
        case noSessionBus
        /// The bus refused the objects or every name.
        case cannotRegister
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    package static let noSessionBus = MPRISError(kind: .noSessionBus, message: "no session bus: MPRIS is off")
    package static func noSessionBus(because reason: String) -> MPRISError {
        noSessionBus("no session bus (\(reason)): MPRIS is off")
    }
    package static let cannotRegister = MPRISError(kind: .cannotRegister, message: "MPRIS could not register on the session bus: it is off")
    package static func cannotRegister(because reason: String) -> MPRISError {
        cannotRegister("MPRIS could not register on the session bus (\(reason)): it is off")
    }
}
