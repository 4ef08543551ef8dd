/// Every key of the config file, declared once: name, the values it takes, default, what it sets, who
/// reads it. MPD's names where MPD has the setting. `xzmusic config` lists them with their values, and
/// the README's table of keys is `xzmusic config --markdown`.
extension ConfigKey {
    // The host (`serve`, a prompt that hosts).
    package static let port = ConfigKey("port", .wholeNumber(0...65535, unit: nil), .value("6600"), "TCP port `serve` listens on", readBy: .host)
    package static let bindToAddress = ConfigKey("bind_to_address", .text(allowsEmpty: false), .value("127.0.0.1"), "address `serve` listens on; any but loopback needs a password", readBy: .host)
    package static let password = ConfigKey("password", .secret, .unset("none"), "what a client sends before any other command", readBy: .host)
    package static let musicDirectory = ConfigKey("music_directory", .path(orNone: false), .environment("XDG_MUSIC_DIR", otherwise: "~/Music"), "the music folder: its files are songs, named by their path in it", readBy: .host)
    package static let stateFile = ConfigKey("state_file", .path(orNone: true), .unset("`host.state` in the library folder"), "where the host keeps its queue and player state; `none` keeps nothing", readBy: .host)
    package static let restorePaused = ConfigKey("restore_paused", .yesNo, .value("yes"), "music playing when the host stopped comes back paused", readBy: .host)
    package static let maxPlaylistLength = ConfigKey("max_playlist_length", .wholeNumber(1...Int(Int32.max), unit: "songs"), .value("16384"), "most songs the queue or a stored playlist holds", readBy: .host)
    package static let requestTimeBudget = ConfigKey("request_time_budget", .number(0.001...86_400, unit: "seconds"), .value("10"), "longest a request or command list runs before it is cancelled with an error", readBy: .host)
    package static let maxCommandListSize = ConfigKey("max_command_list_size", .wholeNumber(1...1_048_576, unit: "KiB"), .value("2048"), "largest command list a client may send", readBy: .host)
    package static let maxOutputBufferSize = ConfigKey("max_output_buffer_size", .wholeNumber(1...1_048_576, unit: "KiB"), .value("8192"), "largest answer, or unread output, a client may make the host hold", readBy: .host)
    package static let mpris = ConfigKey("mpris", .yesNo, .value("yes"), "the host shows itself on the session bus over MPRIS (media keys, desktop widgets, playerctl)", readBy: .host)
    package static let zeroconfEnabled = ConfigKey("zeroconf_enabled", .yesNo, .value("yes"), "phones' MPD clients find the host through avahi-daemon (not when it listens on loopback only)", readBy: .host)
    package static let zeroconfName = ConfigKey("zeroconf_name", .text(allowsEmpty: false), .value("Music Player @ %h"), "the name the host is announced by; `%h`: this machine's name", readBy: .host)

    // The Subsonic API (`serve`, a prompt that hosts), for phones' Subsonic apps.
    package static let subsonicPort = ConfigKey("subsonic_port", .wholeNumber(0...65535, unit: nil), .unset("off"), "TCP port the Subsonic API listens on; the API is off without it", readBy: .host)
    package static let subsonicBindToAddress = ConfigKey("subsonic_bind_to_address", .text(allowsEmpty: false), .value("127.0.0.1"), "address the Subsonic API listens on; any is allowed, as every request is authenticated", readBy: .host)
    package static let subsonicMaxTranscodes = ConfigKey("subsonic_max_transcodes", .wholeNumber(1...256, unit: nil), .value("8"), "transcoded streams the Subsonic API makes at once; one more is refused", readBy: .host)
    package static let subsonicTranscodeCache = ConfigKey("subsonic_transcode_cache", .wholeNumber(0...(1 << 42), unit: "bytes"), .value("1073741824"), "transcoded streams kept on disk for the next request of the same song and format; 0 keeps none", readBy: .host)
    package static let subsonicCoverCache = ConfigKey("subsonic_cover_cache", .wholeNumber(0...(1 << 40), unit: "bytes"), .value("268435456"), "resized cover art kept on disk; 0 keeps none", readBy: .host)

    // The music folder's watch.
    package static let autoUpdate = ConfigKey("auto_update", .yesNo, .value("yes"), "files changed in the music folder reach the library by themselves", readBy: .libraryWatch)
    package static let autoUpdateDepth = ConfigKey("auto_update_depth", .wholeNumber(0...Int(Int32.max), unit: "folder levels"), .unset("every level"), "folder levels below the music folder that are watched; 0: the folder alone", readBy: .libraryWatch)

