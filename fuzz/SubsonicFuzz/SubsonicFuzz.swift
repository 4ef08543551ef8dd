// The Subsonic API fuzzer: each input is request lines (`ENDPOINT?QUERY`, the query as a URL carries it),
// run one after another through the API's router against a real in-process library
// (SubsonicFuzzLibrary), as the owner unless the line starts with `!` (then with its own credentials
// alone). `_range=` in a query is the request's Range header. Built with libFuzzer by fuzz/fuzz.py
// (`make fuzz-subsonic`); built without it (as in `swift build`) the program replays inputs given as files.
// A finding: a crash (a trap included); a reply holding the canary (what the API read outside the
// library); a file reply outside the music folder and the cache; the process past libFuzzer's limits.
import Foundation
import XZFuzzSupport
import XZSubsonicAPI
import XZSubsonicServer
import XZSystem

@main
enum SubsonicFuzz {
    static func main() {
        FuzzDriver.main(make: "fuzz-subsonic", run: { SubsonicFuzzing.shared.run($0, echo: $1) }, writeSeeds: writeSeeds,
                        remove: { SubsonicFuzzing.shared.library.remove() })
    }

    /// The seed corpus: every endpoint of the table bare, and with each parameter the spec gives it (when
    /// the spec is at hand: XZ_FUZZ_SPEC, its `openapi/endpoints` folder) or the common ones, filled with
    /// the library's ids and the spec's values; sign-ins of every kind; and the dictionary.
    static func writeSeeds(to folder: String) -> Int32 {
        let library = SubsonicFuzzing.shared.library
        let spec = ProcessInfo.processInfo.environment["XZ_FUZZ_SPEC"].map { URL(fileURLWithPath: $0) }
        var seeds: [String] = []
        var words = Set<String>()
        for name in SubsonicEndpoints.all.keys.sorted() {
            let parameters = spec.flatMap { SpecParameters.read(endpoint: name, in: $0) } ?? SpecParameters.common
            words.insert(name)
            seeds.append(name)
            var query: [String] = []
            for parameter in parameters {
                words.insert(parameter.name)
                let values = parameter.samples(ids: library.ids)
                words.formUnion(values)
                // One seed for each value of the parameter, beside the first of the others.
                for value in values.dropFirst().prefix(6) {
                    let others = parameters.filter { $0.name != parameter.name }
                        .compactMap { other in other.samples(ids: library.ids).first.map { "\(other.name)=\(encoded($0))" } }
                    seeds.append(name + "?" + (["\(parameter.name)=\(encoded(value))"] + others).joined(separator: "&"))
                }
                if let first = values.first { query.append("\(parameter.name)=\(encoded(first))") }
            }
            seeds.append(name + "?" + query.joined(separator: "&"))
            seeds.append(name + ".view?f=json&" + query.joined(separator: "&"))
            seeds.append(name + "?f=jsonp&callback=cb&" + query.joined(separator: "&"))
        }
        let token = SubsonicFuzzing.token(SubsonicFuzzLibrary.password, salt: "c19b2d")
        seeds += [
            "!ping?u=fuzz&p=\(SubsonicFuzzLibrary.password)&v=1.16.1&c=fuzz",
            "!ping?u=fuzz&p=enc:\(Data(SubsonicFuzzLibrary.password.utf8).map { String(format: "%02x", $0) }.joined())&v=1.16.1&c=fuzz",
            "!ping?u=fuzz&t=\(token)&s=c19b2d&v=1.13.0&c=fuzz",
            "!getUser?apiKey=\(library.guestKey)&v=1.16.1&c=fuzz&username=guest",
            "!ping?apiKey=\(library.guestKey)&u=guest&v=1.16.1&c=fuzz",
            "!getUsers?u=guest&p=guest-pw&v=1.16.1&c=fuzz",
            "stream?id=\(library.ids["song"]?.first ?? "so-1")&_range=bytes=10-99\ndownload?id=\(library.ids["song"]?.first ?? "so-1")&_range=bytes=-5",
            "createUser?username=x&password=enc:7878&email=e\ngetUser?username=x\nchangePassword?username=x&password=y\ndeleteUser?username=x",
        ]
        words.formUnion(["..", "../", "%2e%2e", "%00", "enc:", "fo-", "pl-", "so-", "al-", "ua-", "ar-", "ra-", "outside", "/etc/passwd",
                         "9223372036854775807", "9223372036854775808", "-9223372036854775809", "4294967296", "2147483648",
                         "-1", "0", "1e309", "nan", "bytes=0-", "bytes=-1", "bytes=99999999999-", "&f=json", "&f=jsonp&callback=cb",
                         "_range=", "!", "\n", ".view"])
        words.formUnion(library.ids.values.flatMap { $0 })
        // Ids that name what lies outside the music folder: the folder beside it through `..`, the link to
        // it, absolute names; as folders, playlists and in every endpoint that takes an id.
        let alias = FuzzFolder.outsideAlias
        let outside = ["..", "../\(alias)", "../\(alias)/song.mp3", "album/../../\(alias)", "/", "/etc", "//etc/passwd", alias]
        let hostileIDs = outside.map { SubsonicID.folder($0).text } + outside.map { SubsonicID.playlist($0).text }
        words.formUnion(hostileIDs)
        for name in SubsonicEndpoints.all.keys.sorted() {
            seeds.append(hostileIDs.prefix(4).map { "\(name)?id=\($0)" }.joined(separator: "\n"))
        }
        do {
            try FuzzSeeds.write(seeds, words: words, to: folder)
        } catch {
            printError("cannot write the seeds: \(error)\n")
            return 1
        }
        print("\(seeds.count) seeds in \(folder), \(words.count) words in \(folder).dict")
        library.remove()
        return 0
    }

