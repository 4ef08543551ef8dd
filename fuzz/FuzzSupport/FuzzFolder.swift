import Foundation
import XZTestSupport

/// The temporary folder a fuzzer's library lives in (removed at exit): a small music folder — three MP3s
/// with a cover, a CJK-named MP3 with an embedded picture and lyrics, a FLAC — and beside it a folder
/// named by the canary, reached by inputs through the link `outsideAlias`, that no answer may ever show.
package struct FuzzFolder: Sendable {
    /// The name inputs reach the folder outside the music folder by: a link to it, beside the music folder.
    /// The folder's own name and everything in it carry the canary, which no input holds.
    package static let outsideAlias = "outside"

    package let root: URL
    package let music: URL
    /// A word chosen at random when the process starts, never in a seed, the dictionary or an input: the
    /// name of the folder beside the music folder, its song's tags, its cover's and its file's bytes. An
    /// answer holding it shows what was read outside the music folder, never a client's own words.
    package let canary = "k" + String(UInt64.random(in: 1 << 60...UInt64.max), radix: 36)

    /// XZ_FUZZ_ROOT, else a folder named `name` and the process id in the temporary folder: one folder for
    /// every run of a session, so the absolute names of the folder beside the music folder in its corpus
    /// stay right.
    package init(name: String) throws {
        root = ProcessInfo.processInfo.environment["XZ_FUZZ_ROOT"].map { URL(fileURLWithPath: $0, isDirectory: true) }
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(getpid())")
        try? FileManager.default.removeItem(at: root)
        music = root.appendingPathComponent("music")
        try Self.makeMusic(in: music)
        try makeOutside()
    }

    package func remove() {
        try? FileManager.default.removeItem(at: root)
    }

    private func makeOutside() throws {
        let folder = root.appendingPathComponent(canary)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try AudioFixtures.makeMP3(at: folder.appendingPathComponent("song.mp3").path, seconds: 1,
                                  tags: .init(title: canary, artist: canary, album: canary))
        var cover = try Data(contentsOf: music.appendingPathComponent("album/cover.jpg"))
        cover.insert(contentsOf: Data(canary.utf8), at: 20)
        try cover.write(to: folder.appendingPathComponent("cover.jpg"))
        try Data(canary.utf8).write(to: folder.appendingPathComponent("\(canary).txt"))
        try FileManager.default.createSymbolicLink(atPath: root.appendingPathComponent(Self.outsideAlias).path,
                                                   withDestinationPath: canary)
    }

    private static func makeMusic(in music: URL) throws {
        let fm = FileManager.default
        for folder in ["album", "音乐/周杰伦", "flac"] {
            try fm.createDirectory(at: music.appendingPathComponent(folder), withIntermediateDirectories: true)
        }
        for (index, title) in ["One", "Two", "Three"].enumerated() {
            try AudioFixtures.makeMP3(at: music.appendingPathComponent("album/\(index + 1).mp3").path, seconds: 1,
                                      tags: .init(title: title, artist: "Band", album: "LP", track: index + 1, year: 1999))
        }
        // A tiny JPEG (SOI, APP0 JFIF, EOI): the picture commands hand out bytes, nobody decodes them.
        let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x10] + Array("JFIF".utf8) + [0, 1, 1, 0, 0, 1, 0, 1, 0, 0]
            + [UInt8](repeating: 0x55, count: 300) + [0xFF, 0xD9]
        try Data(jpeg).write(to: music.appendingPathComponent("album/cover.jpg"))
        try ID3Builder.makeTaggedMP3(at: music.appendingPathComponent("音乐/周杰伦/晴天.mp3").path, frames: [
            ID3Builder.text("TIT2", .utf8, Array("晴天".utf8)), ID3Builder.text("TPE1", .utf8, Array("周杰伦".utf8)),
            ID3Builder.text("TALB", .utf8, Array("叶惠美".utf8)), ID3Builder.picture(mimeType: "image/jpeg", data: jpeg),
            ID3Builder.lyrics("[00:00.50]故事的小黄花"),
        ])
        try TestProcess.runChecked("sox", ["-n", "--comment", "TITLE=Flac Tone", "-r", "44100", "-c", "2", "-b", "16",
                                           music.appendingPathComponent("flac/tone.flac").path, "synth", "1", "sine", "330"])
    }
}
