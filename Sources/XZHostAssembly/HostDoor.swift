import XZCatalogue
import XZMPDCommands
import XZProtocol
import XZServer
import XZSystem

/// The one way the prompt and the one-shot commands reach a player: requests to the host's MPD command
/// table, over the library's socket when another process hosts, or to a client session on this process's
/// own host. Either way the answer is read by `MPDAnswer`, so both doors answer alike.
package final class HostDoor: Sendable {
    /// The host's failures as its callers match them: `catch HostDoor.Failure.lost`.
    package struct Failure: KindedError {
        package enum Kind: Hashable, Sendable {
            case refused, lost, listTooLarge
        }

        package let kind: Kind
        package var message: String
        /// A refusal's ACK: its code and the command it names.
        package let ack: MPDError?

        package init(kind: Kind, message: String) {
            self.init(kind: kind, message: message, ack: nil)
        }

        private init(kind: Kind, message: String, ack: MPDError?) {
            self.kind = kind
            self.message = message
            self.ack = ack
        }

        package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

        /// The host's ACK.
        package static let refused = Failure(kind: .refused, message: "the host refused the request")
        package static func refused(_ ack: MPDError) -> Failure { Failure(kind: .refused, message: ack.message, ack: ack) }
        /// The connection broke or the host hung up.
        package static let lost = Failure(kind: .lost, message: "the connection to the host broke")
        /// A command list longer than the host takes at once (MPD's `max_command_list_size`); nothing was sent.
        package static let listTooLarge = Failure(kind: .listTooLarge, message: "a command list longer than the host takes at once")
        static func listTooLarge(bytes: Int, limit: Int) -> Failure {
            listTooLarge("a command list of \(bytes) bytes, more than the host takes at once (\(limit), max_command_list_size)")
        }
    }

    private enum Line {
        case socket(MPDClient)
        case session(ClientSession, MPDService)
    }

    /// The socket, for hanging up from another thread while a request waits on it. Unchecked: its only
    /// use is `disconnect()`, a `shutdown(2)` of the descriptor, which MPDClient allows from any thread.
    private struct HangUp: @unchecked Sendable {
        let client: MPDClient?
    }

    /// One request at a time, whichever thread asks.
    private let line: Mutex<Line>
    private let hangUpLine: HangUp
    /// The host's music folder, asked once (`config`).
    private let knownMusicDirectory = Mutex<String?>(nil)
    /// Whether the host runs in this process.
    package let isInProcess: Bool

    /// Bytes one command list may hold: MPD's default `max_command_list_size`, which a host may lower.
    package static let maxListBytes = SessionLimits().maxCommandListBytes
    /// Bytes one answer may hold: MPD's default `max_output_buffer_size`, past which a host sends nothing.
    package static let maxAnswerBytes = SessionLimits().maxOutputBytes

    /// A door over the socket of a host in another process.
    package init(client: sending MPDClient) {
        hangUpLine = HangUp(client: client)
        line = Mutex(.socket(client))
        isInProcess = false
    }

    /// A door to the running host of `library`, over its socket; nil when no host answers there (no socket,
    /// or one a host that died left behind).
    package static func connect(library: LibraryFolder) throws -> HostDoor? {
        guard let client = try MPDClient.connect(unixPath: LibraryHost.socketPath(of: library)) else { return nil }
        return HostDoor(client: client)
    }

    /// A door to this process's host: a client session of its own, local and let in as the socket's are.
    package init(service: MPDService) {
        line = Mutex(.session(ClientSession(peer: .local, passwordRequired: false), service))
        hangUpLine = HangUp(client: nil)
        isInProcess = true
    }

    /// Ends a socket door from any thread: a request waiting for its answer (`idle`) fails as `lost`, and so
    /// does every later one. A door in process has no line to end.
    package func hangUp() {
        hangUpLine.client?.disconnect()
    }

    /// Runs one command: the `key: value` pairs of its answer.
    @discardableResult
    package func run(_ name: String, _ arguments: [String] = []) throws(Failure) -> [(key: String, value: String)] {
        try exchange([MPDRequest(name: name, arguments: arguments).line])
    }

    /// Runs requests as one command list, which the host carries out before any other client's request
    /// sees the queue; the pairs of all their answers. An empty list sends nothing.
    @discardableResult
    package func runList(_ requests: [MPDRequest]) throws(Failure) -> [(key: String, value: String)] {
        guard !requests.isEmpty else { return [] }
        let lines = requests.map(\.line)
        // Counted as the host counts a list: each line and its end.
        let bytes = lines.reduce(0) { $0 + $1.utf8.count + 1 }
        guard bytes <= Self.maxListBytes else { throw Failure.listTooLarge(bytes: bytes, limit: Self.maxListBytes) }
        return try exchange(["command_list_begin"] + lines + ["command_list_end"])
    }

    package func status() throws(Failure) -> PlayerStatus {
        PlayerStatus(try run("status"))
    }

    /// The current entry of the queue; nil when there is none.
    package func currentSong() throws(Failure) -> SongRecord? {
        SongRecord.records(try run("currentsong")).first
    }

    /// The queue's entries in `window` (positions from 0), as many of them as there are.
    package func queue(window: Range<Int>) throws(Failure) -> [SongRecord] {
        guard !window.isEmpty else { return [] }
        return SongRecord.records(try run("playlistinfo", ["\(window.lowerBound):\(window.upperBound)"]))
    }

    /// The host's music folder, against which its song names are read.
    package func musicDirectory() throws(Failure) -> String {
        if let known = knownMusicDirectory.withLock({ $0 }) { return known }
        guard let music = try run("config").first(where: { $0.key == "music_directory" })?.value else {
            throw Failure.lost("the host names no music folder")
        }
        knownMusicDirectory.withLock { $0 = music }
        return music
    }

    /// Sends `lines` and reads the one answer they make.
    private func exchange(_ lines: [String]) throws(Failure) -> [(key: String, value: String)] {
        var answer = MPDAnswer()
        do {
            try line.withLock { line throws in
                switch line {
                case .socket(let client):
                    do {
                        try client.sendLine(lines.joined(separator: "\n"))
                        while try !answer.take(line: client.readLine()) {
                            guard answer.bytes <= Self.maxAnswerBytes else { throw Failure.lost("the host's answer is longer than any host sends") }
                        }
                    } catch let error as MPDError {
                        throw error
                    } catch {
                        // Whatever is left of the answer would be read as the next one's: the connection ends here.
                        client.disconnect()
                        throw error
                    }
                case .session(var session, let service):
                    // Every line's answer, as a socket would carry them: the first complete one is the answer.
                    var output = ClientSession.Output()
                    for text in lines where !output.close {
                        session.receive(utf8: Array(text.utf8), service: service, into: &output)
                    }
                    line = .session(session, service)
                    try Self.read(output, into: &answer)
                }
            }
        } catch let error as MPDError {
            throw Failure.refused(error)
        } catch let error as Failure {
            throw error
        } catch {
            throw Failure.lost("\(error)")
        }
        return answer.pairs
    }

    /// An in-process session's answer, read as a socket's would be.
    private static func read(_ output: ClientSession.Output, into answer: inout MPDAnswer) throws {
        for text in output.bytes.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if try answer.take(line: String(decoding: text, as: UTF8.self)) { return }
        }
        throw Failure.lost(output.close ? "the host hung up" : "the host's answer ended early")
    }
}
