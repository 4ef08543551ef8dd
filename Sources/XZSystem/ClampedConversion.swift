/// Numbers from outside (tags, files, clients, servers) made safe to compute with: `Int(_: Double)` traps
/// on NaN, infinity and anything past Int's range, and one crafted value must not stop the program.
extension Int {
    /// `value` rounded to the nearest whole number and held within `bounds`; NaN becomes `nan`.
    @inlinable
    package init(clamping value: Double, to bounds: ClosedRange<Int> = Int.min...Int.max, nan: Int = 0) {
        guard !value.isNaN else {
            self = Swift.min(Swift.max(nan, bounds.lowerBound), bounds.upperBound)
            return
        }
        let rounded = value.rounded()
        // Double(Int.max) rounds up past Int.max, so the bounds are compared as doubles first.
        if rounded <= Double(bounds.lowerBound) {
            self = bounds.lowerBound
        } else if rounded >= Double(bounds.upperBound) {
            self = bounds.upperBound
        } else {
            self = Int(rounded)
        }
    }
}

extension Double {
    /// The value held within `bounds`, NaN becoming `nan`: finite whatever it was.
    @inlinable
    package func clamped(to bounds: ClosedRange<Double>, nan: Double) -> Double {
        guard !isNaN else { return Swift.min(Swift.max(nan, bounds.lowerBound), bounds.upperBound) }
        return Swift.min(Swift.max(self, bounds.lowerBound), bounds.upperBound)
    }
}
