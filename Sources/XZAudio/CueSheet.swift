import XZSystem
import XZText

/// A CUE sheet as MPD's own parser reads one: the album's TITLE, PERFORMER, REM DATE/GENRE/COMMENT, and its
/// audio tracks, each starting at its INDEX 01 and ending where the next track of the same FILE starts.
/// A line it does not understand is skipped and counted, as MPD skips it; nothing in a sheet can trap.
package struct CueSheet: Sendable, Equatable {
    package static func == (a: CueSheet, b: CueSheet) -> Bool {
        a.album == b.album && a.albumArtist == b.albumArtist && a.date == b.date && a.genre == b.genre
            && a.comment == b.comment && a.tracks == b.tracks && a.tags.elementsEqual(b.tags) { $0 == $1 }
            && a.skippedLines == b.skippedLines && a.firstSkipped == b.firstSkipped
    }

    /// A position in the sheet's unit: CD frames, 75 a second.
    package static let framesPerSecond = 75
    /// Larger sheets are no sheets: a real one is a few kilobytes.
    package static let maxBytes = 1 << 20
    /// Tracks beyond this are left out (a CD holds 99).
    package static let maxTracks = 999

    package struct Track: Sendable, Equatable {
        /// The track number as the sheet writes it ("01"), as MPD's `Track:` shows it.
        package var number: String
        /// The FILE the track is in, as the sheet names it.
        package var file: String
        package var title: String?
        package var performer: String?
        package var songwriter: String?
        /// INDEX 01, in CD frames.
        package var startFrame: Int
        /// The next track's INDEX 01 in the same file; nil: the file's end.
        package var endFrame: Int?
        /// The track's tags as MPD's cue parser builds them, in the sheet's order: the album's (`tags`), then
        /// ("Track", number as written), then the track's own (TITLE → Title, PERFORMER → Artist, REM NAME).
        package var tags: [(name: String, value: String)] = []

        /// The end this track plays to in an image of `imageMs` (nil: unknown), as both a sheet beside its
        /// image and one inside it are read: an end past the image's end is the image's end (nil). nil when the
        /// track starts at or after the image's end: it has no audio, and is no track.
        package func endFrame(inImageOf imageMs: Int?) -> Int?? {
            guard let imageMs else { return .some(endFrame) }
            guard CueSheet.milliseconds(frames: startFrame) < imageMs else { return nil }
            return .some(endFrame.flatMap { CueSheet.milliseconds(frames: $0) < imageMs ? $0 : nil })
        }

        package static func == (a: Track, b: Track) -> Bool {
            a.number == b.number && a.file == b.file && a.title == b.title && a.performer == b.performer
                && a.songwriter == b.songwriter && a.startFrame == b.startFrame && a.endFrame == b.endFrame
                && a.tags.elementsEqual(b.tags) { $0 == $1 }
        }
    }

    package var album: String?
    package var albumArtist: String?
    package var date: String?
    package var genre: String?
    package var comment: String?
    package var tracks: [Track] = []
    /// The album's tags in the sheet's order, as MPD's cue parser reads them before the first TRACK: TITLE →
    /// Album, PERFORMER → AlbumArtist, `REM NAME value` → NAME (the reader keeps the names that are tags).
    package var tags: [(name: String, value: String)] = []
    /// Lines skipped, with the first one's number and reason for the scan's report.
    package var skippedLines = 0
    package var firstSkipped: String?

    package init() {}

    /// Why a file is no CUE sheet at all.
    package struct Failure: KindedError {
        package enum Kind: Hashable, Sendable {
            case tooLarge, binary, unreadable
        }

        package let kind: Kind
        package var message: String

        package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

        package static let tooLarge = Failure(kind: .tooLarge, message: "a CUE sheet larger than \(CueSheet.maxBytes / 1024) KiB")
        package static let binary = Failure(kind: .binary, message: "not a CUE sheet (binary data)")
        package static let unreadable = Failure(kind: .unreadable, message: "cannot be read")
        package static func unreadable(because reason: String) -> Failure { unreadable("cannot be read: \(reason)") }
    }

    /// Reads and parses the sheet at `path`: one bounded read of a regular file.
    package static func read(path: String) throws(Failure) -> CueSheet {
        let bytes: [UInt8]?
        do {
            bytes = try RegularFile.readWhole(path, limit: maxBytes)
        } catch {
            throw .unreadable(because: error == .folder ? "a folder" : error == .notRegular ? "not a regular file" : "cannot open")
        }
        guard let bytes else { throw .tooLarge }
        return try parse(bytes)
    }

    /// Parses a sheet's bytes: UTF-8 with or without a BOM; otherwise the bytes are Latin-1, as TagLib
    /// reads a tag that is not UTF-8, and GBK when they pair up as GBK does (old Chinese rips).
    package static func parse(_ bytes: [UInt8]) throws(Failure) -> CueSheet {
        guard bytes.count <= maxBytes else { throw .tooLarge }
        guard !bytes.contains(0) else { throw .binary }
        return parse(text: decode(bytes))
    }

    static func decode(_ bytes: [UInt8]) -> String {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? bytes.dropFirst(3) : bytes[...]
        if let text = String(validating: body, as: UTF8.self) { return text }
        let latin1 = String(String.UnicodeScalarView(body.map { Unicode.Scalar($0) }))
        return LegacyEncoding.recoverGBKStoredAsLatin1(latin1)
    }

    /// Parses decoded text, line by line.
    package static func parse(text: String) -> CueSheet {
        var sheet = CueSheet()
        var file: String?
        var ignoringFile = false
        /// The track being read: nil before the first, or while a non-audio track or file is skipped.
        var current: Track?
        var inTrack = false
        var lineNumber = 0

        func skip(_ reason: String) {
            sheet.skippedLines += 1
            if sheet.firstSkipped == nil { sheet.firstSkipped = "line \(lineNumber): \(reason)" }
        }
        func commit() {
            guard let track = current else { return }
            current = nil
            // A track without INDEX 01 has no place to play from.
            guard track.startFrame >= 0 else { return skip("track \(track.number) has no INDEX 01") }
            guard sheet.tracks.count < maxTracks else { return skip("more than \(maxTracks) tracks") }
            sheet.tracks.append(track)
        }

        for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }) {
            lineNumber += 1
            var line = Words(rawLine)
            guard let command = line.next() else { continue }
            switch command.uppercased() {
            case "REM":
                guard let kind = line.next()?.uppercased(), let value = line.rest() else { continue }
                guard !inTrack else {
                    current?.tags.append((kind, value))
                    continue
                }
                sheet.tags.append((kind, value))
                switch kind {
                case "DATE": sheet.date = value
                case "GENRE": sheet.genre = value
                case "COMMENT": sheet.comment = value
                default: break
                }
            case "TITLE", "PERFORMER", "SONGWRITER":
                guard let value = line.rest() else { skip("\(command) without a value"); continue }
                if inTrack {
                    guard current != nil else { continue }
                    switch command.uppercased() {
                    case "TITLE":
                        current?.title = value
                        current?.tags.append(("Title", value))
                    case "PERFORMER":
                        current?.performer = value
                        current?.tags.append(("Artist", value))
                    default: current?.songwriter = value
                    }
                } else {
                    switch command.uppercased() {
                    case "TITLE":
                        sheet.album = value
                        sheet.tags.append(("Album", value))
                    case "PERFORMER":
                        sheet.albumArtist = value
                        sheet.tags.append(("AlbumArtist", value))
                    default: break
                    }
                }
            case "FILE":
                commit()
                inTrack = false
                guard let name = line.next(), !name.isEmpty else { skip("FILE without a name"); file = nil; continue }
                // Data files are no audio; the others are decoded by content.
                let type = line.next()?.uppercased() ?? "WAVE"
                ignoringFile = type == "BINARY" || type == "MOTOROLA"
                file = String(name)
            case "TRACK":
                commit()
                inTrack = true
                guard let file, !ignoringFile else {
                    if file == nil { skip("TRACK before any FILE") }
                    continue
                }
                guard let number = line.next(), let type = line.next() else { skip("TRACK without a number and type"); continue }
                guard type.uppercased() == "AUDIO" else { continue }
                current = Track(number: String(number), file: file, startFrame: -1,
                                tags: sheet.tags + [("Track", String(number))])
            case "INDEX":
                guard current != nil else { continue }
                guard let number = line.next(), let time = line.next() else { skip("INDEX without a number and time"); continue }
                guard let index = Int(number), index >= 0, index <= 99 else { skip("INDEX number \(number)"); continue }
                guard let frame = frames(time) else { skip("INDEX time \(time)"); continue }
                // Only INDEX 01 starts a track (MPD's rule): the pregap before it ends the track before.
                guard index == 1 else { continue }
                guard current?.startFrame == -1 else { skip("a second INDEX 01 in track \(current?.number ?? "")"); continue }
                if let previous = sheet.tracks.last, previous.file == current?.file, previous.endFrame == nil {
                    guard frame > previous.startFrame else {
                        skip("track \(current?.number ?? "") starts before the track before it")
                        current = nil
                        continue
                    }
                    sheet.tracks[sheet.tracks.count - 1].endFrame = frame
                }
                current?.startFrame = frame
            default:
                // CATALOG, CDTEXTFILE, FLAGS, ISRC, PREGAP, POSTGAP: nothing MPD shows.
                continue
            }
        }
        commit()
        return sheet
    }

    /// `MM:SS:FF` in CD frames: minutes of up to 5 digits, seconds below 60, frames below 75; nil otherwise.
    static func frames(_ text: Substring) -> Int? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty && $0.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }),
              parts[0].utf8.count <= 5, parts[1].utf8.count <= 2, parts[2].utf8.count <= 2,
              let minutes = Int(parts[0]), let seconds = Int(parts[1]), let frames = Int(parts[2]),
              seconds < 60, frames < framesPerSecond else { return nil }
        return (minutes * 60 + seconds) * framesPerSecond + frames
    }

    /// Frames to milliseconds, rounded down, as MPD's song times are.
    package static func milliseconds(frames: Int) -> Int { frames * 1000 / framesPerSecond }

    /// Frames to samples at `sampleRate`, rounded down: the same rule for one track's end and the next one's
    /// start, so they meet exactly (exact at every multiple of 75 Hz: 44.1, 48, 88.2, 96 kHz ...).
    package static func samples(frames: Int, sampleRate: Int) -> Int {
        Int((Int64(frames) * Int64(sampleRate)) / Int64(framesPerSecond))
    }
}

/// A line's words as CUE sheets write them: separated by blanks, or in double quotes (no escapes).
private struct Words {
    var text: Substring

    init(_ line: Substring) { text = line }

    mutating func skipBlanks() {
        text = text.drop { $0 == " " || $0 == "\t" }
    }

    mutating func next() -> Substring? {
        skipBlanks()
        guard let first = text.first else { return nil }
        if first == "\"" {
            let body = text.dropFirst()
            guard let close = body.firstIndex(of: "\"") else {
                text = text[text.endIndex...]
                return body
            }
            text = body[body.index(after: close)...]
            return body[..<close]
        }
        let end = text.firstIndex { $0 == " " || $0 == "\t" } ?? text.endIndex
        defer { text = text[end...] }
        return text[..<end]
    }

    /// The rest of the line as one value: a quoted word, else the unquoted text to the line's end.
    mutating func rest() -> String? {
        skipBlanks()
        guard let first = text.first else { return nil }
        if first == "\"" { return next().map(String.init) }
        var value = text
        while let last = value.last, last == " " || last == "\t" { value = value.dropLast() }
        text = text[text.endIndex...]
        return value.isEmpty ? nil : String(value)
    }
}
