import ArgumentParser
import Foundation
import XZHostAssembly
import XZText

/// `fingerprint SONG`: the song's Chromaprint fingerprint, as the host's `getfingerprint` gives it to MPD
/// tagging clients.
struct Fingerprint: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "fingerprint", abstract: "Print a song's audio fingerprint (Chromaprint, as MPD's getfingerprint).")

    @OptionGroup var global: GlobalOptions
    @Argument(help: "#ID, a number, a search, or an audio file.") var song: [String]

    func validate() throws {
        if song.joined().trimmingCharacters(in: .whitespaces).isEmpty { throw ValidationError("name a song") }
    }

    func run(in context: CommandContext) throws {
        let reference = SongReference(song.joined(separator: " "), listing: context.lastListing)
        let path: String
        if case .file(let file) = reference {
            path = file
        } else {
            let found = try reference.resolve(in: context)
            guard found.isLocal else {
                throw CommandError.usage("\(found.title.safe) is not downloaded: only a song's file has a fingerprint")
            }
            path = found.localPath
        }
        // The host's socket and the prompt's own host both take a song by its absolute path.
        let answer = try context.withPlayer { try $0.run("getfingerprint", [path]) }
        context.console.line(answer.first { $0.key == "chromaprint" }?.value ?? "")
    }
}
