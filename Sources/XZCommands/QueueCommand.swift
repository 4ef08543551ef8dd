import ArgumentParser
import Foundation
import XZProtocol
import XZText
import XZHostAssembly

struct Queue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "queue",
        abstract: "List the queue; 'queue remove N' or 'queue clear' change it.",
        subcommands: [List.self, Remove.self, Clear.self], defaultSubcommand: List.self)

    /// Entries `queue` shows at a time.
    static let pageSize = 20
    /// Entries asked for at once by `queue --all`, well under what one answer may hold.
    static let readSize = 1000

    struct List: PlayerCommand {
        static let configuration = CommandConfiguration(
            commandName: "list", abstract: "List the queue, a page at a time.",
            discussion: "Shows the \(Queue.pageSize) entries of the page that holds the current song (the first page "
                + "when none plays); --page N shows another, --all the whole queue.")
        @OptionGroup var global: GlobalOptions
        @Option(help: ArgumentHelp("The page to show (\(Queue.pageSize) entries a page).", valueName: "n")) var page: Int?
        @Flag(help: "Show the whole queue.") var all = false

        func validate() throws {
            if page != nil && all { throw ValidationError("--page and --all exclude each other") }
            if let page, page < 1 { throw ValidationError("--page counts from 1") }
        }

        func run(on door: HostDoor, context: CommandContext) throws {
            let status = try door.status()
            let count = status.playlistLength
            guard count > 0 else {
                context.console.line("The queue is empty.")
                return
            }
            let size = Queue.pageSize
            let pages = (count - 1) / size + 1
            let number = page ?? (status.song ?? 0) / size + 1
            guard all || number <= pages else {
                throw CommandError.usage("the queue has \(pages) page\(pages == 1 ? "" : "s") of \(size): --page 1 to \(pages)")
            }
            let shown = all ? 0..<count : (number - 1) * size..<min(count, number * size)
            for start in stride(from: shown.lowerBound, to: shown.upperBound, by: Queue.readSize) {
                let records = try door.queue(window: start..<min(shown.upperBound, start + Queue.readSize))
                context.console.lines(records.enumerated().map { offset, record in
                    let position = record.position ?? start + offset
                    let mark = position == status.song ? context.console.styled("▶", "32") : " "
                    let who = record.artists.isEmpty ? "" : " — \(record.artists.joined(separator: ", ").safe)"
                    let title = record.title ?? URL(fileURLWithPath: record.file).deletingPathExtension().lastPathComponent
                    return "\(mark) \(DisplayWidth.fit("\(position + 1)", to: 3, alignRight: true))  "
                        + "\(title.safe)\(who)  [\(DurationText.clock(ms: record.durationMs))]"
                })
            }
            if !all, pages > 1 {
                context.console.line("page \(number) of \(pages), \(count) in the queue: 'queue --page N' shows another, 'queue --all' all")
            }
        }
    }

    struct Remove: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove entry N of the queue.")
        @OptionGroup var global: GlobalOptions
        @Argument(help: ArgumentHelp("The entry's number in 'queue'.", valueName: "n")) var number: Int

        func run(on door: HostDoor, context: CommandContext) throws {
            // MPD deletes nothing, and says nothing, at the position just past the end: it is refused here.
            let count = try door.status().playlistLength
            guard (1...max(count, 1)).contains(number), count > 0 else { throw CommandError.noSuchEntry(number, count: count) }
            do {
                try door.run("delete", [String(number - 1)])
            } catch let failure where failure.ack?.code == .arg {
                // The queue shrank since it was counted.
                throw CommandError.noSuchEntry(number, count: try door.status().playlistLength)
            }
        }
    }

    struct Clear: PlayerCommand {
        static let configuration = CommandConfiguration(commandName: "clear", abstract: "Empty the queue.")
        @OptionGroup var global: GlobalOptions

        func run(on door: HostDoor, context: CommandContext) throws {
            try door.run("clear")
            context.console.line("queue cleared")
        }
    }
}
