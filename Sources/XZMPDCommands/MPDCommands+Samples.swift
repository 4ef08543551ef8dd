extension MPDCommands {
    /// Example arguments for every row of the command table, the seeds of the protocol fuzzer
    /// (`make fuzz-protocol`); a test checks every row has some, each within the row's argument count.
    /// Names of the library in braces are filled in by whoever runs them: `{song}` a song of the music
    /// folder, `{folder}` its folder, `{catalogue}` a catalogue song, `{playlist}` a stored playlist.
    package static let sampleArguments: [String: [[String]]] = [
        // Connection and status
        "ping": [[]], "password": [["secret"], [""]], "commands": [[]], "notcommands": [[]],
        "tagtypes": [[], ["clear"], ["all"], ["enable", "Artist", "Title"], ["disable", "Album"], ["enable", "Nope"]],
        "urlhandlers": [[]], "decoders": [[]], "config": [[]],
        "binarylimit": [["64"], ["8192"], ["63"], ["1048576"]],
        "status": [[]], "currentsong": [[]], "stats": [[]], "clearerror": [[]],
        // Options
        "consume": [["0"], ["1"], ["oneshot"]], "random": [["0"], ["1"]], "repeat": [["0"], ["1"]],
        "single": [["0"], ["1"], ["oneshot"]],
        "setvol": [["0"], ["50"], ["100"], ["101"]], "volume": [["-10"], ["10"]], "getvol": [[]],
        "crossfade": [["0"], ["2"], ["10"]], "mixrampdb": [["-17"], ["0"]], "mixrampdelay": [["1"], ["nan"], ["-1"]],
        "replay_gain_mode": [["off"], ["track"], ["album"], ["auto"]], "replay_gain_status": [[]],
        // Playback
        "play": [[], ["0"], ["1"], ["-1"]], "playid": [[], ["1"], ["-1"]], "pause": [[], ["0"], ["1"]],
        "stop": [[]], "next": [[]], "previous": [[]],
        "seek": [["0", "1"], ["1", "0.5"], ["0", "-1"]], "seekid": [["1", "1"], ["2", "0.25"]],
        "seekcur": [["1"], ["+1"], ["-1"], ["0.5"]],
        // The queue
        "add": [["{song}"], ["{folder}"], ["{catalogue}"], ["{song}", "0"], ["{song}", "+0"], ["{song}", "-1"], ["/"]],
        "addid": [["{song}"], ["{catalogue}"], ["{song}", "0"], ["{song}", "+1"]],
        "clear": [[]],
        "delete": [["0"], ["0:1"], ["1:"], ["0:-1"], ["-1"]], "deleteid": [["1"], ["0"]],
        "move": [["0", "1"], ["0:2", "1"], ["1", "+0"], ["0", "-1"]], "moveid": [["1", "0"], ["1", "+1"]],
        "swap": [["0", "1"]], "swapid": [["1", "2"]],
        "shuffle": [[], ["0:2"]],
        "prio": [["1", "0"], ["255", "0:2"], ["256", "0"], ["1", "0", "1:2"]],
        "prioid": [["1", "1"], ["255", "1", "2"]],
        "rangeid": [["1", "0.5:1"], ["1", ":"], ["1", "1:0.5"]],
        "addtagid": [["1", "Artist", "Added"], ["1", "Nope", "x"]],
        "cleartagid": [["1"], ["1", "Artist"]],
        "playlistinfo": [[], ["0"], ["0:2"], ["-1"]], "playlist": [[]], "playlistid": [[], ["1"]],
        "plchanges": [["0"], ["0", "0:1"]], "plchangesposid": [["0"], ["1", "0:2"]],
        "playlistfind": [["Artist", "Band"], ["(Title == 'One')"]],
        "playlistsearch": [["any", "o"], ["(Artist contains 'b')"]],
        // The database
        "find": [["(Artist == 'Band')"], ["Artist", "Band"], ["(Title =~ '^T')"], ["(!(Artist == 'x'))"],
                 ["((Artist == 'Band') AND (Album == 'LP'))"], ["(base '{folder}')"], ["(file == '{song}')"],
                 ["Artist", "Band", "sort", "Title", "window", "0:1"], ["(modified-since '0')"], ["(Date >= '1999')"]],
        "search": [["any", "o"], ["(any contains '晴')"], ["(Title starts_with 'O')"], ["(AudioFormat =~ '44100:*:2')"]],
        "findadd": [["(Artist == 'Band')"], ["Title", "One", "position", "0"]],
        "searchadd": [["any", "t"], ["(Title contains 't')", "position", "+0"]],
        "searchaddpl": [["{playlist}", "any", "t"], ["{playlist}", "(Title contains 'o')", "position", "0"]],
        "count": [["Artist", "Band"], ["(Album == 'LP')", "group", "Artist"]],
        "list": [["Artist"], ["Album", "Artist", "Band"], ["Title", "group", "Album"], ["file"]],
        "lsinfo": [[], ["{folder}"], ["{song}"], ["/"]],
        "listall": [[], ["{folder}"]], "listallinfo": [[], ["{folder}"]],
        "listfiles": [[], ["{folder}"], ["{song}"]],
        "update": [[], ["{folder}"]], "rescan": [[], ["{song}"]],
        "albumart": [["{song}", "0"], ["{song}", "64"], ["{song}", "-1"], ["{catalogue}", "0"]],
        "readpicture": [["{song}", "0"], ["{song}", "100"], ["{catalogue}", "0"]],
        "readcomments": [["{song}"], ["{catalogue}"]],
        "getfingerprint": [["{song}"], ["{catalogue}"]],
        // Stored playlists
        "listplaylists": [[]], "listplaylist": [["{playlist}"]], "listplaylistinfo": [["{playlist}"]],
        "load": [["{playlist}"], ["{playlist}", "0:1"], ["{playlist}", "0:1", "0"]],
        "save": [["{playlist}"], ["{playlist}", "append"], ["{playlist}", "replace"], ["{playlist}", "create"]],
        "rm": [["{playlist}"]], "rename": [["{playlist}", "other"]],
        "playlistadd": [["{playlist}", "{song}"], ["{playlist}", "{catalogue}", "0"]],
        "playlistclear": [["{playlist}"]], "playlistdelete": [["{playlist}", "0"], ["{playlist}", "0:2"]],
        "playlistmove": [["{playlist}", "0", "1"]],
        // Stickers
        "sticker": [["get", "song", "{song}", "rating"], ["set", "song", "{song}", "rating", "5"],
                    ["delete", "song", "{song}"], ["list", "song", "{song}"], ["find", "song", "{folder}", "rating"],
                    ["find", "song", "", "rating", "=", "5"]],
        // Messages
        "subscribe": [["chan"]], "unsubscribe": [["chan"]], "channels": [[]],
        "sendmessage": [["chan", "hello"]], "readmessages": [[]],
        // Mounts and outputs
        "listmounts": [[]], "mount": [["m", "nfs://x/y"]], "unmount": [["m"]],
        "outputs": [[]], "enableoutput": [["0"]], "disableoutput": [["0"]], "toggleoutput": [["0"]],
        "outputset": [["0", "dop", "1"]],
        "listpartitions": [[]], "partition": [["default"], ["other"], [""]],
    ].merging(extensionSamples) { first, _ in first }

    /// Numbers at the edges of every domain a client may write, for the fuzzer to put in any argument.
    package static let edgeNumbers = ["0", "-1", "1", "2147483647", "2147483648", "4294967295", "4294967296",
                                     "9223372036854775807", "-9223372036854775808", "18446744073709551616",
                                     "1e300", "-1e300", "nan", "inf", "0x10", "1.5", "0:", ":0",
                                     "0:9223372036854775807", "9223372036854775807:", "+2147483648",
                                     "+9223372036854775807", "-9223372036854775807"]

    /// The names of every command of the table.
    package static var commandNames: [String] { allCommands.map(\.name) }
}
