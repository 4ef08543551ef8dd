/// A count of samples as a time, the one way every layer says it: whole milliseconds, rounded down, as
/// MPD's `SongTime::FromScale` makes a song's length (so `Time:` and `duration:` agree with MPD's).
package enum SampleTime {
    /// floor(sample * 1000 / sampleRate) without overflow; 0 for a sample rate <= 0.
    package static func milliseconds(atSample sample: Int, sampleRate: Int) -> Int {
        guard sampleRate > 0 else { return 0 }
        var (q, r) = sample.quotientAndRemainder(dividingBy: sampleRate)
        if r < 0 { q -= 1; r += sampleRate } // floor, not truncation, for negative positions
        let (whole, overflow) = q.multipliedReportingOverflow(by: 1000)
        if overflow { return q < 0 ? Int.min : Int.max }
        // r < sampleRate, so r * 1000 / sampleRate < 1000: the full-width division cannot trap.
        let part = sampleRate.dividingFullWidth(r.multipliedFullWidth(by: 1000)).quotient
        let (sum, sumOverflow) = whole.addingReportingOverflow(part)
        return sumOverflow ? Int.max : sum
    }
}
