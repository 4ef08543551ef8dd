import Foundation
import XZAudio
import XZCatalogue
import XZHostCore
import XZPlaybackValues
import XZProtocol
import XZSystem

/// MPD's database commands over the catalogue: find/search (and adding what they find), count, list,
/// folder listings, update/rescan and cover art. Filters go through the catalogue's one filter engine.
extension MPDCommands {
    static let databaseCommands: [MPDCommand] = [
        MPDCommand("find", 1...Int.max, .readOnly, .blocking) { call throws(MPDError) in try printMatches(&call, foldCase: false) },
        MPDCommand("search", 1...Int.max, .readOnly, .blocking) { call throws(MPDError) in try printMatches(&call, foldCase: true) },
        MPDCommand("findadd", 1...Int.max, .changesState, .blocking) { call throws(MPDError) in try addMatches(&call, foldCase: false) },
        MPDCommand("searchadd", 1...Int.max, .changesState, .blocking) { call throws(MPDError) in try addMatches(&call, foldCase: true) },
        MPDCommand("searchaddpl", 2...Int.max, .changesState, .blocking) { call throws(MPDError) in try addMatchesToPlaylist(&call) },
        MPDCommand("count", 1...Int.max, .readOnly, .blocking) { call throws(MPDError) in try count(&call) },
        MPDCommand("list", 1...Int.max, .readOnly, .blocking) { call throws(MPDError) in try list(&call) },
        MPDCommand("lsinfo", 0...1, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in try listOneFolder(&call) },
        MPDCommand("listall", 0...1, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in try listTree(&call, full: false) },
        MPDCommand("listallinfo", 0...1, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in try listTree(&call, full: true) },
        MPDCommand("listfiles", 0...1, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in try listFiles(&call) },
        MPDCommand("update", 0...1, .changesState, .blocking, paths: [0]) { call throws(MPDError) in try update(&call, rescan: false) },
        MPDCommand("rescan", 0...1, .changesState, .blocking, paths: [0]) { call throws(MPDError) in try update(&call, rescan: true) },
        MPDCommand("albumart", 2...2, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in try picture(&call, embeddedFirst: false) },
        MPDCommand("readpicture", 2...2, .readOnly, .blocking, paths: [0]) { call throws(MPDError) in try picture(&call, embeddedFirst: true) },
    ]

    // MARK: Selections

    /// The filter, `sort` and `window` of find/search (and their `add` forms, after `position`).
    static func selection(_ arguments: [String], foldCase: Bool) throws(MPDError) -> SongSelection {
        var arguments = arguments
        var window: Range<Int>?
        if arguments.count >= 2, arguments[arguments.count - 2] == "window" {
            let range = try MPDArgument.range(arguments.removeLast())
            window = range.start..<(range.end ?? Int.max)
            arguments.removeLast()
        }
        var order = SongSelection.Order.path
        if arguments.count >= 2, arguments[arguments.count - 2] == "sort" {
            var name = Substring(arguments.removeLast())
            arguments.removeLast()
            let descending = name.hasPrefix("-")
            if descending { name = name.dropFirst() }
            if name.caseInsensitiveCompare("Last-Modified") == .orderedSame {
                order = .lastModified(descending: descending)
            } else if let tag = SongTag(String(name)) {
                order = .tag(tag, descending: descending)
            } else {
                throw MPDError.arg("Unknown sort tag")
            }
        }
        return SongSelection(filters: try filters(arguments, foldCase: foldCase), order: order, window: window,
                             foldedExtras: foldCase)
    }

    static func filters(_ arguments: [String], foldCase: Bool) throws(MPDError) -> [SongFilter] {
        do {
            return try FilterParser.parse(arguments, foldCase: foldCase)
        } catch {
            throw MPDError.arg(error.description)
        }
    }

    /// `playlistfind` / `playlistsearch FILTER`: queue entries matching, through the filter language
    /// find and search use, every value of a catalogue song's tags included.
    static func findInQueue(_ call: inout Invocation, exact: Bool) throws(MPDError) {
        let filters = try filters(call.arguments, foldCase: !exact)
        let entries = call.host.snapshot().entries
        let songs = catalogueSongs(entries, call.host)
        for (index, entry) in entries.enumerated() {
            try call.checkDeadline(index)
            let item = entry.item
            let catalogue = item.songId.flatMap { songs[$0] }
            var song = catalogue ?? Song(title: item.title, singer: item.singer, album: item.album, track: item.track,
                                         year: item.year, durationMs: item.durationMs, localPath: item.path)
            // A file the catalogue does not hold is matched on its own tags, those it is listed with.
            if catalogue == nil, let file = item.fileInfo { song.take(fileTags: file.tags) }
            // Matched on the tags it is listed with, a playlist file's among them, as MPD matches.
            if let listed = item.listed { song.take(listed) }
            let uri = call.host.uri(of: item)
            if filters.allSatisfy({ $0.matches(song, uri: uri) }) {
                call.response.addQueueEntry(entry, position: index, host: call.host, tags: call.session.tagTypes,
                                            catalogue: catalogue)
            }
        }
    }

