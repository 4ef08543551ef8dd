import Foundation

/// Paths a person writes with `~`.
package enum HomePath {
    /// `~` and `~/…` name `$HOME` (as in a shell, so a changed HOME counts), `~user/…` that user's home.
    package static func expand(_ path: String, environment: [String: String] = ProcessEnvironment.variables("HOME")) -> String {
        // Most paths name no home: they skip NSString's bridging.
        guard path.hasPrefix("~") else { return path }
        guard path == "~" || path.hasPrefix("~/") else { return (path as NSString).expandingTildeInPath }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return home + path.dropFirst()
    }
}
