import XZHost
import XZProtocol
import XZSystem

extension MPDCommands {
    /// What `add URI` would queue, without queueing it: a command list queues its run of adds at once.
    /// `held`: `heldFiles(amongAdds:)` of the list.
    static func playablesToAdd(_ uri: String, session: ClientSession, service: MPDService,
                               deadline: Deadline = .never, held: Set<String>? = nil) throws(MPDError) -> [Playable] {
        let call = Invocation(arguments: [uri], service: service, deadline: deadline, holdsStateChanges: false, session: session,
                              response: MPDResponse())
        return try playables(forURI: uri, call: call, held: held)
    }

    /// The files among a list's `add URI`s that the database holds, read in one query rather than one per
    /// add; nil when it cannot be read (each add then asks for itself).
    static func heldFiles(amongAdds uris: [String], session: ClientSession, service: MPDService) -> Set<String>? {
        let host = service.host
        let files = uris.compactMap { uri -> String? in
            guard let location = try? host.naming.locate(uri, allowAbsolute: session.peer == .local, catalogue: host.database),
                  location.kind != .absolute else { return nil }
            return location.path
        }
        guard let songs = try? host.database.songs(localPaths: files) else { return nil }
        return Set(songs.keys)
    }
}
