import XZHostCore

/// Streams and downloads: raw files with ranges, transcodes with their cache and their cap.
package final class SubsonicMedia: Sendable {
    package init(host: PlayerHost, settings: SubsonicSettings) {}
}
