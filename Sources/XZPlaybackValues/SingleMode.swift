/// MPD's `single`: stop after the current track, always or once.
package enum SingleMode: String, Sendable, Equatable, CaseIterable {
    case off = "0", on = "1", oneshot
}
