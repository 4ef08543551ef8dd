import XZHostCore

/// Cover art at the sizes clients ask for, resized once and kept.
package final class CoverArtCache: Sendable {
    package init(host: PlayerHost, settings: SubsonicSettings) {}
}
