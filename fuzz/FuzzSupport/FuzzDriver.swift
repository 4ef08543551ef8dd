import Foundation
import XZSystem

/// How a fuzzer's program starts: `--write-seeds FOLDER` writes its seed corpus and dictionary,
/// `--replay FILE...` runs each file as one input and prints its story, and otherwise libFuzzer (linked in
/// by fuzz/fuzz.py) drives it. Built without libFuzzer (as in `swift build`) it only replays.
package enum FuzzDriver {
    /// Runs one input; with `echo`, prints every request and its answer.
    package typealias Run = @Sendable (_ input: UnsafeBufferPointer<UInt8>, _ echo: Bool) -> Void

    /// The fuzzer's `run` in a class, so reading it back out of the mutex never re-wraps the closure: a
    /// closure kept in the mutex itself gained a conversion layer on every read until the stack overflowed.
    private final class RunBox: Sendable {
        let run: Run
        init(_ run: @escaping Run) { self.run = run }
    }

    /// libFuzzer's callback is a C function, which cannot capture the fuzzer's `run`.
    private static let running = Mutex<RunBox?>(nil)

    /// `make`: the make target that builds the fuzzer with libFuzzer; `remove`: removes the fuzzed library.
    package static func main(make: String, run: @escaping Run, writeSeeds: (String) -> Int32, remove: () -> Void) -> Never {
        let arguments = CommandLine.arguments
        if arguments.count == 3, arguments[1] == "--write-seeds" {
            exit(writeSeeds(arguments[2]))
        }
        if arguments.count >= 2, arguments[1] == "--replay" {
            exit(replay(Array(arguments.dropFirst(2)), run: run, remove: remove))
        }
        typealias Callback = @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
        typealias Driver = @convention(c) (UnsafeMutablePointer<Int32>,
                                           UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                                           Callback) -> Int32
        guard let symbol = dlsym(nil, "LLVMFuzzerRunDriver") else {
            printError("built without libFuzzer: run `make \(make)`, or replay inputs with --replay FILE...\n")
            exit(2)
        }
        running.withLock { $0 = RunBox(run) }
        var argc = CommandLine.argc
        var argv = CommandLine.unsafeArgv
        exit(unsafeBitCast(symbol, to: Driver.self)(&argc, &argv) { data, size in
            FuzzDriver.running.withLock { $0 }?.run(UnsafeBufferPointer(start: data, count: size), false)
            return 0
        })
    }

    /// The fuzzer's state, made once: a library that cannot be made ends the program.
    package static func setUp<State>(_ fuzzer: String, _ make: () throws -> State) -> State {
        do { return try make() } catch {
            printError("\(fuzzer) fuzz: cannot set up the library: \(error)\n")
            exit(2)
        }
    }

    /// Runs each file as one input, printing every request and its answer: a finding's story, and with the
    /// Swift runtime's backtracer (on by default) the stack of a crash.
    private static func replay(_ files: [String], run: Run, remove: () -> Void) -> Int32 {
        for file in files {
            guard let data = FileManager.default.contents(atPath: file) else {
                printError("cannot read \(file)\n")
                return 1
            }
            printOutput("== \(file)\n")
            Array(data).withUnsafeBufferPointer { run($0, true) }
        }
        remove()
        return 0
    }
}
