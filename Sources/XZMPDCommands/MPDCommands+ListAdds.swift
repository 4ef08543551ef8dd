import XZCatalogue
import XZHost
import XZProtocol
import XZSystem

extension MPDCommands {
    /// What `add URI` would queue, without queueing it: a command list queues its run of adds at once.
    /// `prepared`: `listAdds(_:)` of the list.
    static func playablesToAdd(_ uri: String, session: ClientSession, service: MPDService,
                               deadline: Deadline = .never, prepared: ListAdds? = nil) throws(MPDError) -> [Playable] {
        let call = Invocation(arguments: [uri], service: service, deadline: deadline, holdsStateChanges: false, session: session,
                              response: MPDResponse())
        return try playables(forURI: uri, call: call, prepared: prepared)
    }

    /// What a command list's `add URI`s name, found once for the whole list: each name's place, and the
    /// files among them the database holds, read in one query rather than one per add.
    struct ListAdds: Sendable {
        let locations: [String: SongLocation]
        let held: Set<String>
    }

    /// Nil when the database cannot be read now (each add then asks for itself).
    static func listAdds(_ uris: [String], session: ClientSession, service: MPDService) -> ListAdds? {
        let host = service.host
        var locations: [String: SongLocation] = [:]
        for uri in uris where locations[uri] == nil {
            // A name that cannot be placed is refused by its own add.
            let location = try? host.naming.locate(uri == "/" ? "" : uri, allowAbsolute: session.peer == .local,
                                                   catalogue: host.database)
            if let location { locations[uri] = location }
        }
        let files = locations.values.filter { $0.kind != .absolute }.map(\.path)
        guard let songs = try? host.database.songs(localPaths: files),
              let images = try? host.database.cueImages(among: files.filter { songs[$0] == nil }) else { return nil }
        // A CUE sheet's image is held too, unlisted, as in MPD's database.
        return ListAdds(locations: locations, held: Set(songs.keys).union(images))
    }
}
