// swift-tools-version:6.0
import PackageDescription

/// A product of one of the package dependencies below.
func product(_ name: String, _ package: String) -> Target.Dependency { .product(name: name, package: package) }

// Layers, lowest first. A target may depend only on targets listed above it.
// Linux only: the code calls Glibc directly, so no Apple platform is claimed.
let package = Package(
    name: "XZMusic",
    products: [
        .executable(name: "xzmusic", targets: ["xzmusic"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    ],
    targets: [
        .systemLibrary(name: "CMPG123", pkgConfig: "libmpg123",
                       providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CAO", pkgConfig: "ao",
                       providers: [.apt(["libao-dev"])]),
        .systemLibrary(name: "CEditLine", pkgConfig: "libedit",
                       providers: [.apt(["libedit-dev"])]),
        .systemLibrary(name: "CFLAC", pkgConfig: "flac", providers: [.apt(["libflac-dev"])]),
        .systemLibrary(name: "CVorbisFile", pkgConfig: "vorbisfile", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "COpusFile", pkgConfig: "opusfile", providers: [.apt(["libopusfile-dev"])]),
        // The encoders of the HTTP stream output: libopusenc, libvorbisenc, libmp3lame (no pkg-config file).
        .systemLibrary(name: "COpusEnc", pkgConfig: "libopusenc", providers: [.apt(["libopusenc-dev"])]),
        .systemLibrary(name: "CVorbisEnc", pkgConfig: "vorbisenc", providers: [.apt(["libvorbis-dev"])]),
        .systemLibrary(name: "CLame", providers: [.apt(["libmp3lame-dev"])]),
        // FFmpeg's headers, and its functions loaded on first use (see ffmpeg_loader.h).
        .target(name: "CFFmpegLoader", linkerSettings: [.linkedLibrary("dl")]),
        // Avahi's client library: the host announced to phones with Zeroconf through avahi-daemon; loaded on
        // first use (see avahi_loader.c), so one-shot commands never map it and libdbus.
        .target(name: "CAvahiClient", linkerSettings: [.linkedLibrary("dl")]),
        .systemLibrary(name: "CEBUR128", pkgConfig: "libebur128", providers: [.apt(["libebur128-dev"])]),
        // Chromaprint's header, and its functions loaded on first use (see chromaprint_loader.h): the
        // audio fingerprints of MPD's `getfingerprint`.
        .target(name: "CChromaprint", linkerSettings: [.linkedLibrary("dl")]),
        // sd-bus (libsystemd): the session bus for MPRIS, loaded on first use (see systemd_loader.c).
        .target(name: "CSystemdBus", linkerSettings: [.linkedLibrary("dl")]),
        // PCRE2, MPD's regular expressions, with its match limits.
        .systemLibrary(name: "CPCRE2", pkgConfig: "libpcre2-8", providers: [.apt(["libpcre2-dev"])]),
        // ICU's root collation (libicu-dev's headers), the order MPD gives names; ICU is loaded on first use.
        .target(name: "CCollation", linkerSettings: [.linkedLibrary("dl")]),
        // libxml2's SAX parser for XSPF playlists, loaded on first use (see xml_reader.h).
        .target(name: "CXMLReader", cSettings: [.unsafeFlags(["-I/usr/include/libxml2"])], linkerSettings: [.linkedLibrary("dl")]),
        // TagLib's C++ API behind a plain C header, so no Swift target needs C++ interop.
        .target(name: "CTagLibShim", linkerSettings: [.linkedLibrary("tag"), .linkedLibrary("z"), .linkedLibrary("stdc++")]),

        // Terminal-safe text, display width, legacy encodings.
        .target(name: "XZText"),
        // What the program needs from the operating system: files written whole, the config file, work
        // handed to a thread of its own.
        .target(name: "XZSystem"),
        // Zeroconf: services announced through avahi-daemon on Avahi's own thread.
        .target(name: "XZZeroconf", dependencies: ["CAvahiClient", "XZSystem"]),
        // The decoder seam: every format's decoder chosen by content, tags through TagLib, loudness, fingerprints.
        .target(name: "XZAudio", dependencies: [
            "CMPG123", "CFLAC", "CVorbisFile", "COpusFile", "CFFmpegLoader", "CEBUR128", "CChromaprint", "CTagLibShim", "XZText", "XZSystem",
        ]),
        // The SQLite catalogue: schema, feed import, search; MPD's filter, order, naming and stored
        // playlists in MPDSemantics/.
        .target(name: "XZCatalogue", dependencies: [
            "CCollation", "CPCRE2", "CXMLReader", "XZSystem", product("GRDB", "GRDB.swift"), product("GRDBSQLite", "GRDB.swift"),
        ]),
        // A music folder's files into the catalogue, their tags and loudness read through the decoders.
        .target(name: "XZFolderScan", dependencies: ["XZSystem", "XZAudio", "XZCatalogue"]),
        // Likes, play sessions and counts.
        .target(name: "XZStats", dependencies: [
            "XZText", "XZSystem", "XZCatalogue", product("GRDB", "GRDB.swift"),
        ]),
        // The library's users: accounts, passwords sealed at rest under the library's key, API keys; each
        // user's play queue and bookmarks.
        .target(name: "XZAccounts", dependencies: [
            "XZText", "XZSystem", "XZCatalogue", "XZStats", product("Crypto", "swift-crypto"), product("GRDB", "GRDB.swift"),
        ]),
        // LRC parsing and the lyric timeline.
        .target(name: "XZLyrics", dependencies: ["XZText"]),
        // PCM to a stream's bytes (MPD's encoders): Opus, Vorbis, LAME, FLAC, WAVE.
        .target(name: "XZEncoders", dependencies: ["XZSystem", "XZAudio", "COpusEnc", "CVorbisEnc", "CLame", "CFLAC"]),
        // The player's words, without the player: queue items, outputs, seek targets, modes, events, errors.
        .target(name: "XZPlaybackValues", dependencies: ["XZSystem", "XZAudio"]),
        // libao output and the player.
        .target(name: "XZPlaybackEngine", dependencies: [
            "CAO", "XZAudio", "XZLyrics", "XZSystem", "XZPlaybackValues", product("SystemPackage", "swift-system"),
        ]),
        // MPD's httpd output: what plays, encoded, to HTTP listeners (SwiftNIO), with ICY titles.
        .target(name: "XZStreamOutput", dependencies: [
            "XZSystem", "XZAudio", "XZEncoders", "XZPlaybackEngine", "XZPlaybackValues",
            product("NIOCore", "swift-nio"), product("NIOPosix", "swift-nio"), product("NIOHTTP1", "swift-nio"),
        ]),
        // Song and lyric downloads.
        .target(name: "XZDownloader", dependencies: [
            "XZText", "XZSystem", "XZCatalogue", "XZAudio", "XZFolderScan",
            product("AsyncHTTPClient", "async-http-client"), product("NIOCore", "swift-nio"), product("NIOPosix", "swift-nio"),
            product("NIOHTTP1", "swift-nio"), product("Crypto", "swift-crypto"), product("GRDB", "GRDB.swift"),
            product("SystemPackage", "swift-system"),
        ]),
        // The application core: one library's player, catalogue, statistics and folder updates, and the
        // changes its observers hear.
        .target(name: "XZHostCore", dependencies: ["XZSystem", "XZAudio", "XZCatalogue", "XZFolderScan", "XZStats", "XZPlaybackEngine", "XZPlaybackValues"]),
        // The host on the session bus as an MPRIS media player (media keys, desktop widgets, playerctl).
        .target(name: "XZMPRIS", dependencies: [
            "CSystemdBus", "XZSystem", "XZAudio", "XZCatalogue", "XZLyrics", "XZPlaybackEngine", "XZPlaybackValues", "XZHostCore",
        ]),
        // The MPD protocol's wire format as plain values: requests, arguments, responses, ACKs.
        .target(name: "XZProtocol", dependencies: ["XZSystem"]),
        // MPD's command table over the host, and one connection's protocol state.
        .target(name: "XZMPDCommands", dependencies: [
            "XZSystem", "XZProtocol", "XZHostCore", "XZAudio", "XZCatalogue", "XZStats", "XZPlaybackEngine", "XZPlaybackValues",
        ]),
        // Sockets: the host's listeners (SwiftNIO), finding a running host, and the client of one.
        .target(name: "XZServer", dependencies: [
            "XZSystem", "XZCatalogue", "XZProtocol", "XZHostCore", "XZMPDCommands",
            product("NIOCore", "swift-nio"), product("NIOPosix", "swift-nio"),
        ]),
        // The OpenSubsonic API over the host as plain values: requests, authentication, the endpoint table,
        // responses in XML and JSON, media (files, transcodes, covers); no HTTP.
        .target(name: "XZSubsonicAPI", dependencies: [
            "XZText", "XZSystem", "XZAudio", "XZCatalogue", "XZStats", "XZAccounts", "XZLyrics", "XZEncoders",
            "XZPlaybackValues", "XZHostCore", "CFFmpegLoader", product("GRDB", "GRDB.swift"),
        ]),
        // The OpenSubsonic API on HTTP (Hummingbird): `/rest/NAME[.view]` by GET and form POST, bodies streamed.
        .target(name: "XZSubsonicServer", dependencies: [
            "XZSystem", "XZSubsonicAPI", product("Hummingbird", "hummingbird"), product("HummingbirdCore", "hummingbird"),
            product("NIOCore", "swift-nio"), product("NIOPosix", "swift-nio"),
        ]),
        // Host assembly and its door: one call starts a library's host from its configuration, and the one
        // client of the command table the prompt and the CLI drive a host by.
        .target(name: "XZHostAssembly", dependencies: [
            "XZSystem", "XZCatalogue", "XZPlaybackEngine", "XZPlaybackValues", "XZDownloader", "XZHostCore", "XZProtocol", "XZMPDCommands", "XZServer",
            "XZMPRIS", "XZZeroconf", "XZStreamOutput", "XZAccounts", "XZSubsonicAPI", "XZSubsonicServer",
        ]),
        // Commands shared by the one-shot CLI and the REPL.
        .target(name: "XZCommands", dependencies: [
            "XZText", "XZSystem", "XZCatalogue", "XZFolderScan", "XZStats", "XZLyrics", "XZPlaybackValues", "XZDownloader",
            "XZHostCore", "XZProtocol", "XZHostAssembly", "XZAccounts",
            "CEditLine",
            product("ArgumentParser", "swift-argument-parser"),
        ]),
        .executableTarget(name: "xzmusic", dependencies: ["XZCommands"]),
        // Benchmarks against same-run baselines (make bench-*); not part of make test.
        .executableTarget(name: "xzmusic-bench", dependencies: [
            "XZSystem", "XZCatalogue", "XZAudio", "XZLyrics", "XZPlaybackEngine", "XZPlaybackValues", "XZDownloader", "XZHostCore", "XZCommands", "XZTestSupport",
            "XZEncoders", "COpusFile",
            product("GRDB", "GRDB.swift"), product("NIOCore", "swift-nio"), product("NIOPosix", "swift-nio"),
        ]),
        // The bench's floor for a one-shot client: swift-argument-parser and one request, nothing else.
        .executableTarget(name: "xzmusic-floor-client", dependencies: [product("ArgumentParser", "swift-argument-parser")]),

        // What both fuzzers share: the program's modes (libFuzzer, replay, seeds) and the fuzzed music folder.
        .target(name: "XZFuzzSupport", dependencies: ["XZSystem", "XZTestSupport"], path: "fuzz/FuzzSupport"),
        // The MPD protocol fuzzer (make fuzz-protocol); built without libFuzzer it replays inputs.
        .executableTarget(name: "xzmusic-protocol-fuzz", dependencies: [
            "XZSystem", "XZCatalogue", "XZHostCore", "XZPlaybackEngine", "XZProtocol", "XZMPDCommands", "XZFuzzSupport",
        ], path: "fuzz/ProtocolFuzz"),
        // The Subsonic API fuzzer (make fuzz-subsonic); built without libFuzzer it replays inputs.
        .executableTarget(name: "xzmusic-subsonic-fuzz", dependencies: [
            "XZSystem", "XZCatalogue", "XZHostCore", "XZAccounts", "XZSubsonicAPI", "XZSubsonicServer", "XZFuzzSupport",
            product("Crypto", "swift-crypto"),
        ], path: "fuzz/SubsonicFuzz"),

        .target(name: "XZTestSupport", path: "Tests/XZTestSupport"),
        // The optional public corpora: found, or the test is skipped (XCTest, which the bench must not link).
        .target(name: "XZCorpusTestSupport", dependencies: ["XZTestSupport"], path: "Tests/XZCorpusTestSupport"),
        // A catalogue in a temporary folder, for the tests of the catalogue and of what fills it.
        .target(name: "XZCatalogueTestSupport", dependencies: ["XZCatalogue", "XZTestSupport"], path: "Tests/XZCatalogueTestSupport"),
        .testTarget(name: "XZTextTests", dependencies: ["XZText"]),
        .testTarget(name: "XZAudioTests", dependencies: ["XZAudio", "COpusFile", "XZSystem", "XZTestSupport", "XZCorpusTestSupport"]),
        .testTarget(name: "XZCatalogueTests", dependencies: [
            "XZCatalogue", "XZCatalogueTestSupport", "XZFolderScan", "XZSystem", "XZTestSupport", "XZCorpusTestSupport",
            product("GRDB", "GRDB.swift"),
        ]),
        .testTarget(name: "XZFolderScanTests", dependencies: [
            "XZFolderScan", "XZCatalogue", "XZCatalogueTestSupport", "XZSystem", "XZTestSupport", product("GRDB", "GRDB.swift"),
        ]),
        .testTarget(name: "XZStatsTests", dependencies: [
            "XZStats", "XZCatalogue", "XZFolderScan", "XZTestSupport", product("GRDB", "GRDB.swift"),
        ]),
        .testTarget(name: "XZAccountsTests", dependencies: [
            "XZAccounts", "XZStats", "XZCatalogue", "XZSystem", "XZTestSupport", product("GRDB", "GRDB.swift"), product("Crypto", "swift-crypto"),
        ]),
        .testTarget(name: "XZLyricsTests", dependencies: ["XZLyrics", "XZTestSupport", "XZCorpusTestSupport"]),
        .testTarget(name: "XZPlaybackEngineTests", dependencies: ["XZPlaybackEngine", "XZPlaybackValues", "XZAudio", "XZLyrics", "XZSystem", "XZTestSupport"]),
        .testTarget(name: "XZEncodersTests", dependencies: ["XZEncoders", "XZAudio", "XZTestSupport"]),
        .testTarget(name: "XZStreamOutputTests", dependencies: [
            "XZStreamOutput", "XZEncoders", "XZPlaybackEngine", "XZPlaybackValues", "XZAudio", "XZSystem", "XZTestSupport",
        ]),
        .testTarget(name: "XZDownloaderTests", dependencies: [
            "XZDownloader", "XZCatalogue", "XZSystem", "XZAudio", "XZPlaybackEngine", "XZPlaybackValues", "XZTestSupport", product("GRDB", "GRDB.swift"),
        ]),
        .testTarget(name: "XZHostCoreTests", dependencies: [
            "XZHostCore", "XZCatalogue", "XZFolderScan", "XZPlaybackValues", "XZStats", "XZSystem", "XZTestSupport",
            product("GRDB", "GRDB.swift"),
        ]),
        .testTarget(name: "XZProtocolTests", dependencies: ["XZProtocol"]),
        .testTarget(name: "XZMPDCommandsTests", dependencies: [
            "XZMPDCommands", "XZHostCore", "XZProtocol", "XZPlaybackValues", "XZAudio", "XZCatalogue", "XZTestSupport",
        ]),
        .testTarget(name: "XZServerTests", dependencies: [
            "XZServer", "XZMPDCommands", "XZHostCore", "XZProtocol", "XZCatalogue", "XZStats", "XZTestSupport", "XZPlaybackEngine", "XZPlaybackValues",
            "XZSystem", "XZAudio", "XZHostAssembly",
        ]),
        .testTarget(name: "XZHostAssemblyTests", dependencies: [
            "XZHostAssembly", "XZHostCore", "XZServer", "XZMPDCommands", "XZProtocol", "XZCatalogue", "XZPlaybackEngine", "XZSystem",
            "XZTestSupport", "XZZeroconf",
        ]),
        .testTarget(name: "XZSubsonicAPITests", dependencies: [
            "XZSubsonicAPI", "XZAccounts", "XZStats", "XZCatalogue", "XZHostCore", "XZSystem", "XZTestSupport", "XZFolderScan",
            "XZMPDCommands", "XZPlaybackValues", "XZAudio", product("GRDB", "GRDB.swift"),
        ]),
        .testTarget(name: "XZSubsonicServerTests", dependencies: [
            "XZSubsonicServer", "XZSubsonicAPI", "XZAccounts", "XZHostAssembly", "XZHostCore", "XZCatalogue", "XZSystem", "XZTestSupport",
            product("Crypto", "swift-crypto"),
        ]),
        .testTarget(name: "XZMPRISTests", dependencies: [
            "XZMPRIS", "XZHostAssembly", "XZHostCore", "XZServer", "XZCatalogue", "XZSystem", "XZTestSupport", "CSystemdBus",
        ]),
        .testTarget(name: "XZCommandsTests", dependencies: [
            "XZCommands", "XZDownloader", "XZStats", "XZTestSupport", "XZText", "XZSystem", "XZHostAssembly", "XZPlaybackEngine", "XZPlaybackValues",
            "XZCatalogue", "XZProtocol", "XZServer", "XZAudio", "XZEncoders", "XZHostCore", "XZMPRIS", "XZStreamOutput", "XZAccounts",
            product("ArgumentParser", "swift-argument-parser"),
        ]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
