import Foundation
import XCTest
import XZTestSupport

/// The spec's JSON schemas, checked by `Tests/SubsonicClients/validate.py` with the Python environment
/// `scripts/subsonic-venv.sh` makes (`make test` makes it).
struct ModelSchemaValidator {
    enum Target {
        /// A schema of `schemas/` ("Child").
        case schema(String)
        /// An endpoint's whole response ("getAlbum").
        case endpoint(String)
    }

    let python: URL
    let spec: URL
    let script: URL

    /// The validator, or a skip naming what is missing (the spec beside the repository, or the environment).
    static func make() throws -> ModelSchemaValidator {
        let root = TestPaths.repositoryRoot
        let shared = root.deletingLastPathComponent().appendingPathComponent("shared")
        guard FileManager.default.fileExists(atPath: shared.path) else {
            throw XCTSkip("../shared is absent: the OpenSubsonic spec's schemas are not here to validate against")
        }
        let spec = shared.appendingPathComponent("reference/opensubsonic-api/openapi")
        guard FileManager.default.fileExists(atPath: spec.appendingPathComponent("schemas/Child.json").path) else {
            throw XCTSkip("the OpenSubsonic spec's openapi folder is absent from \(shared.path)")
        }
        let python = root.appendingPathComponent(".build/subsonic-venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw XCTSkip("the Python environment is absent: scripts/subsonic-venv.sh makes it (make test runs it)")
        }
        return ModelSchemaValidator(python: python, spec: spec,
                                    script: root.appendingPathComponent("Tests/SubsonicClients/validate.py"))
    }

    /// Validates each JSON document; returns the failures, one line each (empty when all are valid).
    func failures(_ documents: [(name: String, target: Target, json: Data)]) throws -> [String] {
        var input = Data("[".utf8)
        for (index, document) in documents.enumerated() {
            if index > 0 { input += Data(",".utf8) }
            let target: String
            switch document.target {
            case .schema(let name): target = #""schema":"\#(name)""#
            case .endpoint(let name): target = #""endpoint":"\#(name)""#
            }
            input += Data(#"{"name":"\#(document.name)",\#(target),"document":"#.utf8) + document.json + Data("}".utf8)
        }
        input += Data("]".utf8)
        let result = try TestProcess.run(python.path, [script.path, "--spec", spec.path], input: input)
        guard result.status == 0 || result.status == 1 else {
            throw TestFailure("validate.py exited \(result.status): \(result.stdout) \(result.stderr)")
        }
        let lines = result.stdout.split(separator: "\n").map(String.init)
        guard lines.filter({ $0.hasPrefix("ok ") }).count + Set(lines.filter { $0.hasPrefix("FAIL ") }
            .map { $0.split(separator: ":")[0] }).count == documents.count else {
            throw TestFailure("validate.py answered \(lines.count) lines for \(documents.count) documents: \(result.stdout) \(result.stderr)")
        }
        return lines.filter { $0.hasPrefix("FAIL ") }
    }
}