    static func songs(_ call: Invocation, _ selection: SongSelection) throws(MPDError) -> [Song] {
        do {
            return try call.host.database.songs(selection, naming: call.host.naming, deadline: call.deadline)
        } catch {
            throw MPDError(failure: error)
        }
    }

    static func uri(_ call: Invocation, _ song: Song) -> String {
        call.host.naming.uri(of: song)
    }

    /// find/search's songs; a `base` folder the database does not hold is MPD's "No such directory".
    static func matches(_ call: Invocation, _ selection: SongSelection) throws(MPDError) -> [Song] {
        let found = try songs(call, selection)
        if found.isEmpty { try requireBaseFolders(call, selection) }
        return found
    }

    /// For an empty answer: a `base` folder the database does not hold is MPD's "No such directory".
    static func requireBaseFolders(_ call: Invocation, _ selection: SongSelection) throws(MPDError) {
        for case .base(let folder) in selection.filters where !folder.isEmpty {
            guard FilterParser.isSafeLocalURI(folder),
                  !(try songs(call, SongSelection(filters: [.base(folder)], window: 0..<1))).isEmpty else {
                throw MPDError.noExist("No such directory")
            }
        }
    }

    static func printMatches(_ call: inout Invocation, foldCase: Bool) throws(MPDError) {
        let selection = try selection(call.arguments, foldCase: foldCase)
        if selection.order == .path {
            let count: Int
            do {
                count = try call.service.songRecords.list(selection, tags: call.session.tagTypes, host: call.host,
                                                          deadline: call.deadline, into: &call.response)
            } catch {
                throw MPDError(failure: error)
            }
            if count == 0 { try requireBaseFolders(call, selection) }
            return
        }
        for song in try matches(call, selection) {
            if call.response.isFull { return }
            call.response.addCatalogueSong(song, uri: uri(call, song), tags: call.session.tagTypes)
        }
    }

    static func addMatches(_ call: inout Invocation, foldCase: Bool) throws(MPDError) {
        var arguments = call.arguments
        var position: String?
        if arguments.count >= 2, arguments[arguments.count - 2] == "position" {
            position = arguments.removeLast()
            // Refused before the search, as MPD reads it first.
            _ = try insertPosition(position!, call.host.snapshot())
            arguments.removeLast()
        }
        let found = try matches(call, try selection(arguments, foldCase: foldCase))
        guard !found.isEmpty else { return }
        let items = QueueItem.items(found.map(Playable.song), database: call.host.database)
        try enqueue(items, at: position, call)
    }

    /// `searchaddpl NAME FILTER… [sort] [window] [position POS]`: into a stored playlist, made when new.
    static func addMatchesToPlaylist(_ call: inout Invocation) throws(MPDError) {
        let name = call.arguments[0]
        _ = try playlistCall { try StoredPlaylists.validate(name) }
        var arguments = Array(call.arguments.dropFirst())
        var position: Int?
        if arguments.count >= 2, arguments[arguments.count - 2] == "position" {
            position = try MPDArgument.unsigned(arguments.removeLast())
            // MPD's "no position" is the largest unsigned: the end.
            if position == Int(UInt32.max) { position = nil }
            arguments.removeLast()
        }
        let found = try matches(call, try selection(arguments, foldCase: true))
        let database = call.host.database
        let added = QueueItem.items(found.map(Playable.song), database: database).map(call.host.playlistEntry)
        try insert(added, into: name, at: position, host: call.host)
    }

    // MARK: count and list

    /// `group TAG` pairs at the end, the last one first, as MPD reads them.
    static func groups(_ arguments: inout [String], excluding tag: SongTag?) throws(MPDError) -> [SongTag] {
        var groups: [SongTag] = []
        while arguments.count >= 2, arguments[arguments.count - 2] == "group" {
            let name = arguments[arguments.count - 1]
            guard let group = SongTag(name) else { throw MPDError.arg("Unknown tag type: \(name)") }
            guard group != tag, !groups.contains(group) else { throw MPDError.arg("Conflicting group") }
            groups.append(group)
            arguments.removeLast(2)
        }
        return groups
    }

    /// Tag values and durations of the songs `filters` select (list, count).
    static func tagValues(_ call: Invocation, _ filters: [SongFilter], _ tags: [SongTag]) throws(MPDError)
        -> [(values: [[String]], durationMs: Int, groupedMs: Int)] {
        do {
            return try call.host.database.tagValues(filters, tags: tags, naming: call.host.naming, deadline: call.deadline)
        } catch {
            throw MPDError(failure: error)
        }
    }

