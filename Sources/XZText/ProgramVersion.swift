/// The program's version, shown by `--version` and sent in the downloader's User-Agent.
package enum XZMusicVersion {
    package static let string = "0.1.0"
}
