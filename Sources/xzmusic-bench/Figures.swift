import Foundation

/// The value at fraction `p` (0.5 the median) of an ascending list; 0 for an empty one.
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
}

func benchFailure(_ message: String) -> NSError {
    NSError(domain: "bench", code: 1, userInfo: [NSLocalizedDescriptionKey: message])
}