    static func count(_ call: inout Invocation) throws(MPDError) {
        var arguments = call.arguments
        var group: SongTag?
        if arguments.count >= 2, arguments[arguments.count - 2] == "group" {
            let name = arguments[arguments.count - 1]
            guard let tag = SongTag(name) else { throw MPDError.arg("Unknown tag type: \(name)") }
            group = tag
            arguments.removeLast(2)
        }
        let filters = arguments.isEmpty ? [] : try Self.filters(arguments, foldCase: false)
        let found = try tagValues(call, filters, group.map { [$0] } ?? [])
        func stats(_ durations: [Int]) {
            call.response.add("songs", durations.count)
            call.response.add("playtime", durations.reduce(0, +) / 1000)
        }
        guard let group else { return stats(found.map(\.durationMs)) }
        var byValue: [String: [Int]] = [:]
        for (index, song) in found.enumerated() {
            try call.checkDeadline(index)
            // MPD's groups add up each song's tag length: a CUE track counts its whole image.
            for value in Set(song.values[0]) { byValue[value, default: []].append(song.groupedMs) }
        }
        for value in byValue.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            call.response.add(group.name, value)
            stats(byValue[value] ?? [])
        }
    }

    static func list(_ call: inout Invocation) throws(MPDError) {
        var arguments = Array(call.arguments.dropFirst())
        let name = call.arguments[0]
        if name.lowercased() == "file" || name.lowercased() == "filename" {
            let filters = arguments.isEmpty ? [] : try Self.filters(arguments, foldCase: false)
            for song in try songs(call, SongSelection(filters: filters)) { call.response.add("file", uri(call, song)) }
            return
        }
        guard let tag = SongTag(name) else { throw MPDError.arg("Unknown tag type: \(name)") }
        var filters: [SongFilter] = []
        if arguments.count == 1, !arguments[0].hasPrefix("(") {
            // The pre-0.12 form `list album ARTIST`.
            guard tag == .album else { throw MPDError.arg("should be \"Album\" for 3 arguments") }
            filters = [.tag(.artist, StringMatch(.equal, arguments.removeFirst(), foldCase: false))]
        }
        let levels = try groups(&arguments, excluding: tag) + [tag]
        if !arguments.isEmpty { filters += try Self.filters(arguments, foldCase: false) }
        let found = try tagValues(call, filters, levels).map(\.values)
        try printUnique(&call, levels, level: 0, found)
    }

    /// Values of one level, each followed by the unique values of the next levels among its songs.
    static func printUnique(_ call: inout Invocation, _ levels: [SongTag], level: Int, _ songs: [[[String]]])
        throws(MPDError) {
        guard level < levels.count else { return }
        var byValue: [String: [[[String]]]] = [:]
        for (index, song) in songs.enumerated() {
            try call.checkDeadline(index)
            for value in Set(song[level]) { byValue[value, default: []].append(song) }
        }
        for value in byValue.keys.sorted(by: { $0.utf8.lexicographicallyPrecedes($1.utf8) }) {
            call.response.add(levels[level].name, value)
            try printUnique(&call, levels, level: level + 1, byValue[value] ?? [])
        }
    }

    // MARK: update and rescan

    static func update(_ call: inout Invocation, rescan: Bool) throws(MPDError) {
        var folder = call.arguments.first ?? ""
        while folder.hasSuffix("/") { folder.removeLast() }
        guard FilterParser.isSafeLocalURI(folder) else { throw MPDError.arg("Malformed path") }
        // Only the music folder and the folders in it are updated: never a catalogue or library name.
        // As in MPD, a folder that is not there still makes a job, which finds nothing.
        let location = try call.location(folder)
        guard location.kind == .musicFolder else { throw MPDError.noExist("No such directory") }
        call.response.add("updating_db", call.host.startUpdate(of: URL(fileURLWithPath: location.path), rescan: rescan))
    }

    // MARK: Cover art

    /// `albumart` (a cover file beside the song first) and `readpicture` (the tag's picture first),
    /// each falling back on the other source; the bytes from OFFSET, at most `binarylimit` of them.
    static func picture(_ call: inout Invocation, embeddedFirst: Bool) throws(MPDError) {
        let offset = try MPDArgument.unsigned(call.arguments[1])
        let text = call.arguments[0]
        var path = try call.location(text).path
        // Only a regular file is a song: a FIFO named like one would block the reader. A CUE sheet's track
        // is no file: its image's pictures are its own, as MPD finds them.
        if (try? RegularFile.check(path)) == nil {
            guard let image = (try? call.host.database.song(localPath: path))??.cuePart?.file,
                  (try? RegularFile.check(image)) != nil else { throw MPDError.noExist("No file exists") }
            path = image
        }
        guard let found = SongCover.find(for: path, embeddedFirst: embeddedFirst) else {
            // MPD: no cover file is an error; no embedded picture an empty answer.
            if embeddedFirst { return }
            throw MPDError.noExist("No file exists")
        }
        let (mime, data) = (found.mimeType, found.data)
        guard offset <= data.count else { throw MPDError.arg("Bad file offset") }
        call.response.add("size", data.count)
        if embeddedFirst, let mime { call.response.add("type", mime) }
        let end = min(data.count, offset + call.session.binaryLimit)
        call.response.addBinary(data[offset..<end])
    }
}
