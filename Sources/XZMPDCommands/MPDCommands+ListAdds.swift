import XZHost
import XZProtocol
import XZSystem

extension MPDCommands {
    /// What `add URI` would queue, without queueing it: a command list queues its run of adds at once.
    static func playablesToAdd(_ uri: String, session: ClientSession, service: MPDService,
                               deadline: Deadline = .never) throws(MPDError) -> [Playable] {
        let call = Invocation(arguments: [uri], service: service, deadline: deadline, holdsStateChanges: false, session: session,
                              response: MPDResponse())
        return try playables(forURI: uri, call: call)
    }
}
