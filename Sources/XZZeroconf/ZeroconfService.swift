import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A service phones browse for with DNS-SD: MPD's protocol or an HTTP stream, on a port of this host,
/// under a name people read in their client's list.
package struct ZeroconfService: Sendable, Hashable, CustomStringConvertible {
    package enum Kind: String, Sendable, Hashable {
        /// MPD's protocol, what M.A.L.P., MPDroid and Rigelian browse for.
        case mpd = "_mpd._tcp"
        /// An HTTP stream (the httpd output), announced with the path `/`.
        case http = "_http._tcp"
    }

    package var name: String
    package var kind: Kind
    package var port: UInt16

    /// `name` is cut to the 63 bytes a DNS-SD instance name holds.
    package init(name: String, kind: Kind, port: UInt16) {
        self.name = ZeroconfName.fitting(name)
        self.kind = kind
        self.port = port
    }

    package var description: String { "\"\(name)\" (\(kind.rawValue), port \(port))" }
}

/// The name a host is announced by: MPD's `zeroconf_name`, `%h` being the host name.
package enum ZeroconfName {
    /// MPD's default.
    package static let defaultTemplate = "Music Player @ %h"
    /// The longest instance name DNS-SD takes, in bytes (one DNS label).
    package static let maxBytes = 63

    /// `template` with its first `%h` replaced by `hostName` (as MPD replaces it), cut to `maxBytes`.
    package static func expand(_ template: String, hostName: String = ZeroconfName.hostName()) -> String {
        guard let at = template.range(of: "%h") else { return fitting(template) }
        return fitting(template.replacingCharacters(in: at, with: hostName))
    }

    /// This machine's host name (`gethostname`), "localhost" when it has none.
    package static func hostName() -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "localhost" }
        let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        return name.isEmpty ? "localhost" : name
    }

    /// `name` cut at a character boundary to at most `maxBytes` UTF-8 bytes.
    static func fitting(_ name: String) -> String {
        guard name.utf8.count > maxBytes else { return name }
        var cut = Substring(name)
        while cut.utf8.count > maxBytes { cut = cut.dropLast() }
        return String(cut)
    }
}