    private static func encoded(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: .alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? value
    }
}

/// A parameter of an endpoint as the spec's OpenAPI file lists it: its name, type and allowed values.
struct SpecParameters {
    var name: String
    var type: String
    var values: [String]

    /// Sample values: the library's ids for id parameters, the spec's enum, a type's ordinary values.
    func samples(ids: [String: [String]]) -> [String] {
        if !values.isEmpty { return values }
        let lower = name.lowercased()
        if lower == "musicfolderid" { return ["1", "2"] }
        if lower == "id" || lower.hasSuffix("ids") {
            return ["song", "album", "artist", "folder", "playlist", "radio"].compactMap { ids[$0]?.first }
        }
        if lower.hasPrefix("song") || lower == "current" { return ids["song"] ?? [] }
        if lower.hasPrefix("album") && lower.hasSuffix("id") { return ids["album"] ?? [] }
        if lower.hasPrefix("artist") && lower.hasSuffix("id") { return ids["artist"] ?? [] }
        if lower.hasPrefix("playlist") { return ids["playlist"] ?? [] }
        if lower == "username" { return ["fuzz", "guest"] }
        switch type {
        case "integer", "number": return ["1", "0", "500"]
        case "boolean": return ["true", "false"]
        default: return ["", "a", "周杰伦"]
        }
    }

    static let common: [SpecParameters] = ["id", "query", "type", "size", "offset", "count", "username", "name", "format",
                                           "maxBitRate", "timeOffset", "action", "index", "time", "submission"]
        .map { SpecParameters(name: $0, type: "string", values: []) }

    /// The endpoint's parameters from `endpoints/NAME.json` in the spec's OpenAPI folder, but the
    /// authentication and format ones every request has.
    static func read(endpoint: String, in folder: URL) -> [SpecParameters]? {
        let file = folder.appendingPathComponent("\(endpoint).json")
        guard let data = try? Data(contentsOf: file),
              let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let get = root["get"] as? [String: Any] else { return nil }
        let common: Set<String> = ["u", "p", "t", "s", "v", "c", "f", "apiKey", "callback"]
        return ((get["parameters"] as? [[String: Any]]) ?? []).compactMap { parameter in
            guard let name = parameter["name"] as? String, !common.contains(name) else { return nil }
            let schema = parameter["schema"] as? [String: Any] ?? [:]
            var values = (schema["enum"] as? [Any])?.map { "\($0)" } ?? []
            if let reference = schema["$ref"] as? String,
               let referenced = try? Data(contentsOf: folder.appendingPathComponent(reference).standardizedFileURL),
               let object = try? JSONSerialization.jsonObject(with: referenced) as? [String: Any] {
                values = (object["enum"] as? [Any])?.map { "\($0)" } ?? values
            }
            let itemType = (schema["items"] as? [String: Any])?["type"] as? String
            return SpecParameters(name: name, type: schema["type"] as? String == "array" ? itemType ?? "string" : schema["type"] as? String ?? "string",
                                  values: values)
        }
    }
}
