import XZPlaybackValues

/// Rearranging the queue without playing anything: MPD's move, swap, shuffle and priorities.
/// Every edit goes through `rebuild`, so ids, the play order and versions stay right.
extension PlayerStateMachine {
    /// Moves the items in `range` so that the first lands at `position`; false when out of range.
    package mutating func move(range: Range<Int>, to position: Int) -> Bool {
        guard !range.isEmpty, range.lowerBound >= 0, range.upperBound <= entries.count,
              position >= 0, position + range.count <= entries.count else { return false }
        var updated = entries
        let moved = Array(updated[range])
        updated.removeSubrange(range)
        updated.insert(contentsOf: moved, at: position)
        rebuild(updated)
        return true
    }

    package mutating func swap(_ first: Int, _ second: Int) -> Bool {
        guard entries.indices.contains(first), entries.indices.contains(second) else { return false }
        var updated = entries
        updated.swapAt(first, second)
        rebuild(updated)
        return true
    }

    /// Puts the items in `range` in a random order (MPD's `shuffle`, not random mode).
    package mutating func shuffleQueue(range: Range<Int>) -> Bool {
        guard range.lowerBound >= 0, range.upperBound <= entries.count else { return false }
        var updated = entries
        var indices = Array(range)
        if indices.count > 1 {
            for i in stride(from: indices.count - 1, to: 0, by: -1) { indices.swapAt(i, random.next(below: i + 1)) }
        }
        for (slot, source) in zip(range, indices) { updated[slot] = entries[source] }
        rebuild(updated)
        return true
    }

    /// Sets the priority (0-255) of the items at `indices`; in random mode higher ones play sooner.
    package mutating func setPriority(_ priority: Int, at indices: [Int]) -> Bool {
        guard indices.allSatisfy(entries.indices.contains) else { return false }
        version += 1
        for index in indices {
            entries[index].priority = priority
            entries[index].version = version
        }
        if shuffle {
            let from = currentIndex.flatMap { order.firstIndex(of: $0) }.map { $0 + 1 } ?? 0
            let rest = order[from...].enumerated().sorted {
                (entries[$0.element].priority, -$0.offset) > (entries[$1.element].priority, -$1.offset)
            }.map(\.element)
            order.replaceSubrange(from..., with: rest)
        }
        return true
    }
}

extension PlayerStateMachine {
    /// Sets the part of entry `id` that plays; nil, or a part from 0 to the end, is the whole song.
    package mutating func setRange(_ range: PlayRange?, id: Int) -> PlayRange.Edit {
        guard let index = index(ofId: id) else { return .noSuchEntry }
        if isActive, index == currentIndex { return .playing }
        let whole = range.map { $0.startMs == 0 && $0.endMs == nil } ?? true
        version += 1
        entries[index].item.range = whole ? nil : range
        entries[index].version = version
        return .set
    }
}
