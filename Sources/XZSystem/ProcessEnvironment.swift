#if canImport(Glibc)
import Glibc
#endif

/// The process's environment variables, read as they are now.
package enum ProcessEnvironment {
    /// The variables of `names` that are set, read through getenv: the `environment` a function's default
    /// argument needs, without ProcessInfo building a dictionary of every variable (which every command
    /// paid as it started, several times over).
    package static func variables(_ names: String...) -> [String: String] {
        var found: [String: String] = [:]
        for name in names {
            if let value = getenv(name) { found[name] = String(cString: value) }
        }
        return found
    }
}
