import Foundation
import XCTest
import XZTestSupport

// XCTest lives here rather than in XZTestSupport, which the benchmark executable links too.
extension Corpora {
    /// The folder of corpus `name` holding every file of `files`; when no root holds it, the test is
    /// skipped with `Corpora.missing`.
    package static func require(_ name: String, files: [String] = [],
                               environment: [String: String] = ProcessInfo.processInfo.environment,
                               repositoryRoot: URL = TestPaths.repositoryRoot) throws -> URL {
        guard let folder = locate(name, files: files, environment: environment, repositoryRoot: repositoryRoot) else {
            throw XCTSkip(missing(name, files: files))
        }
        return folder
    }
}
