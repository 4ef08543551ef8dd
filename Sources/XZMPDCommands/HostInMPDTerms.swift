import XZCatalogue
import XZHostCore
import XZPlaybackValues

import XZProtocol
import XZSystem

/// The host's changes under MPD's `idle` names.
extension HostChanges {
    private static let subsystems: [(HostChanges, IdleSubsystem)] = [
        (.database, .database), (.update, .update), (.storedPlaylists, .storedPlaylist), (.queue, .playlist),
        (.playback, .player), (.volume, .mixer), (.options, .options), (.output, .output), (.stickers, .sticker),
        (.subscriptions, .subscription),
    ]

    package var idleSubsystems: Set<IdleSubsystem> {
        Set(Self.subsystems.lazy.filter { self.contains($0.0) }.map(\.1))
    }

    package init(_ subsystems: Set<IdleSubsystem>) {
        self = Self.subsystems.reduce(into: []) { changes, pair in
            if subsystems.contains(pair.1) { changes.insert(pair.0) }
        }
    }
}

extension MPDError {
    /// A refused song URI as MPD answers the same: a bad name is an argument error, a name that cannot
    /// be followed is no such thing.
    init(uri error: CatalogueError) {
        switch error {
        case .malformedURI: self.init(.arg, error.description)
        case .accessDenied: self.init(.permission, error.description)
        case .climbsOut, .unsupportedScheme, .noSuchSong, .notInLibrary: self.init(.noExist, error.description)
        default: self.init(.system, error.description)
        }
    }
}

extension MPDError {
    /// A failure below a command (the catalogue, a file, the host), as MPD reports its own: a refused
    /// URI by kind, anything else as a system error carrying its message.
    init(failure: any Error) {
        // A database failure in one line, never its SQL.
        let error = CatalogueError.readable(failure)
        if let refusal = error as? CatalogueError {
            self.init(uri: refusal)
        } else if let passed = error as? DeadlinePassed {
            // MPD has no budget; a system error is what it answers for work it could not finish.
            self.init(.system, passed.description)
        } else {
            self.init(.system, "\(error)")
        }
    }
}
