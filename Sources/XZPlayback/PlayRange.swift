/// The part of a queued song that plays (MPD's `rangeid`): from `startMs`, to `endMs` or the song's end.
public struct PlayRange: Sendable, Equatable {
    public var startMs: Int
    public var endMs: Int?

    public init(startMs: Int, endMs: Int?) {
        self.startMs = startMs
        self.endMs = endMs
    }

    /// How setting an entry's range went.
    public enum Edit: Sendable, Equatable {
        case set
        case noSuchEntry
        /// The entry is the one playing: MPD does not edit it under the decoder.
        case playing
    }
}

extension PlayerStateMachine {
    /// Sets the part of entry `id` that plays; nil, or a part from 0 to the end, is the whole song.
    public mutating func setRange(_ range: PlayRange?, id: Int) -> PlayRange.Edit {
        guard let index = index(ofId: id) else { return .noSuchEntry }
        if isActive, index == currentIndex { return .playing }
        let whole = range.map { $0.startMs == 0 && $0.endMs == nil } ?? true
        version += 1
        entries[index].item.range = whole ? nil : range
        entries[index].version = version
        return .set
    }
}
