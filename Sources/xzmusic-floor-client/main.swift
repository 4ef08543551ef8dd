import ArgumentParser
#if canImport(Glibc)
import Glibc
#endif

// The least a one-shot client built on swift-argument-parser can do (`make bench-server` times it next
// to `mpc next` and `xzmusic next`): a root command with a single subcommand that sends `next` over
// TCP and reads one answer. No library, no config, no host lookup: what is left is start-up and the
// parser's own cost.

/// A failure, printed by the parser as one line.
struct FloorClientError: Error, CustomStringConvertible {
    let description: String
}

struct Next: ParsableCommand {
    @Option(help: "The host's TCP port.")
    var port: UInt16

    func run() throws {
        let socketDescriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketDescriptor >= 0 else { throw FloorClientError(description: "cannot open a socket") }
        defer { close(socketDescriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketDescriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { throw FloorClientError(description: "cannot connect to 127.0.0.1:\(port)") }
        guard readAnswer(socketDescriptor).hasPrefix("OK MPD ") else {
            throw FloorClientError(description: "127.0.0.1:\(port) is not an MPD server")
        }
        _ = "next\n".withCString { write(socketDescriptor, $0, 5) }
        guard readAnswer(socketDescriptor) == "OK\n" else { throw FloorClientError(description: "next was not answered OK") }
    }

    /// One read is enough for the greeting and for `next`'s answer, both a line.
    private func readAnswer(_ socketDescriptor: Int32) -> String {
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = read(socketDescriptor, &buffer, buffer.count)
        return count > 0 ? String(decoding: buffer[..<count], as: UTF8.self) : ""
    }
}

struct FloorClient: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "xzmusic-floor-client", subcommands: [Next.self])
}

FloorClient.main()