    // Playback.
    package static let replayGainMode = ConfigKey("replay_gain_mode", .choice(["off", "track", "album", "auto"]), .value("off"), "which ReplayGain applies; `auto`: track in random mode, else album", readBy: .replayGain)
    package static let replayGainPreamp = ConfigKey("replaygain_preamp", .number(-15...15, unit: "dB"), .value("0"), "added to every song's ReplayGain", readBy: .replayGain)
    package static let replayGainMissingPreamp = ConfigKey("replaygain_missing_preamp", .number(-15...15, unit: "dB"), .value("0"), "the gain of songs without ReplayGain", readBy: .replayGain)
    package static let replayGainLimit = ConfigKey("replaygain_limit", .yesNo, .value("yes"), "a gain never pushes a song's peak past full scale", readBy: .replayGain)
    package static let crossfadeSkipAlbums = ConfigKey("crossfade_skip_albums", .yesNo, .value("no"), "consecutive songs of one album join gaplessly instead of fading", readBy: .crossfade)
    package static let crossfadeOnSkip = ConfigKey("crossfade_on_skip", .yesNo, .value("no"), "fade only when the user moves on; songs that end join gaplessly", readBy: .crossfade)

    // Downloads, streams, lyrics lookups, open catalogues.
    package static let concurrency = ConfigKey("concurrency", .wholeNumber(1...32, unit: nil), .value("3"), "downloads at once", readBy: .downloads)
    package static let retries = ConfigKey("retries", .wholeNumber(0...100, unit: nil), .value("5"), "further attempts after a failure that may pass", readBy: .downloads)
    package static let timeout = ConfigKey("timeout", .number(0.001...3600, unit: "seconds"), .value("30"), "seconds without data before an attempt is given up", readBy: .downloads)
    package static let minRate = ConfigKey("min_rate", .wholeNumber(0...(1 << 30), unit: "bytes a second"), .value("1024"), "a slower transfer (over `min_rate_window`) counts as timed out; 0: off", readBy: .downloads)
    package static let minRateWindow = ConfigKey("min_rate_window", .number(1...3600, unit: "seconds"), .value("30"), "seconds over which `min_rate` is averaged", readBy: .downloads)
    package static let maxDownloadSize = ConfigKey("max_download_size", .wholeNumber((1 << 20)...(1 << 40), unit: "bytes"), .value("2147483648"), "a download of no announced size stops here", readBy: .downloads)
    package static let onlineCache = ConfigKey("online_cache", .choice(["keep", "none"]), .value("keep"), "whether a catalogue song played online is kept offline", readBy: .downloads)
    package static let prebuffer = ConfigKey("prebuffer", .number(0...60, unit: "seconds of audio"), .value("1"), "audio a stream buffers before it plays", readBy: .downloads)
    package static let streamBuffer = ConfigKey("stream_buffer", .wholeNumber((64 << 10)...(1 << 30), unit: "bytes"), .value("4194304"), "memory held for a stream of no announced length (radio)", readBy: .downloads)
    package static let lyricsServer = ConfigKey("lyrics_server", .httpURL, .value("https://lrclib.net"), "an LRCLIB-compatible lyrics server", readBy: .downloads)
    package static let lyricsConcurrency = ConfigKey("lyrics_concurrency", .wholeNumber(1...8, unit: nil), .value("2"), "lyrics lookups at once", readBy: .downloads)
    package static let lyricsMissDays = ConfigKey("lyrics_miss_days", .number(0...3650, unit: "days"), .value("30"), "days a lookup that found nothing is not asked again", readBy: .downloads)
    package static let lyricsSidecar = ConfigKey("lyrics_sidecar", .yesNo, .value("no"), "fetched lyrics are also written as `.lrc` beside the song", readBy: .downloads)
    package static let archiveURL = ConfigKey("archive_url", .httpURL, .value("https://archive.org"), "the Internet Archive `catalogue search archive` asks", readBy: .downloads)
    package static let jamendoURL = ConfigKey("jamendo_url", .httpURL, .value("https://api.jamendo.com"), "Jamendo's API", readBy: .downloads)
    package static let jamendoClientID = ConfigKey("jamendo_client_id", .text(allowsEmpty: true), .unset("none"), "the client id Jamendo's API wants", readBy: .downloads)
    package static let ccmixterURL = ConfigKey("ccmixter_url", .httpURL, .value("https://ccmixter.org"), "ccMixter's API", readBy: .downloads)
    package static let userAgentContact = ConfigKey("user_agent_contact", .text(allowsEmpty: true), .unset("none"), "how servers' operators may reach you (an email or URL), sent in the User-Agent", readBy: .downloads)

