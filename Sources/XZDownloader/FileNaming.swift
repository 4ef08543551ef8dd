import Foundation
import XZCatalogue
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Turns catalogue text into file names that cannot leave the library folder.
package enum FileNaming {
    /// Longest name stem in UTF-8 bytes; leaves room for " (99)" and an extension under NAME_MAX (255).
    package static let maxComponentBytes = 200

    /// Bidi controls and the BOM: invisible, and able to disguise a name in a listing. (Joiners stay:
    /// emoji and several scripts need them.)
    private static let hidden: Set<UInt32> = [0x061C, 0x200E, 0x200F, 0x202A, 0x202B, 0x202C, 0x202D, 0x202E,
                                              0x2066, 0x2067, 0x2068, 0x2069, 0xFEFF]

    /// One path component: no `/` or `\`, no control characters, not `.`/`..` or hidden, at most
    /// `maxComponentBytes` bytes cut between characters, never empty.
    package static func component(_ text: String, fallback: String = "Unknown") -> String {
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.properties.generalCategory {
            case .control, .lineSeparator, .paragraphSeparator, .surrogate:
                scalars.append(" ")
            default:
                if hidden.contains(scalar.value) {
                    scalars.append(" ")
                } else {
                    scalars.append(scalar == "/" || scalar == "\\" ? "_" : scalar)
                }
            }
        }
        var name = String(scalars).split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
        // A leading dot hides the file and makes "." and ".."; dots elsewhere are harmless.
        while name.hasPrefix(".") { name = "_" + name.dropFirst() }
        name = truncate(name, toUTF8Bytes: maxComponentBytes).trimmingCharacters(in: .whitespaces)
        if name.isEmpty { return fallback }
        return name
    }

    /// The longest prefix of whole characters that fits in `limit` UTF-8 bytes.
    package static func truncate(_ text: String, toUTF8Bytes limit: Int) -> String {
        if text.utf8.count <= limit { return text }
        var result = ""
        var bytes = 0
        for character in text {
            let size = character.utf8.count
            if bytes + size > limit { break }
            result.append(character)
            bytes += size
        }
        if !result.isEmpty { return result }
        // One enormous character (a long combining sequence): fall back to whole scalars.
        var scalars = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            let size = String(scalar).utf8.count
            if bytes + size > limit { break }
            scalars.append(scalar)
            bytes += size
        }
        return String(scalars)
    }

    /// `songs/<Singer>/<Album>/<NN> <Title>`, relative to the library folder, without an extension.
    /// A song without an album goes straight under its singer.
    package static func songStem(title: String, singer: String, album: String?, track: Int?) -> [String] {
        var parts = ["songs", component(singer, fallback: "Unknown Singer")]
        if let album, !album.trimmingCharacters(in: .whitespaces).isEmpty {
            parts.append(component(album, fallback: "Unknown Album"))
        }
        var name = component(title, fallback: "Untitled")
        if let track, track > 0, track < 1000 {
            name = component((track < 10 ? "0\(track)" : "\(track)") + " " + name)
        }
        parts.append(name)
        return parts
    }

    /// `stem.ext`, then `stem (2).ext`, `stem (3).ext`…
    package static func candidateName(stem: String, ext: String, attempt: Int) -> String {
        attempt <= 1 ? "\(stem).\(ext)" : "\(stem) (\(attempt)).\(ext)"
    }

    /// The real path of `url` with symlinks resolved (the path itself if it does not exist).
    static func realPath(_ url: URL) -> String {
        guard let resolved = realpath(url.path, nil) else { return url.standardizedFileURL.path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// Creates `relative` folders under the library and returns the real folder, refusing any that
    /// resolves outside the library folder (a planted symlink, say).
    static func makeFolder(_ relative: [String], in library: LibraryFolder) throws -> URL {
        let root = realPath(library.url)
        var folder = URL(fileURLWithPath: root)
        for part in relative { folder.appendPathComponent(part, isDirectory: true) }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw DownloadError.io("cannot create \(folder.path): \((error as NSError).localizedDescription)")
        }
        let real = realPath(folder)
        guard isInside(real, root: root) else {
            throw DownloadError.unsafePath("refusing to write to \(real): outside the library folder \(root)")
        }
        return URL(fileURLWithPath: real, isDirectory: true)
    }

    static func isInside(_ path: String, root: String) -> Bool {
        let prefix = root.hasSuffix("/") ? root : root + "/"
        return path.hasPrefix(prefix) && !path.split(separator: "/").contains("..")
    }

    /// Moves `source` to the first free `stem[ (n)].ext` in `folder` without ever replacing a file:
    /// link(2) fails on an existing name, so two downloads of same-named songs cannot collide.
    /// Returns the final path; `source` is gone afterwards.
    static func moveNoClobber(_ source: String, folder: URL, stem: String, ext: String, libraryRoot: String) throws -> String {
        for attempt in 1 ... 1000 {
            let target = folder.appendingPathComponent(candidateName(stem: stem, ext: ext, attempt: attempt)).path
            guard isInside(target, root: libraryRoot) else {
                throw DownloadError.unsafePath("refusing to write to \(target): outside the library folder")
            }
            if link(source, target) == 0 {
                unlink(source)
                return target
            }
            let code = errno
            if code == EEXIST { continue }
            if code == EPERM || code == EXDEV || code == ENOTSUP || code == EMLINK {
                // No hard links here (some removable file systems): check, then rename.
                if FileManager.default.fileExists(atPath: target) { continue }
                if rename(source, target) == 0 { return target }
            }
            throw DownloadError.io("cannot move the download to \(target): \(String(cString: strerror(code)))")
        }
        throw DownloadError.io("too many files named \(stem).\(ext) in \(folder.path)")
    }
}
