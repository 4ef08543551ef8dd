import Foundation
import XCTest
import XZAudio
import XZCatalogue
import XZHostCore
import XZProtocol
@testable import XZServer
import XZTestSupport
#if canImport(Glibc)
import Glibc
#endif

/// `getfingerprint` against real MPD on one folder: lossless files (16- and 24-bit FLAC, FLAC of long
/// blocks, 16-bit, 24-bit and float WAV) get MPD's string exactly, lossy ones nearly, and the failures
/// MPD's ACKs. The tone changes every quarter second at 8 kHz, so a fingerprint item comes every ~1000
/// samples and feeding a block more or less than MPD does changes the string.
final class FingerprintComparisonTests: XCTestCase {
    var folder: TemporaryFolder!
    var mpd: RealMPD?
    var host: PlayerHost!
    var server: ProtocolServer!

    override func tearDown() {
        mpd?.stop()
        server?.shutdown()
        host?.shutdown()
        folder = nil
    }

    static let lossless = ["lossless/16.flac", "lossless/24.flac", "lossless/long-blocks.flac", "lossless/mono.flac",
                           "lossless/16.wav", "lossless/24.wav", "lossless/float.wav", "lossless/short.flac"]
    static let lossy = ["lossy/v.ogg", "lossy/o.opus", "lossy/m.mp3", "lossy/a.m4a"]

    private func makeMusic() throws -> URL {
        let music = folder.url.appendingPathComponent("music")
        for sub in ["lossless", "lossy", "d.flac", "sub"] {
            try FileManager.default.createDirectory(at: music.appendingPathComponent(sub), withIntermediateDirectories: true)
        }
        func path(_ name: String) -> String { music.appendingPathComponent(name).path }
        func ffmpeg(_ arguments: [String]) throws {
            try TestProcess.runChecked("ffmpeg", ["-v", "error", "-y"] + arguments)
        }
        let tone = "0.3*sin(2*PI*(220+110*floor(mod(t*4\\,8)))*t)+0.2*sin(2*PI*(330+55*floor(mod(t*2.7\\,11)))*t)"
            + "|0.25*sin(2*PI*(440+60*floor(mod(t*3\\,9)))*t)+0.1*sin(2*PI*(97+31*floor(mod(t*5\\,13)))*t)"
        let wav = folder.path("source.wav")
        try ffmpeg(["-f", "lavfi", "-i", "aevalsrc=\(tone):s=8000:d=150", "-sample_fmt", "s16", wav])
        try TestProcess.runChecked("flac", ["-s", "-f", "-b", "4608", "-o", path("lossless/16.flac"), wav])
        try TestProcess.runChecked("flac", ["-s", "-f", "--lax", "-b", "32768", "-o", path("lossless/long-blocks.flac"), wav])
        try ffmpeg(["-i", wav, "-af", "volume=0.7", "-sample_fmt", "s32", "-c:a", "flac", path("lossless/24.flac")])
        try ffmpeg(["-i", wav, "-ac", "1", "-c:a", "flac", path("lossless/mono.flac")])
        try ffmpeg(["-i", wav, "-t", "20", "-c:a", "flac", path("lossless/short.flac")])
        try ffmpeg(["-i", wav, "-c:a", "pcm_s16le", path("lossless/16.wav")])
        try ffmpeg(["-i", wav, "-af", "volume=0.7", "-c:a", "pcm_s24le", path("lossless/24.wav")])
        try ffmpeg(["-i", wav, "-c:a", "pcm_f32le", path("lossless/float.wav")])
        try ffmpeg(["-i", wav, "-t", "130", "-c:a", "libvorbis", path("lossy/v.ogg")])
        try ffmpeg(["-i", wav, "-t", "130", "-c:a", "libopus", path("lossy/o.opus")])
        try ffmpeg(["-i", wav, "-t", "130", "-c:a", "libmp3lame", path("lossy/m.mp3")])
        try ffmpeg(["-i", wav, "-t", "130", "-c:a", "aac", path("lossy/a.m4a")])
        try Data("junk".utf8).write(to: music.appendingPathComponent("junk.flac"))
        try FileManager.default.copyItem(atPath: path("lossless/short.flac"), toPath: path("flac-named.txt"))
        return music
    }

