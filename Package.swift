// swift-tools-version:6.0
import PackageDescription

// Layers, lowest first. A target may depend only on targets listed above it.
let package = Package(
    name: "XZMusic",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "xzmusic", targets: ["xzmusic"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
    ],
    targets: [
        .systemLibrary(name: "CMPG123", pkgConfig: "libmpg123",
                       providers: [.apt(["libmpg123-dev"])]),
        .systemLibrary(name: "CAO", pkgConfig: "ao",
                       providers: [.apt(["libao-dev"])]),
        .systemLibrary(name: "CEditLine", pkgConfig: "libedit",
                       providers: [.apt(["libedit-dev"])]),

        // Terminal-safe text, display width, legacy encodings.
        .target(name: "XZText"),
        // MP3 decoding and tag reading through libmpg123.
        .target(name: "XZAudio", dependencies: ["CMPG123", "XZText"]),
        // The SQLite catalogue: schema, import, search.
        .target(name: "XZCatalogue", dependencies: [
            "XZText", "XZAudio", .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // Likes, play sessions and counts.
        .target(name: "XZStats", dependencies: ["XZCatalogue", .product(name: "GRDB", package: "GRDB.swift")]),
        // LRC parsing and the lyric timeline.
        .target(name: "XZLyrics", dependencies: ["XZText"]),
        // libao output and the player.
        .target(name: "XZPlayback", dependencies: ["CAO", "XZAudio", "XZLyrics"]),
        // Song and lyric downloads.
        .target(name: "XZDownloader", dependencies: [
            "XZText", "XZCatalogue", "XZAudio",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        // The MPD protocol as plain values: requests, responses, sessions, the command table, and the host
        // that owns a library's player.
        .target(name: "XZProtocol", dependencies: [
            "XZText", "XZAudio", "XZCatalogue", "XZStats", "XZLyrics", "XZPlayback",
        ]),
        // Sockets: the host's listeners (SwiftNIO), finding a running host, and the client of one.
        .target(name: "XZServer", dependencies: [
            "XZText", .product(name: "NIOCore", package: "swift-nio"),
            "XZCatalogue", .product(name: "NIOPosix", package: "swift-nio"),
            "XZPlayback", "XZProtocol",
        ]),
        // Commands shared by the one-shot CLI and the REPL.
        .target(name: "XZCommands", dependencies: [
            "XZText", "XZAudio", "XZCatalogue", "XZStats", "XZLyrics", "XZPlayback", "XZDownloader",
            "XZProtocol", "XZServer",
            "CEditLine",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "xzmusic", dependencies: ["XZCommands"]),
        // Benchmarks against same-run baselines (make bench-*); not part of make test.
        .executableTarget(name: "xzmusic-bench", dependencies: [
            "XZCatalogue", "XZAudio", "XZPlayback", "XZTestSupport", .product(name: "GRDB", package: "GRDB.swift"),
        ]),

        .target(name: "XZTestSupport", path: "Tests/XZTestSupport"),
        .testTarget(name: "XZTextTests", dependencies: ["XZText"]),
        .testTarget(name: "XZAudioTests", dependencies: ["XZAudio", "XZTestSupport"]),
        .testTarget(name: "XZCatalogueTests", dependencies: ["XZCatalogue", "XZTestSupport"]),
        .testTarget(name: "XZStatsTests", dependencies: ["XZStats", "XZText", "XZTestSupport"]),
        .testTarget(name: "XZLyricsTests", dependencies: ["XZLyrics"]),
        .testTarget(name: "XZPlaybackTests", dependencies: ["XZPlayback", "XZAudio", "XZLyrics", "XZTestSupport"]),
        .testTarget(name: "XZDownloaderTests", dependencies: ["XZDownloader", "XZText", "XZTestSupport"]),
        .testTarget(name: "XZProtocolTests", dependencies: ["XZProtocol", "XZPlayback", "XZCatalogue", "XZTestSupport"]),
        .testTarget(name: "XZServerTests", dependencies: ["XZServer", "XZProtocol", "XZCatalogue", "XZTestSupport"]),
        .testTarget(name: "XZCommandsTests", dependencies: ["XZCommands", "XZTestSupport"]),
    ],
    swiftLanguageModes: [.v5]
)
