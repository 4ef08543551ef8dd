/// A line-change notice for the player's display.
package struct LyricEvent: Sendable, Equatable {
    package var lineIndex: Int
    package var timeMs: Int
    package var text: String

    package init(lineIndex: Int, timeMs: Int, text: String) {
        self.lineIndex = lineIndex
        self.timeMs = timeMs
        self.text = text
    }
}

/// Turns audio positions into line-change events. Pure state machine: the player feeds it positions.
///
/// - Advancing normally: one event per line whose time lies in (previous position, new position], in order
///   (lines with equal times each get one). The first update counts from the start of the song.
/// - After a seek, or when the position goes backwards: exactly one event, for the line at the new
///   position, even if it is the line shown before the seek. Before the first line there is no line and
///   so no event; `currentLineIndex` is then nil and the display should be cleared.
/// - No events when nothing changed.
package struct LyricSyncTracker: Sendable {
    package let timeline: LyricTimeline
    package private(set) var currentLineIndex: Int?
    /// The last position fed in; nil before the first update.
    package private(set) var positionMs: Int?

    package init(timeline: LyricTimeline) {
        self.timeline = timeline
    }

    package var currentLine: LyricLine? {
        currentLineIndex.map { timeline.lines[$0] }
    }

    package mutating func update(positionMs position: Int, seeked: Bool) -> [LyricEvent] {
        let previousIndex = currentLineIndex
        let wentBack = positionMs.map { position < $0 } ?? false
        let newIndex = timeline.lineIndex(at: position)
        positionMs = position
        currentLineIndex = newIndex

        guard let target = newIndex else { return [] }
        if seeked || wentBack { return [event(target)] }
        let first = (previousIndex ?? -1) + 1
        guard first <= target else { return [] }
        return (first...target).map(event)
    }

    package mutating func update(sample: Int, sampleRate: Int, seeked: Bool) -> [LyricEvent] {
        update(positionMs: LyricTimeline.milliseconds(atSample: sample, sampleRate: sampleRate), seeked: seeked)
    }

    /// Forgets the position, as before the first update (e.g. when the same song starts again).
    package mutating func reset() {
        currentLineIndex = nil
        positionMs = nil
    }

    private func event(_ index: Int) -> LyricEvent {
        let line = timeline.lines[index]
        return LyricEvent(lineIndex: index, timeMs: line.timeMs, text: line.text)
    }
}
