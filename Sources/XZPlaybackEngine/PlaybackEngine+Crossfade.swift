import Foundation
import XZAudio
import XZPlaybackValues

/// The crossfade of the audio thread: when the next song opens, where the fade begins, and the mix of
/// the outgoing song under the incoming one.
extension PlaybackEngine {
    /// Opens the next song when the loaded one's end comes near and starts the fade at its place; caps
    /// `frames` so a chunk ends there. False when no chunk is to be played now (the fade began, or commands wait).
    func planFade(_ track: LoadedTrack, _ settings: CrossfadeSettings, frames: inout Int) -> Bool {
        guard settings.isEnabled, !settings.onlyOnSkip, track.source == nil, !track.waiting,
              let length = track.decoder.lengthInSamples else {
            // Turned off: a later end decides afresh.
            if case .planned = fadePlan { fadePlan = .undecided }
            return true
        }
        let remaining = length - track.decoder.positionInSamples
        if case .undecided = fadePlan {
            let lookahead = settings.lookaheadFrames(rate: track.format.sampleRate)
            if remaining > lookahead {
                frames = min(frames, remaining - lookahead)
                return true
            }
            fadePlan = decideFade(track, settings, remaining: remaining)
        }
        guard case .planned(let handoff) = fadePlan else { return true }
        if remaining > handoff.frames {
            frames = min(frames, remaining - handoff.frames)
            return true
        }
        return !beginFade(track, handoff)
    }

    /// MPD's choice: the song that plays next when this one ends, if both may fade (see `canCrossFade`),
    /// with the overlap from their MixRamp tags or the crossfade setting.
    func decideFade(_ track: LoadedTrack, _ settings: CrossfadeSettings, remaining: Int) -> FadePlan {
        guard let next = core.withLock({ $0.machine.upcomingStart(afterEndOf: track.start.generation) }),
              !next.item.isStream else { return .none }
        if settings.skipsAlbums, CrossfadeSettings.continuesAlbum(from: track.start.item, to: next.item) { return .none }
        // A song that cannot be opened fails when its turn comes, as without a fade.
        guard let decoder = try? AudioDecoders.open(path: next.item.decodedPath),
              settings.canCrossFade(currentFrames: track.decoder.lengthInSamples, nextFrames: decoder.lengthInSamples,
                                    format: track.format, nextFormat: decoder.format) else { return .none }
        var start: String?, end: String?
        if settings.isMixRampEnabled {
            start = AudioTags.mixRamp(path: next.item.decodedPath)?.start
            end = AudioTags.mixRamp(path: track.start.item.decodedPath)?.end
        }
        func decibels(_ scale: Double) -> Double { scale > 0 ? 20 * log10(scale) : 0 }
        let overlap = settings.overlap(rate: track.format.sampleRate, mixRampStart: start, mixRampPreviousEnd: end,
                                       gainDB: decibels(replayGainScale(for: next.item, source: nil)),
                                       previousGainDB: decibels(track.replayGainScale))
        let frames = min(overlap.frames, remaining)
        guard frames > 0 else { return .none }
        return .planned(Handoff(item: next.item, decoder: decoder, frames: frames, sums: overlap.sums))
    }

    /// Ends the loaded song now, `handoff.frames` before its last sample, as if it had played out: the
    /// machine moves on, and the song fades out under the next one. True when no chunk is to be played now.
    func beginFade(_ track: LoadedTrack, _ handoff: Handoff) -> Bool {
        enum Outcome { case later, cancelled, begun([PlayerChanges]) }
        let outcome = core.withLock { core -> Outcome in
            // Commands go first; they may leave this song or the queue otherwise.
            guard core.mailbox.allSatisfy({ $0.report != nil }) else { return .later }
            var machine = core.machine
            let effects = machine.trackEnded(generation: track.start.generation)
            guard effects.count == 1, case .start(let start) = effects[0], start.item == handoff.item else { return .cancelled }
            let reports = core.mailbox.compactMap(\.report)
            core.mailbox.removeAll()
            core.machine = machine
            _ = core.enqueue(effects)
            return .begun(reports)
        }
        switch outcome {
        case .later:
            return true
        case .cancelled:
            // The queue changed since: this song plays out and the next starts on its own.
            fadePlan = .none
            return false
        case .begun(let reports):
            for changes in reports { emit(.changed(changes)) }
            retiring = retire(.completed)
            self.handoff = handoff
            return true
        }
    }

    /// Lets `old` fade out under the song just loaded: the planned overlap at a song's end, or on a skip the
    /// crossfade's length (or what is left of `old`), when the two may fade.
    func fadeOut(_ old: LoadedTrack, under new: LoadedTrack, handoff: Handoff?) {
        if let handoff {
            outgoing = Outgoing(track: old, frames: handoff.frames, sums: handoff.sums)
            return
        }
        let settings = core.withLock { $0.machine.crossfade }
        guard settings.canCrossFade(currentFrames: old.decoder.lengthInSamples, nextFrames: new.decoder.lengthInSamples,
                                    format: old.format, nextFormat: new.format),
              let length = old.decoder.lengthInSamples else { return }
        let frames = min(settings.seconds * old.format.sampleRate, length - old.decoder.positionInSamples)
        if frames > 0 { outgoing = Outgoing(track: old, frames: frames, sums: false) }
    }

    /// Decodes as much of the outgoing song as `pcm` holds (or is left of its fade) and mixes it in.
    func mixOutgoing(into pcm: UnsafeMutableRawBufferPointer, frames: Int, volume: Int) {
        guard var fade = outgoing else { return }
        let old = fade.track
        let want = min(frames, fade.frames - fade.done)
        let sameLayout = old.format.sample == old.outputFormat.sample
        let target = sameLayout ? fadeBuffer : decodeBuffer
        // A read error ends the fade early; the song coming in is not hurt by it.
        let count = (try? old.decoder.read(into: UnsafeMutableRawBufferPointer(rebasing: target[0..<want * old.format.bytesPerFrame]))) ?? 0
        let got = count / old.format.bytesPerFrame
        if got > 0 {
            PCMConversion.convert(target.baseAddress!, old.format.sample, samples: got * old.format.channels,
                                  into: fadeBuffer.baseAddress!, old.outputFormat.sample, volume: volume,
                                  scale: old.replayGainScale)
            CrossFadeMix.mix(into: pcm.baseAddress!, fadeBuffer.baseAddress!, old.outputFormat.sample,
                             channels: old.format.channels, frames: got, done: fade.done, total: fade.frames, sums: fade.sums)
        }
        fade.done += got
        outgoing = got < want || fade.done >= fade.frames ? nil : fade
    }
}
