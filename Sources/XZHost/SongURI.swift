import Foundation
import XZPlayback
import XZCatalogue

/// How songs are named to protocol clients, as MPD names them: a file in the music folder by its path
/// relative to it; a file in the library folder (demo songs, downloads) under the fixed folder
/// `xzmusic/`; a catalogue song anywhere else under `xzmusic-catalogue/` and its absolute path (so a
/// network client can add every song the library holds); any other file by its absolute path, which
/// only local clients may use.
public struct SongURIs: Sendable, Equatable {
    public static let libraryPrefix = "xzmusic/"
    public static let cataloguePrefix = "xzmusic-catalogue/"

    public let musicDirectory: String
    public let libraryDirectory: String
    /// The two folders whose files are named relative to them, library first.
    private let roots: [SongNaming.Root]

    public init(musicDirectory: URL, library: LibraryFolder) {
        self.musicDirectory = musicDirectory.standardizedFileURL.path
        libraryDirectory = library.url.path
        roots = [.init(folder: libraryDirectory, uriPrefix: Self.libraryPrefix), .init(folder: self.musicDirectory, uriPrefix: "")]
    }

    /// The music folder: config `music_directory`, else `$XDG_MUSIC_DIR`, else `~/Music`.
    public static func defaultMusicDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> URL {
        if let dir = environment["XDG_MUSIC_DIR"], dir.hasPrefix("/") { return URL(fileURLWithPath: dir) }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return URL(fileURLWithPath: home).appendingPathComponent("Music")
    }

    /// `inCatalogue`: the file is a catalogue song's (it then has a name any client may use).
    public func uri(forPath path: String, inCatalogue: Bool) -> String {
        if QueueItem.isStreamURL(path) { return path }
        for root in roots {
            if let relative = SongNaming.relative(path, insideFolder: root.folder) { return root.uriPrefix + relative }
        }
        return inCatalogue ? Self.cataloguePrefix + path.drop { $0 == "/" } : path
    }

    /// The file a URI names. Absolute paths only when `allowAbsolute` (local clients); nothing may
    /// climb out of its folder with `..`. A `xzmusic-catalogue/` name must still be checked against the
    /// catalogue by the caller (`isCatalogueName`).
    public func path(forURI uri: String, allowAbsolute: Bool) throws(HostError) -> String {
        guard !uri.isEmpty, !uri.utf8.contains(0) else { throw .malformedURI }
        if uri.hasPrefix("/") {
            guard allowAbsolute else { throw .accessDenied }
            return URL(fileURLWithPath: uri).standardizedFileURL.path
        }
        if uri.contains("://") { throw .unsupportedScheme }
        let components = uri.split(separator: "/", omittingEmptySubsequences: true)
        guard !components.contains(where: { $0 == ".." || $0 == "." }) else { throw .climbsOut }
        if uri.hasPrefix(Self.cataloguePrefix) {
            return "/" + components.dropFirst().joined(separator: "/")
        }
        if uri.hasPrefix(Self.libraryPrefix) {
            return libraryDirectory + "/" + components.dropFirst().joined(separator: "/")
        }
        return musicDirectory + "/" + components.joined(separator: "/")
    }

    /// The same names for the catalogue's filter engine (`file`, `base`, database order); only songs
    /// with a local file, which are all a client can add.
    public var naming: SongNaming {
        SongNaming(roots: roots, otherPrefix: Self.cataloguePrefix, localOnly: true)
    }
}