    /// Debian's MPD 0.23 reads local files through io_uring, and its `getfingerprint` then never answers
    /// (MPD issue 2286, fixed in 0.24.4); refused io_uring, it reads them plainly. A filter on the
    /// launching process's own thread refuses `io_uring_setup`, inherited by MPD alone.
    private func startMPDWithoutIOURing(music: URL) throws -> RealMPD {
        let launcher = folder.path("no-io-uring")
        let source = folder.path("no-io-uring.c")
        try """
            #include <stddef.h>
            #include <errno.h>
            #include <unistd.h>
            #include <sys/prctl.h>
            #include <linux/seccomp.h>
            #include <linux/filter.h>
            int main(int argc, char **argv) {
                struct sock_filter code[] = {
                    BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
                    BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 425, 0, 1),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
                    BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
                };
                struct sock_fprog program = { 4, code };
                if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program)) return 126;
                execvp(argv[1], argv + 1);
                return 127;
            }
            """.write(toFile: source, atomically: true, encoding: .utf8)
        // The Swift toolchain's clang is there wherever the tests build; a system cc may not be.
        let compiler = try (try? TestProcess.which("cc")) ?? TestProcess.which("clang")
        try TestProcess.runChecked(compiler, ["-o", launcher, source])
        return try RealMPD(folder: folder, music: music, playlists: folder.path("mpd-playlists"), launcher: launcher)
    }

    func testFingerprintsAndFailuresAreMPDs() throws {
        folder = try TemporaryFolder("fingerprint")
        let music = try makeMusic()
        mpd = try startMPDWithoutIOURing(music: music)
        let library = LibraryFolder(url: folder.url.appendingPathComponent("library"))
        host = PlayerHost(folder: library, database: try library.open(seedingDemoFrom: nil), output: .null,
                          musicDirectory: music) { _ in }
        server = ProtocolServer(host: host, password: nil)
        let port = try server.listen(host: "127.0.0.1", port: 0)
        let ours = try MPDClient.connect(host: "127.0.0.1", port: port)
        let theirs = try mpd!.connect()

        for song in Self.lossless {
            let expected = RealMPD.answer(theirs, "getfingerprint \"\(song)\"")
            XCTAssertEqual(expected.first?.hasPrefix("chromaprint: AQA"), true, "\(song): \(expected)")
            XCTAssertEqual(RealMPD.answer(ours, "getfingerprint \"\(song)\""), expected, song)
        }
        // Lossy files: other decoders than MPD's for some (libmpg123 for its libmad, which starts the
        // audio a little elsewhere), so nearly the same fingerprint once aligned; printed for the record.
        for song in Self.lossy {
            let expected = try XCTUnwrap(RealMPD.answer(theirs, "getfingerprint \"\(song)\"").first)
            let got = try XCTUnwrap(RealMPD.answer(ours, "getfingerprint \"\(song)\"").first)
            let (mpds, ourPrint) = (String(expected.dropFirst(13)), String(got.dropFirst(13)))
            let similarity = try XCTUnwrap(AudioFingerprint.similarity(mpds, ourPrint), "\(song): \(expected) / \(got)")
            let aligned = try XCTUnwrap(AudioFingerprint.similarity(mpds, ourPrint, shift: 8))
            print("fingerprint of \(song) against MPD's: equal \(expected == got), bits alike "
                  + String(format: "%.4f, aligned %.4f", similarity, aligned))
            XCTAssertGreaterThan(aligned, 0.95, song)
        }
        // Every failure MPD's ACK, word for word (outside any command, as MPD's background commands).
        for name in ["missing.flac", "junk.flac", "d.flac", "sub", "sub/", "", "noext", "flac-named.txt",
                     "/etc/passwd", "file:///etc/passwd", "foo://x"] {
            XCTAssertEqual(RealMPD.answer(ours, "getfingerprint \"\(name)\""), RealMPD.answer(theirs, "getfingerprint \"\(name)\""), name)
        }
        XCTAssertEqual(RealMPD.answer(ours, "getfingerprint"), RealMPD.answer(theirs, "getfingerprint"))
        // MPD opens a name that climbs out of its folder (`../x.flac`); the host refuses it, and a catalogue
        // name of no song.
        for name in ["../music/lossless/16.flac", "xzmusic-catalogue/x.flac"] {
            XCTAssertEqual(RealMPD.answer(ours, "getfingerprint \"\(name)\"").first?.hasPrefix("ACK 50 {getfingerprint}"), true, name)
        }
        // A station is not listened to for two minutes.
        XCTAssertEqual(RealMPD.answer(ours, "getfingerprint \"http://127.0.0.1:1/x.mp3\""),
                       ["ACK 2 {getfingerprint} Unsupported URI scheme"])

        // Decoding stops at the request's budget (here none at all), and the connection goes on.
        var limits = ServerLimits()
        limits.requestBudget = .zero
        let hurried = ProtocolServer(host: host, password: nil, limits: limits)
        defer { hurried.shutdown() }
        let rushed = try MPDClient.connect(host: "127.0.0.1", port: try hurried.listen(host: "127.0.0.1", port: 0))
        XCTAssertEqual(RealMPD.answer(rushed, "getfingerprint lossless/16.flac"),
                       ["ACK 52 {getfingerprint} the request took longer than its time budget"])
        XCTAssertEqual(RealMPD.answer(rushed, "ping"), [])
    }
}
