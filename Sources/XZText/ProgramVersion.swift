/// The program's version and homepage, shown by `--version` and sent in the downloader's User-Agent.
package enum XZMusicVersion {
    package static let string = "0.1.0"
    package static let homepage = "https://github.com/xzmusic/xzmusic"
}
