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
