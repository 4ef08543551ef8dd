import ArgumentParser
import Foundation
import XZAccounts
import XZCatalogue
import XZStats
import XZText
#if canImport(Glibc)
import Glibc
#endif

extension CommandContext {
    /// The library's users: the same database a running host uses, the key file in the library folder.
    var accounts: AccountStore {
        get throws { AccountStore(library: folder, database: try database) }
    }

    /// A `--user NAME`'s statistics, or the owner's (the terminal's own) without one.
    func stats(forUser name: String?) throws -> StatsStore {
        guard let name else { return try stats }
        guard let user = try accounts.user(named: name) else {
            throw CommandError.usage("no user named \(name.safe) ('user list' shows them)")
        }
        return StatsStore(database: try database, user: user.id)
    }
}

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "The library's users, who sign in from Subsonic apps; the first is the owner.",
        discussion: """
            The first user added is the library's owner: the terminal and MPD clients act as the owner, and the \
            likes and plays kept before any user existed are the owner's. Passwords are kept sealed under the key \
            in the library folder's accounts.key, which only its owner may read.
            """,
        subcommands: [UserAdd.self, UserList.self, UserPasswd.self, UserRemove.self, UserAPIKey.self],
        defaultSubcommand: UserList.self)
}

struct UserAdd: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a user (asks for the password twice).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The user's name: 1 to 64 characters.") var name: String
    @Flag(help: "May manage users and everything an admin may.") var admin = false
    @Flag(help: "May drive this host's own player (jukeboxControl).") var jukebox = false
    @Flag(help: "Read the password from standard input's first line instead of asking.") var passwordStdin = false

    func run(in context: CommandContext) throws {
        // A name that cannot be added is told before the password is asked for.
        try accountsAction {
            try AccountStore.check(name: name)
            if try context.accounts.user(named: name) != nil {
                throw AccountError.exists("there is already a user named \(name.safe)")
            }
        }
        let password = try PasswordInput.read(fromStandardInput: passwordStdin)
        let user = try accountsAction { try context.accounts.add(name: name, password: password, isAdmin: admin, mayJukebox: jukebox) }
        context.console.line("added \(user.name.safe)" + (user.isOwner ? ", the library's owner" : "")
            + (user.isAdmin ? " (admin)" : ""))
    }
}

struct UserList: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The users, the owner first.")
    @OptionGroup var global: GlobalOptions
    @Flag(help: "Print JSON.") var json = false

    private struct Listed: Encodable {
        var id: Int64
        var name: String
        var owner: Bool
        var admin: Bool
        var jukebox: Bool
        var apiKey: Bool
        enum CodingKeys: String, CodingKey { case id, name, owner, admin, jukebox, apiKey = "api_key" }
    }

    func run(in context: CommandContext) throws {
        let users = try accountsAction { try context.accounts.list() }
        if json {
            try Format.printJSON(users.map {
                Listed(id: $0.id.rawValue, name: $0.name, owner: $0.isOwner, admin: $0.isAdmin, jukebox: $0.mayJukebox,
                       apiKey: $0.hasAPIKey)
            }, console: context.console)
            return
        }
        guard !users.isEmpty else {
            context.console.line("No users yet: 'user add NAME' adds the first, the library's owner.")
            return
        }
        let width = max(4, users.map { DisplayWidth.of($0.name.safe) }.max() ?? 0)
        func row(_ name: String, _ columns: [String]) -> String {
            DisplayWidth.fit(name, to: width) + columns.map { "  " + DisplayWidth.fit($0, to: 7) }.joined()
        }
        var lines = [context.console.styled(row("Name", ["Owner", "Admin", "Jukebox", "API key"]), "1")]
        for user in users {
            lines.append(row(user.name.safe, [user.isOwner, user.isAdmin, user.mayJukebox, user.hasAPIKey]
                .map { $0 ? "yes" : "-" }))
        }
        context.console.lines(lines)
    }
}

struct UserPasswd: LibraryCommand {
    static let configuration = CommandConfiguration(commandName: "passwd", abstract: "Change a user's password.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The user's name.") var name: String
    @Flag(help: "Read the password from standard input's first line instead of asking.") var passwordStdin = false

