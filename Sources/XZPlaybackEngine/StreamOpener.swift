import XZAudio
import XZPlaybackValues

/// Gives the bytes of a stream item (see `QueueItem.isStream`) as a file that fills while it plays. Called on
/// the audio thread when the item starts, so it must return at once and fetch in the background; the player
/// calls `release()` on the file when it is done with it.
package typealias StreamOpener = @Sendable (QueueItem) throws -> GrowingFile
