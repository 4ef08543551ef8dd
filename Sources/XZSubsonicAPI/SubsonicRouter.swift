import XZAccounts
import XZSystem

/// What the router answers: an endpoint's reply, or the error document with the HTTP status it goes with.
package enum SubsonicOutcome: Sendable {
    case reply(SubsonicReply)
    /// The spec sends API errors with HTTP 200; an unknown endpoint gets 404 as well as its document.
    case failure(SubsonicError, httpStatus: Int)
    /// No byte of the file lies in the `Range` asked for: HTTP 416 with the file's size.
    case rangeNotSatisfiable(fileSize: Int64)
}

/// The API's one entry: finds the endpoint, checks who asks and what they may do, and runs the answer.
/// Synchronous: the transport calls it on a thread of its pool, as answers read SQLite and files.
package struct SubsonicRouter: Sendable {
    package let library: SubsonicLibrary
    package let endpoints: [String: SubsonicEndpoint]
    /// Wrong credentials counted per client address; the transport holds an address's next request for
    /// the wait it says, off its threads.
    package let throttle: CredentialThrottle

    package init(library: SubsonicLibrary, endpoints: [String: SubsonicEndpoint] = SubsonicEndpoints.all,
                 throttle: CredentialThrottle = CredentialThrottle()) {
        self.library = library
        self.endpoints = endpoints
        self.throttle = throttle
    }

    package func respond(_ request: SubsonicRequest) -> SubsonicOutcome {
        var request = request
        request.endpoint = Self.endpointName(request.endpoint)
        guard let endpoint = endpoints[request.endpoint] else {
            // The spec names no answer: HTTP 404 as Navidrome's, with a generic error document (code 0: 70 is
            // for data not found) for clients that read it. The name is echoed only when it is a plain word.
            let shown = Self.isPlainName(request.endpoint) ? " '\(request.endpoint)'" : ""
            return .failure(SubsonicError.generic("unknown API endpoint\(shown)"), httpStatus: 404)
        }
        do {
            var user: LibraryUser?
            if endpoint.access != .anyone {
                let signedIn: LibraryUser
                do {
                    signedIn = try SubsonicAuthentication.user(of: request, accounts: library.accounts)
                    throttle.recordSuccess(from: request.clientAddress)
                } catch let error as SubsonicError where error.kind == .wrongCredentials || error.kind == .invalidAPIKey {
                    throttle.recordFailure(from: request.clientAddress)
                    throw error
                }
                try Self.authorize(signedIn, for: endpoint.access)
                user = signedIn
            }
            return .reply(try endpoint.answer(SubsonicCall(request: request, user: user, library: library)))
        } catch let error as MediaError where error.kind == .rangeNotSatisfiable {
            return .rangeNotSatisfiable(fileSize: error.fileSize)
        } catch let error as SubsonicError where error.isTooManyTranscodes {
            // A player retries an HTTP 429 later; it reads no error document.
            return .failure(error, httpStatus: 429)
        } catch {
            return .failure(Self.apiError(error), httpStatus: 200)
        }
    }

    /// The endpoint's name as the table holds it: without `.view`, as old clients send it.
    package static func endpointName(_ name: String) -> String {
        name.hasSuffix(".view") ? String(name.dropLast(5)) : name
    }

    private static func authorize(_ user: LibraryUser, for access: SubsonicEndpoint.Access) throws {
        switch access {
        case .anyone, .user: return
        case .admin:
            guard user.isAdmin else { throw SubsonicError.notAuthorized("only an admin may do this") }
        case .jukebox:
            guard user.isAdmin || user.mayJukebox else { throw SubsonicError.notAuthorized("this user may not control the jukebox") }
        }
    }

    /// Any failure as the API tells it: a SubsonicError keeps its code; an item the library does not hold
    /// is 70; anything else is code 0 with its one line, cleaned of paths and control characters.
    package static func apiError(_ error: any Error) -> SubsonicError {
        if let error = error as? SubsonicError { return error }
        let line = readableLine(error)
        if UserDataError.notFound ~= error { return SubsonicError.notFound(line) }
        return SubsonicError.generic(line)
    }

    /// The error's first line, at most 300 characters, with every absolute path replaced by "…" (the
    /// client learns nothing of the machine's folders) and control characters dropped.
    package static func readableLine(_ error: any Error) -> String {
        let text = String("\(error)".prefix { $0 != "\n" && $0 != "\r" }.prefix(300))
        var cleaned = ""
        var inPath = false
        var previous: Character = " "
        for character in text {
            if inPath {
                if character == " " || character == "'" || character == "\"" || character == "," || character == ")" {
                    inPath = false
                } else {
                    continue
                }
            } else if character == "/", !(previous.isLetter || previous.isNumber) {
                inPath = true
                cleaned.append("…")
                previous = character
                continue
            }
            previous = character
            if character.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) { continue }
            cleaned.append(character)
        }
        return cleaned.isEmpty ? SubsonicError.generic.message : cleaned
    }

    private static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64 && name.utf8.allSatisfy { byte in
            (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
        }
    }
}
