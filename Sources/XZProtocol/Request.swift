/// One protocol request: a command name and its arguments, unquoted.
package struct MPDRequest: Sendable, Equatable {
    package var name: String
    package var arguments: [String]

    package init(name: String, arguments: [String] = []) {
        self.name = name
        self.arguments = arguments
    }

    /// Splits a request line as MPD's tokenizer does: the command is a word of ASCII letters, digits and
    /// `_` starting with a letter; an argument is either unquoted (no whitespace, no quotes) or a
    /// double-quoted string in which a backslash takes the next character literally.
    package static func parse(_ line: String) throws(MPDError) -> MPDRequest {
        try parse(utf8: Array(line.utf8))
    }

    /// The same, from the line's bytes as they came off the socket.
    package static func parse(utf8 line: [UInt8]) throws(MPDError) -> MPDRequest {
        var bytes = line
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        var index = 0
        func skipSpace() { while index < bytes.count, isSpace(bytes[index]) { index += 1 } }
        skipSpace()
        guard index < bytes.count else { throw MPDError.unknown("No command given") }
        let nameStart = index
        guard isLetter(bytes[index]) else { throw MPDError.unknown("Letter expected") }
        while index < bytes.count, !isSpace(bytes[index]) {
            let byte = bytes[index]
            guard isLetter(byte) || isDigit(byte) || byte == UInt8(ascii: "_") else {
                throw MPDError.unknown("Invalid word character")
            }
            index += 1
        }
        let name = String(decoding: bytes[nameStart..<index], as: UTF8.self)
        var arguments: [String] = []
        skipSpace()
        while index < bytes.count {
            var argument: [UInt8] = []
            if bytes[index] == UInt8(ascii: "\"") {
                index += 1
                var closed = false
                while index < bytes.count {
                    var byte = bytes[index]
                    if byte == UInt8(ascii: "\"") {
                        closed = true
                        index += 1
                        break
                    }
                    if byte == UInt8(ascii: "\\") {
                        index += 1
                        guard index < bytes.count else { break }
                        byte = bytes[index]
                    }
                    argument.append(byte)
                    index += 1
                }
                guard closed else { throw MPDError(.unknown, "Missing closing '\"'", command: "") }
                guard index == bytes.count || isSpace(bytes[index]) else {
                    throw MPDError(.unknown, "Space expected after closing '\"'", command: "")
                }
            } else {
                while index < bytes.count, !isSpace(bytes[index]) {
                    let byte = bytes[index]
                    guard byte > 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "'") else {
                        throw MPDError(.unknown, "Invalid unquoted character", command: "")
                    }
                    argument.append(byte)
                    index += 1
                }
            }
            guard !argument.contains(0) else { throw MPDError(.unknown, "NUL in argument", command: "") }
            arguments.append(String(decoding: argument, as: UTF8.self))
            skipSpace()
        }
        return MPDRequest(name: name, arguments: arguments)
    }

    /// The request as a client writes it, every argument quoted and escaped.
    package var line: String {
        ([name] + arguments.map(MPDRequest.quote)).joined(separator: " ")
    }

    /// `"…"` with `"` and `\` escaped, as the protocol's clients send arguments.
    package static func quote(_ text: String) -> String {
        var out = "\""
        for character in text {
            if character == "\"" || character == "\\" { out.append("\\") }
            out.append(character)
        }
        out.append("\"")
        return out
    }
}

private func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
private func isLetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte) }
private func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }
