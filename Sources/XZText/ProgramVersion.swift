/// The program's version and homepage, shown by `--version` and sent in the downloader's User-Agent.
public enum XZMusicVersion {
    public static let string = "0.1.0"
    public static let homepage = "https://github.com/xzmusic/xzmusic"
}
