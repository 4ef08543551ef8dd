/// An answer as a client reads it: `key: value` lines up to `OK`, or the `ACK` that ends it. The one
/// reader of answers, for those read off a socket and those made in process alike.
package struct MPDAnswer: Sendable {
    package private(set) var pairs: [(key: String, value: String)] = []
    /// Bytes of the lines taken so far, for a reader to cap what a host may send.
    package private(set) var bytes = 0

    package init() {}

    /// Takes one line (without its newline); true once the answer is complete. An ACK line is thrown;
    /// a line that is no pair (`list_OK`) is passed over.
    package mutating func take(line: String) throws(MPDError) -> Bool {
        bytes += line.utf8.count + 1
        if line == "OK" { return true }
        if line.hasPrefix("ACK ") { throw MPDError.parse(ackLine: line) }
        if let colon = line.range(of: ": ") {
            pairs.append((String(line[..<colon.lowerBound]), String(line[colon.upperBound...])))
        }
        return false
    }
}

extension MPDError {
    /// `ACK [code@index] {command} message` back into an error.
    package static func parse(ackLine line: String) -> MPDError {
        let scanner = line.dropFirst(4)
        guard scanner.hasPrefix("["), let at = scanner.firstIndex(of: "@"), let open = scanner.firstIndex(of: "{"),
              let end = scanner.firstIndex(of: "}"), at < open, open < end else {
            return MPDError(.unknown, String(line))
        }
        let code = Int(scanner[scanner.index(after: scanner.startIndex)..<at]).flatMap(ACKCode.init(rawValue:)) ?? .unknown
        let command = String(scanner[scanner.index(after: open)..<end])
        let message = scanner[scanner.index(after: end)...].drop { $0 == " " }
        return MPDError(code, String(message), command: command)
    }
}
