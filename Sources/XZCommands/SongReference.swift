import Foundation
import XZCatalogue
import XZFolderScan

/// A SONG argument: `#ID` anywhere; a bare number is a position in the last listing where listings are
/// remembered (the prompt), else an id; a path to an audio file; other text is a search, best hit taken.
enum SongReference: Equatable {
    case id(Int64)
    case listing(Int)
    case file(String)
    case query(String)

    init(_ text: String, listing: [Int64]?) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.hasPrefix("#"), let id = Int64(trimmed.dropFirst()) {
            self = .id(id)
        } else if let number = Int64(trimmed), number > 0 {
            self = listing != nil ? .listing(Int(clamping: number)) : .id(number)
        } else if Self.looksLikePath(trimmed) {
            self = .file(LibraryFolder.expandTilde(trimmed))
        } else {
            self = .query(trimmed)
        }
    }

    /// "/…", "~/…", "./…" and "../…" are paths even when nothing is there (the player then says so);
    /// "name.flac" (any audio suffix) is a path when such a file exists, else a search.
    private static func looksLikePath(_ text: String) -> Bool {
        if text == "~" || ["/", "~/", "./", "../"].contains(where: text.hasPrefix) { return true }
        return LibraryFolder.isSongFileName(text) && FileManager.default.fileExists(atPath: LibraryFolder.expandTilde(text))
    }

    /// The catalogue song this refers to; files are not catalogue songs.
    func resolve(in context: CommandContext) throws -> Song {
        switch self {
        case .id(let id):
            guard let song = try context.database.song(id: id) else { throw CommandError.noSuchSong("no song #\(id)") }
            return song
        case .listing(let position):
            let listing = context.lastListing ?? []
            guard position <= listing.count else {
                throw CommandError.noSuchSong(listing.isEmpty
                    ? "the last listing has no songs: search first, or use #ID"
                    : "no song \(position) in the last listing (1-\(listing.count))")
            }
            let id = listing[position - 1]
            guard let song = try context.database.song(id: id) else { throw CommandError.noSuchSong("song #\(id) is gone") }
            return song
        case .file(let path):
            throw CommandError.usage("\(path.safe) is a file, not a catalogue song")
        case .query(let text):
            guard !text.isEmpty else { throw CommandError.usage("empty song name") }
            guard let song = try context.database.search(text, limit: 1).songs.first else {
                throw CommandError.noSuchSong("no song matches \"\(text.safe)\"")
            }
            return song
        }
    }
}
