import Foundation
import XZCatalogue
import XZSystem

/// The ids the API hands out: opaque strings to clients, each a kind and a row or a name. Music folders
/// alone are plain integers, as the spec says. Parsing is strict, so a client's id is never a path, SQL
/// or a number past its domain.
package enum SubsonicID: Hashable, Sendable {
    case artist(Int64)
    case album(Int64)
    /// A singer's songs without an album, listed as one album (by the singer's row).
    case unknownAlbum(Int64)
    case song(Int64)
    /// A folder of the music folder, by its path relative to it ("" = the music folder itself).
    case folder(String)
    /// A stored playlist, by its name.
    case playlist(String)
    case radioStation(Int64)

    /// The longest id accepted; longer is no id of ours.
    package static let maxLength = 4096

    package var text: String {
        switch self {
        case .artist(let id): "ar-\(id)"
        case .album(let id): "al-\(id)"
        case .unknownAlbum(let singer): "ua-\(singer)"
        case .song(let id): "so-\(id)"
        case .folder(let path): "fo-" + Self.encodeName(path)
        case .playlist(let name): "pl-" + Self.encodeName(name)
        case .radioStation(let id): "ra-\(id)"
        }
    }

    /// The id `text` stands for, or nil for anything else (the caller answers "not found").
    package init?(_ text: String) {
        // "fo-" alone is the music folder itself.
        guard text.utf8.count <= Self.maxLength, text.utf8.count >= 3 else { return nil }
        let utf8 = Array(text.utf8)
        guard utf8[2] == UInt8(ascii: "-") else { return nil }
        let prefix = String(decoding: utf8[0..<2], as: UTF8.self)
        let rest = String(decoding: utf8[3...], as: UTF8.self)
        switch prefix {
        case "ar": guard let id = Self.row(rest) else { return nil }; self = .artist(id)
        case "al": guard let id = Self.row(rest) else { return nil }; self = .album(id)
        case "ua": guard let id = Self.row(rest) else { return nil }; self = .unknownAlbum(id)
        case "so": guard let id = Self.row(rest) else { return nil }; self = .song(id)
        case "ra": guard let id = Self.row(rest) else { return nil }; self = .radioStation(id)
        case "fo": guard let path = Self.decodeName(rest) else { return nil }; self = .folder(path)
        case "pl": guard let name = Self.decodeName(rest), !name.isEmpty else { return nil }; self = .playlist(name)
        default: return nil
        }
    }

    /// The id of an album the tag view lists.
    package init(_ album: ListedAlbum) {
        switch album {
        case .album(let id): self = .album(id)
        case .albumless(let singer): self = .unknownAlbum(singer)
        }
    }

    /// The album the id names, nil for an id of another kind.
    package var listedAlbum: ListedAlbum? {
        switch self {
        case .album(let id): .album(id)
        case .unknownAlbum(let singer): .albumless(singerId: singer)
        default: nil
        }
    }

    /// A row id: ASCII digits only, no sign, within Int64.
    private static func row(_ text: String) -> Int64? {
        guard !text.isEmpty, text.utf8.count <= 19, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        return Int64(text)
    }

    /// Names travel as unpadded base64url, so an id never holds '/', '&' or a byte a URL must escape.
    private static func encodeName(_ name: String) -> String {
        ByteEncodings.base64URL(name.utf8)
    }

    /// The name, or nil when the text is no base64url or its bytes are no UTF-8 or hold a control character.
    private static func decodeName(_ text: String) -> String? {
        guard let data = ByteEncodings.bytes(base64URL: text), let name = String(data: data, encoding: .utf8),
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else { return nil }
        return name
    }
}
