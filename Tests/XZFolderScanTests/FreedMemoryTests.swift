import Foundation
import XCTest
import XZSystem

/// A scan's freed memory goes back to the system: what glibc keeps in holes of its heap after a burst
/// of allocations leaves the resident set once `FreedMemory.returnToSystem` runs.
final class FreedMemoryTests: XCTestCase {
    func testFreedHolesLeaveTheResidentSet() throws {
        // 4,000 blocks of 8 KB, touched; every other one freed: 16 MB of holes the heap cannot shrink
        // past, since a live block follows each (below mmap's threshold, so they are heap blocks).
        let blocks = (0..<4_000).map { _ -> UnsafeMutableRawPointer in
            let block = malloc(8_192)!
            memset(block, 1, 8_192)
            return block
        }
        defer { for (index, block) in blocks.enumerated() where index % 2 == 1 { free(block) } }
        for (index, block) in blocks.enumerated() where index % 2 == 0 { free(block) }
        let before = try residentBytes()
        FreedMemory.returnToSystem()
        let after = try residentBytes()
        // At least one page of each 8 KB hole: 8 MB, whatever else the process does meanwhile.
        XCTAssertGreaterThan(before - after, 8_000_000, "resident before \(before), after \(after)")
    }

    private func residentBytes() throws -> Int {
        let fields = try String(contentsOfFile: "/proc/self/statm", encoding: .utf8).split(separator: " ")
        return (Int(fields[1]) ?? 0) * Int(sysconf(Int32(_SC_PAGESIZE)))
    }
}
