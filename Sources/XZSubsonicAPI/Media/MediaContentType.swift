/// The `Content-Type` a library file is served with, by its suffix (what `stream` raw and `download` send).
package enum MediaContentType {
    private static let bySuffix: [String: String] = [
        "mp3": "audio/mpeg", "flac": "audio/flac", "ogg": "audio/ogg", "oga": "audio/ogg", "opus": "audio/ogg",
        "m4a": "audio/mp4", "m4b": "audio/mp4", "mp4": "audio/mp4", "aac": "audio/aac", "wav": "audio/wav",
        "aif": "audio/aiff", "aiff": "audio/aiff", "wma": "audio/x-ms-wma", "ape": "audio/x-ape",
        "wv": "audio/x-wavpack", "mpc": "audio/x-musepack", "dsf": "audio/x-dsf", "alac": "audio/mp4",
    ]

    package static func of(path: String) -> String {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return "application/octet-stream" }
        return bySuffix[path[path.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
