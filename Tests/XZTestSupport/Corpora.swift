import Foundation

/// The public corpora (other projects' test data) are optional: a corpus test finds its corpus here or is
/// skipped with `Corpora.missing`. Looked for, in order: `$XZMUSIC_CORPORA` (only there when set;
/// `none` means no corpora), `Tests/Corpora/` (filled by `make corpora`), `../shared/corpora`.
package enum Corpora {
    package static let variable = "XZMUSIC_CORPORA"
    /// Every skip starts with this, so `make test` can count them.
    package static let skipPrefix = "corpus not found"

    /// The folders searched for corpora, in order.
    package static func roots(environment: [String: String] = ProcessInfo.processInfo.environment,
                             repositoryRoot: URL = TestPaths.repositoryRoot) -> [URL] {
        if let chosen = environment[variable], !chosen.isEmpty {
            return chosen == "none" ? [] : [URL(fileURLWithPath: chosen)]
        }
        return [repositoryRoot.appendingPathComponent("Tests/Corpora"),
                repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/corpora")]
    }

    /// The folder of corpus `name` (as `lieff-minimp3`) in the first root that holds it with every file
    /// of `files` (paths inside it), or nil.
    package static func locate(_ name: String, files: [String] = [],
                              environment: [String: String] = ProcessInfo.processInfo.environment,
                              repositoryRoot: URL = TestPaths.repositoryRoot) -> URL? {
        for root in roots(environment: environment, repositoryRoot: repositoryRoot) {
            let folder = root.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder.path, isDirectory: &isDirectory), isDirectory.boolValue,
                  files.allSatisfy({ FileManager.default.fileExists(atPath: folder.appendingPathComponent($0).path) })
            else { continue }
            return folder
        }
        return nil
    }

    /// The one line a skipped corpus test gives.
    package static func missing(_ name: String, files: [String] = []) -> String {
        let what = files.isEmpty ? name : "\(name) (\(files.joined(separator: ", ")))"
        return "\(skipPrefix): \(what); get the public corpora with `make corpora`, or set \(variable)"
    }
}