    func run(in context: CommandContext) throws {
        // An unknown name is told before the password is asked for.
        guard try accountsAction({ try context.accounts.user(named: name) }) != nil else {
            throw CommandError.usage("no user named \(name.safe) ('user list' shows them)")
        }
        let password = try PasswordInput.read(fromStandardInput: passwordStdin)
        try accountsAction { try context.accounts.setPassword(name: name, password: password) }
        context.console.line("changed the password of \(name.safe)")
    }
}

struct UserRemove: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a user with their likes, plays, stars and play queue (never the owner).")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The user's name.") var name: String

    func run(in context: CommandContext) throws {
        try accountsAction { try context.accounts.remove(name: name) }
        context.console.line("removed \(name.safe)")
    }
}

struct UserAPIKey: LibraryCommand {
    static let configuration = CommandConfiguration(
        commandName: "apikey", abstract: "Make a user a new API key, replacing the old; it is shown this once.")
    @OptionGroup var global: GlobalOptions
    @Argument(help: "The user's name.") var name: String

    func run(in context: CommandContext) throws {
        let key = try accountsAction { try context.accounts.newAPIKey(name: name) }
        // The key alone on standard output, so a script can take it; only its hash is kept.
        context.console.line(key)
        context.console.error("the API key of \(name.safe): shown only now, the library keeps just its hash")
    }
}

/// An accounts failure as the one line a command prints.
private func accountsAction<T>(_ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as AccountError {
        throw CommandError.failed(error.message)
    }
}

/// A new password: from standard input's first line, or asked twice at the terminal without echo.
enum PasswordInput {
    /// More than a password may hold, so an over-long one is refused as such rather than cut.
    static let maxBytes = 1024

    static func read(fromStandardInput: Bool) throws -> String {
        if fromStandardInput {
            guard let line = firstLine(of: STDIN_FILENO) else {
                throw CommandError.usage("--password-stdin found no password on standard input")
            }
            return line
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CommandError.usage("standard input is no terminal to ask for the password on: give it with --password-stdin")
        }
        let first = try ask("Password: ")
        let second = try ask("Again: ")
        guard first == second else { throw CommandError.usage("the two passwords differ; nothing changed") }
        return first
    }

    /// The bytes before the first line break (or the end), without a trailing CR; nil when there are none.
    private static func firstLine(of fd: Int32) -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count <= maxBytes {
            let count = Glibc.read(fd, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1, byte != UInt8(ascii: "\n") else { break }
            bytes.append(byte)
        }
        if bytes.last == UInt8(ascii: "\r") { bytes.removeLast() }
        return bytes.isEmpty ? nil : String(decoding: bytes, as: UTF8.self)
    }

    /// Reads one line at the terminal with echo and signals off, byte by byte, so Ctrl-C cancels
    /// without leaving the terminal silent; the terminal's settings are restored whatever happens.
    private static func ask(_ prompt: String) throws -> String {
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            throw CommandError.failed("cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ICANON | ISIG)
        withUnsafeMutableBytes(of: &quiet.c_cc) { cc in
            cc[Int(VMIN)] = 1
            cc[Int(VTIME)] = 0
        }
        // Echo goes off before the prompt shows, so nothing typed after it is echoed or lost; what was
        // typed before it is dropped, as it was not meant as a password. Input typed after the answer
        // is kept for the next question or command.
        guard tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet) == 0 else {
            throw CommandError.failed("cannot turn the terminal's echo off: \(String(cString: strerror(errno)))")
        }
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &saved)
            FileHandle.standardError.write(Data("\n".utf8))
        }
        FileHandle.standardError.write(Data(prompt.utf8))
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while true {
            let count = Glibc.read(STDIN_FILENO, &byte, 1)
            if count < 0, errno == EINTR { continue }
            guard count == 1 else { throw CommandError.failed("the terminal closed before a password was given") }
            switch byte {
            case 0x0A, 0x0D: return String(decoding: bytes, as: UTF8.self)
            case 0x03: throw CommandError.failed("cancelled; nothing changed")
            case 0x04 where bytes.isEmpty: throw CommandError.failed("cancelled; nothing changed")
            case 0x7F, 0x08:
                // One character back: drop a UTF-8 sequence's continuation bytes with its lead byte.
                while let last = bytes.popLast(), last & 0xC0 == 0x80 {}
            case 0x15: bytes.removeAll()
            default:
                if bytes.count < maxBytes { bytes.append(byte) }
            }
        }
    }
}