    /// The table, in the order `xzmusic config` and the README list it.
    package static let all: [ConfigKey] = [
        .port, .bindToAddress, .password, .musicDirectory, .stateFile, .restorePaused, .maxPlaylistLength,
        .requestTimeBudget, .maxCommandListSize, .maxOutputBufferSize, .mpris, .zeroconfEnabled, .zeroconfName,
        .subsonicPort, .subsonicBindToAddress, .subsonicMaxTranscodes, .subsonicTranscodeCache, .subsonicCoverCache,
        .autoUpdate, .autoUpdateDepth,
        .replayGainMode, .replayGainPreamp, .replayGainMissingPreamp, .replayGainLimit, .crossfadeSkipAlbums, .crossfadeOnSkip,
        .concurrency, .retries, .timeout, .minRate, .minRateWindow, .maxDownloadSize, .onlineCache, .prebuffer, .streamBuffer,
        .lyricsServer, .lyricsConcurrency, .lyricsMissDays, .lyricsSidecar,
        .archiveURL, .jamendoURL, .jamendoClientID, .ccmixterURL, .userAgentContact,
    ]

    /// Settings of MPD 0.23's `mpd.conf` that XZMusic does not read: a line setting one is told as MPD's
    /// and ignored, not taken for a misspelling. Where XZMusic has the setting under another name, that name.
    package static let mpdOnly: [String: String?] = [
        "replaygain": "replay_gain_mode",
        "decoder": nil, "input": nil, "input_cache": nil, "playlist_plugin": nil, "resampler": nil,
        "audio_filter": nil, "database": nil, "neighbors": nil, "partition": nil, "include": nil, "include_optional": nil,
        "playlist_directory": nil, "follow_inside_symlinks": nil, "follow_outside_symlinks": nil, "db_file": nil,
        "sticker_file": nil, "log_file": nil, "pid_file": nil, "state_file_interval": nil, "user": nil, "group": nil,
        "log_level": nil, "host_permissions": nil, "local_permissions": nil,
        "default_permissions": nil, "audio_output_format": nil, "mixer_type": nil, "volume_normalization": nil,
        "samplerate_converter": nil, "audio_buffer_size": nil, "buffer_before_play": nil, "http_proxy_host": nil,
        "http_proxy_port": nil, "http_proxy_user": nil, "http_proxy_password": nil, "connection_timeout": nil,
        "max_connections": nil, "filesystem_charset": nil, "id3v1_encoding": nil, "metadata_to_use": nil,
        "save_absolute_paths_in_playlists": nil, "gapless_mp3_playback": nil,
    ]
}

/// An environment variable that chooses a setting the config file does not hold; `xzmusic config` shows
/// each with its value.
package struct ConfigEnvironmentVariable: Sendable, Hashable {
    package let name: String
    /// One line: what it chooses.
    package let summary: String

    package static let all: [ConfigEnvironmentVariable] = [
        .init(name: "XDG_CONFIG_HOME", summary: "the config file is `xzmusic/config` in it, else in `~/.config`"),
        .init(name: "XZMUSIC_HOME", summary: "the library folder, unless `--library` names one"),
        .init(name: "XDG_DATA_HOME", summary: "the library folder is `xzmusic` in it when `XZMUSIC_HOME` is not set, else in `~/.local/share`"),
        .init(name: "XDG_MUSIC_DIR", summary: "the music folder when `music_directory` is not set"),
        .init(name: "XZMUSIC_OUTPUT", summary: "the audio output of `serve` and a hosting prompt, unless `--output` names one"),
        .init(name: "XDG_RUNTIME_DIR", summary: "the host's socket is in `xzmusic` in it, else `host.sock` in the library folder"),
        .init(name: "XZMUSIC_DEMO", summary: "the demo songs a new library starts with"),
        .init(name: "NO_COLOR", summary: "no colours when set"),
    ]
}
