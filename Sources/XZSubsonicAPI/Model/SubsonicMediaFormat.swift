/// A file's suffix and MIME type, from its name's extension.
package enum SubsonicMediaFormat {
    /// By lowercased suffix; what clients pick a player by.
    private static let contentTypes: [String: String] = [
        "mp3": "audio/mpeg", "mp2": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg", "oga": "audio/ogg",
        "opus": "audio/ogg", "m4a": "audio/mp4", "m4b": "audio/mp4", "mp4": "audio/mp4", "aac": "audio/aac",
        "wav": "audio/wav", "aif": "audio/aiff", "aiff": "audio/aiff", "aifc": "audio/aiff", "wv": "audio/x-wavpack",
        "ape": "audio/x-ape", "wma": "audio/x-ms-wma", "mpc": "audio/x-musepack", "tta": "audio/x-tta",
        "dsf": "audio/x-dsf", "dff": "audio/x-dff", "mka": "audio/x-matroska", "webm": "audio/webm",
    ]

    /// Formats whose samples are kept whole, for which a bit depth means something.
    private static let lossless: Set<String> = ["flac", "wav", "aif", "aiff", "aifc", "wv", "ape", "tta", "m4a"]

    /// The lowercased extension of the file's name ("" when it has none).
    package static func suffix(ofPath path: String) -> String {
        // A URL's query and fragment are no part of the name.
        let file = path.hasPrefix("http://") || path.hasPrefix("https://") ? path.prefix { $0 != "?" && $0 != "#" } : Substring(path)
        let name = file.split(separator: "/", omittingEmptySubsequences: false).last ?? ""
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return "" }
        return String(name[name.index(after: dot)...]).lowercased()
    }

    /// The MIME type of a suffix; `application/octet-stream` for one not known.
    package static func contentType(ofSuffix suffix: String) -> String {
        contentTypes[suffix.lowercased()] ?? "application/octet-stream"
    }

    package static func isLossless(suffix: String) -> Bool {
        lossless.contains(suffix.lowercased())
    }
}
