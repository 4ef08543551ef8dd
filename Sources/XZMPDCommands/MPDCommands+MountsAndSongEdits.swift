import XZCatalogue
import XZHostCore
import XZProtocol

extension MPDCommands {
    /// Commands MPD answers that this host has nothing behind: storage mounts (no storage plugins),
    /// output attributes (the one output has none), tags of queued songs (only a stream's may be edited,
    /// and it keeps the tags it was added with). Each refuses as MPD does in the same case.
    static let mountAndSongEditCommands: [MPDCommand] = [
        MPDCommand("listmounts", 0...0, .readOnly) { call in
            // The music folder is the root mount, as MPD lists a local music_directory.
            call.response.add("mount", "")
        },
        MPDCommand("mount", 2...2, .changesState) { call throws(MPDError) in
            let point = call.arguments[0]
            guard !point.isEmpty, !point.contains("/") else { throw MPDError.arg("Bad mount point") }
            throw MPDError.arg("Unrecognized storage URI")
        },
        MPDCommand("unmount", 1...1, .changesState) { call throws(MPDError) in
            guard !call.arguments[0].isEmpty else { throw MPDError.arg("Bad mount point") }
            throw MPDError.arg("Not a mount point")
        },
        MPDCommand("outputset", 3...3, .changesState) { call throws(MPDError) in
            // The outputs here have no runtime attributes, as MPD's plugins of the same names.
            let id = try MPDArgument.unsigned(call.arguments[0])
            guard call.host.outputStatuses.indices.contains(id) else { throw noSuchOutput }
            throw MPDError.arg("Unsupported attribute")
        },
        MPDCommand("addtagid", 3...3, .changesState) { call throws(MPDError) in
            try refuseTagEdit(&call, tag: call.arguments[1])
        },
        MPDCommand("cleartagid", 1...2, .changesState) { call throws(MPDError) in
            try refuseTagEdit(&call, tag: call.arguments.count > 1 ? call.arguments[1] : nil)
        },
    ]

    /// addtagid/cleartagid: the tag is read first, then the song; a file's tags are its own.
    private static func refuseTagEdit(_ call: inout Invocation, tag: String?) throws(MPDError) {
        let id = call.arguments[0]
        _ = try MPDArgument.unsigned(id)
        if let tag, SongTag(tag) == nil { throw MPDError.arg("Unknown tag type: \(tag)") }
        let snapshot = call.host.snapshot()
        let index = try queueIndex(id: id, snapshot)
        guard call.host.uri(of: snapshot.entries[index].item).contains("://") else {
            throw MPDError.permission("Cannot edit tags of local file")
        }
        throw MPDError.permission("Cannot edit tags of this stream")
    }
}
