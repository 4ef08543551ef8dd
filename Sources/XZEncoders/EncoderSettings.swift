/// An `audio_output` block's encoder settings, read by MPD's names; each number parsed into its domain, or a
/// one-line `EncoderError.badSetting` naming the key.
struct EncoderSettings {
    let values: [String: String]

    init(_ values: [String: String]) { self.values = values }

    subscript(key: String) -> String? { values[key] }

    /// An integer in `range`; `nil` when the key is absent.
    func integer(_ key: String, in range: ClosedRange<Int>, why: String? = nil) throws(EncoderError) -> Int? {
        guard let text = values[key] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw .badSetting(key, why ?? "\(key) \(quoted(text)) is not a number in the range \(range.lowerBound) to \(range.upperBound)")
        }
        return value
    }

    /// A finite number in `range` (decimal, as MPD's `ParseDouble` reads it); `nil` when the key is absent.
    func number(_ key: String, in range: ClosedRange<Double>, shown: String) throws(EncoderError) -> Double? {
        guard let text = values[key] else { return nil }
        guard let value = Double(text), value.isFinite, range.contains(value) else {
            throw .badSetting(key, "\(key) \(quoted(text)) is not a number in the range \(shown)")
        }
        return value
    }

    /// One of `words`; `nil` when the key is absent.
    func word<T>(_ key: String, _ words: KeyValuePairs<String, T>) throws(EncoderError) -> T? {
        guard let text = values[key] else { return nil }
        if let hit = words.first(where: { $0.key == text }) { return hit.value }
        let names = words.map { "\"\($0.key)\"" }
        let list = names.dropLast().joined(separator: ", ") + " or " + (names.last ?? "")
        throw .badSetting(key, "\(key) \(quoted(text)) is not \(list)")
    }

    /// A value as a message shows it: quoted, its control characters escaped, cut at 64 characters.
    func quoted(_ text: String) -> String {
        var shown = ""
        for scalar in text.unicodeScalars.prefix(64) {
            shown += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return "\"" + shown + (text.unicodeScalars.count > 64 ? "…" : "") + "\""
    }
}

/// The settings Vorbis and LAME share: a VBR `quality` or a `bitrate` in kbit/s, never both (MPD's rule).
enum QualityOrBitrate: Equatable {
    case quality(Double)
    case bitrate(Int)

    /// `nil` when neither is set.
    static func read(_ settings: EncoderSettings, quality: ClosedRange<Double>, qualityShown: String,
                     maxBitrate: Int) throws(EncoderError) -> QualityOrBitrate? {
        if let q = try settings.number("quality", in: quality, shown: qualityShown) {
            if settings["bitrate"] != nil { throw .badSetting("quality", "quality and bitrate are both defined") }
            return .quality(q)
        }
        guard let text = settings["bitrate"] else { return nil }
        let bitrate = try settings.integer("bitrate", in: 1...maxBitrate,
            why: "bitrate \(settings.quoted(text)) should be a positive integer (kbit/s, at most \(maxBitrate))")
        return bitrate.map { .bitrate($0) }
    }
}
