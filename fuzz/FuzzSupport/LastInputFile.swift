import Foundation

/// XZ_FUZZ_LAST: a file that holds the input being run, for a crash that corrupts the heap before
/// libFuzzer can save it.
package struct LastInputFile {
    private let descriptor: Int32 = ProcessInfo.processInfo.environment["XZ_FUZZ_LAST"]
        .map { open($0, O_WRONLY | O_CREAT | O_TRUNC, 0o644) } ?? -1

    package init() {}

    package func keep(_ input: UnsafeBufferPointer<UInt8>) {
        guard descriptor >= 0 else { return }
        _ = ftruncate(descriptor, 0)
        if let base = input.baseAddress { _ = pwrite(descriptor, base, input.count, 0) }
    }
}
