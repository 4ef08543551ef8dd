import XZAudio

/// The part of a queued song that plays (MPD's `rangeid`): from `startMs`, to `endMs` or the song's end.
package struct PlayRange: Sendable, Equatable {
    package var startMs: Int
    package var endMs: Int?
    /// A CUE sheet track's bounds in CD frames (75 a second), which the player turns into samples exactly,
    /// so one track ends on the sample the next one starts at; nil: the part is in milliseconds.
    package var cdFrames: CDFrames?

    package struct CDFrames: Sendable, Equatable {
        package var start: Int
        package var end: Int?
        package init(start: Int, end: Int?) {
            self.start = start
            self.end = end
        }
    }

    package init(startMs: Int, endMs: Int?) {
        self.startMs = startMs
        self.endMs = endMs
    }

    /// A CUE sheet track's part: its milliseconds rounded down, as MPD's song times are.
    package init(cdFrames: CDFrames) {
        self.init(startMs: CueSheet.milliseconds(frames: cdFrames.start), endMs: cdFrames.end.map(CueSheet.milliseconds))
        self.cdFrames = cdFrames
    }

    /// How setting an entry's range went.
    package enum Edit: Sendable, Equatable {
        case set
        case noSuchEntry
        /// The entry is the one playing: MPD does not edit it under the decoder.
        case playing
    }
}
