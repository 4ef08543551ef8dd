/// What ICU's Hant-Hans, Han-Latin and Latin-ASCII transforms make of each character search folds
/// through them, generated at development time (scripts/make-transform-tables.sh): building the
/// transforms at run time cost every one-shot CJK search over 100 ms. Each table is decoded on first use.
enum TransformTables {
    /// The simplified form of a traditional Han character; nil when ICU leaves it as it is.
    static func simplified(_ v: UInt32) -> Unicode.Scalar? {
        simplifiedForms[v].flatMap(Unicode.Scalar.init)
    }

    /// Toneless pinyin of a Han character (read through its simplified form); nil when ICU has none.
    static func pinyin(_ v: UInt32) -> String? {
        guard let slot = pinyinSlot(v) else { return nil }
        let syllable = pinyinTable.slots[slot]
        return syllable == 0 ? nil : pinyinTable.syllables[Int(syllable)]
    }

    /// Latin-ASCII of a Latin letter (U+0080-U+024F, U+1E00-U+1EFF); nil when ICU leaves it as it is.
    static func latinASCII(_ v: UInt32) -> String? { latinForms[v] }

    // MARK: Decoding

    /// Slots for U+3400-U+FAFF, then U+20000-U+3134F: every Han character the folding knows.
    private static let bmpSlots = 0xFB00 - 0x3400
    private static let astralSlots = 0x31350 - 0x20000

    private static func pinyinSlot(_ v: UInt32) -> Int? {
        switch v {
        case 0x3400..<0xFB00: return Int(v - 0x3400)
        case 0x20000..<0x31350: return bmpSlots + Int(v - 0x20000)
        default: return nil
        }
    }

    private static let simplifiedForms: [UInt32: UInt32] = {
        var forms: [UInt32: UInt32] = [:]
        var traditional: UInt32?
        for scalar in simplifiedPairs.unicodeScalars where scalar != "\n" {
            if let from = traditional {
                forms[from] = scalar.value
                traditional = nil
            } else {
                traditional = scalar.value
            }
        }
        return forms
    }()

    /// Each character's syllable as an index into `syllables` (0: none).
    private static let pinyinTable: (syllables: [String], slots: [UInt16]) = {
        var syllables = [""]
        var slots = [UInt16](repeating: 0, count: bmpSlots + astralSlots)
        var name = ""
        for scalar in pinyinLines.unicodeScalars {
            if scalar == " " {
                syllables.append(name)
                name = ""
            } else if scalar == "\n" {
                continue
            } else if scalar.isASCII {
                name.unicodeScalars.append(scalar)
            } else if let slot = pinyinSlot(scalar.value) {
                slots[slot] = UInt16(syllables.count - 1)
            }
        }
        return (syllables, slots)
    }()

    private static let latinForms: [UInt32: String] = {
        var forms: [UInt32: String] = [:]
        for line in latinLines.split(separator: "\n") {
            guard let tab = line.firstIndex(of: "\t"), let scalar = line.unicodeScalars.first else { continue }
            forms[scalar.value] = String(line[line.index(after: tab)...])
        }
        return forms
    }()
}
