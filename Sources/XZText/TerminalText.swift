/// Text from outside (tags, lyrics, server replies) made safe to print: no ESC, no other control
/// characters, no bidi overrides that could reorder what the terminal shows.
package enum TerminalText {
    package static func sanitize(_ text: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar.value {
            case 0x09, 0x0A, 0x0D: out.append(" ")
            case 0x00...0x1F, 0x7F...0x9F: continue
            case 0x202A...0x202E, 0x2066...0x2069: continue
            default: out.append(scalar)
            }
        }
        return String(out)
    }
}
