/// Memory the program has freed, handed back to the system. glibc keeps freed blocks inside its arenas
/// for reuse, so after a burst of short-lived allocations (a folder scan's tags and rows for 10,000 songs)
/// a long-running host would hold some 10 MB it no longer uses for as long as it runs.
package enum FreedMemory {
    /// Returns the freed pages of every arena (milliseconds on a large heap): call after a burst, not in
    /// a loop.
    package static func returnToSystem() {
        _ = glibcMallocTrim(0)
    }
}

/// glibc's malloc_trim(3), which the Glibc module does not import (it is declared in malloc.h); its one
/// size_t argument and int result pass the same way in Swift's and C's calling conventions.
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
