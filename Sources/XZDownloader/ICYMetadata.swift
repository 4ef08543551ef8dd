import Foundation
import XZAudio

/// The metadata a SHOUTcast or Icecast station puts between its audio bytes when asked (`Icy-MetaData: 1`):
/// after every `icy-metaint` bytes of audio, one length byte and that many 16-byte blocks of
/// `StreamTitle='…';StreamUrl='…';`, padded with NULs. Splits a response's body into its audio and the titles.
struct ICYMetadata: Sendable {
    /// The request header that asks for it.
    static let requestHeader = ("Icy-MetaData", "1")
    /// The longest audio run between blocks taken from a server: real ones use 8 to 64 KiB.
    static let maxInterval = 1 << 20
    /// A block is at most 16 × 255 bytes: its length is one byte counting 16-byte units.
    static let maxBlockBytes = 16 * 255

    /// Why a response's `icy-metaint` cannot be used.
    struct BadInterval: Error, CustomStringConvertible {
        let value: String
        var description: String {
            let shown = value.count > 40 ? String(value.prefix(40)) + "…" : value
            return "the station's icy-metaint \"\(StreamTags.text(Array(shown.utf8)))\" is no byte count from 1 to \(ICYMetadata.maxInterval)"
        }
    }

    let interval: Int
    /// Audio bytes before the next length byte.
    private var audioLeft: Int
    /// Bytes of the current block still to come.
    private var blockLeft = 0
    private var block: [UInt8] = []

    /// The splitter for a response whose headers are `headers` (names lower-cased): nil when the station sends
    /// no metadata (no `icy-metaint`, or 0); throws for a value that is no usable count.
    static func forResponse(_ headers: [String: String]) throws(BadInterval) -> ICYMetadata? {
        guard let text = headers["icy-metaint"] else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard let interval = Int(trimmed), interval >= 0, interval <= maxInterval else { throw BadInterval(value: text) }
        return interval == 0 ? nil : ICYMetadata(interval: interval)
    }

    init(interval: Int) {
        self.interval = interval
        audioLeft = interval
        block.reserveCapacity(Self.maxBlockBytes)
    }

    /// Feeds body bytes in order: `audio` gets each run of audio, `title` each block's `StreamTitle` (nil for a
    /// block without one) with how many audio bytes of this call came before it.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, audio: (UnsafeRawBufferPointer) -> Void,
                       title: (_ audioBefore: Int, _ title: String?) -> Void) {
        var at = 0, audioBytes = 0
        while at < bytes.count {
            if blockLeft > 0 {
                let n = min(blockLeft, bytes.count - at)
                block.append(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[at ..< at + n]))
                at += n
                blockLeft -= n
                if blockLeft == 0 {
                    title(audioBytes, Self.streamTitle(in: block))
                    block.removeAll(keepingCapacity: true)
                }
            } else if audioLeft == 0 {
                blockLeft = Int(bytes[at]) * 16
                at += 1
                audioLeft = interval
            } else {
                let n = min(audioLeft, bytes.count - at)
                audio(UnsafeRawBufferPointer(rebasing: bytes[at ..< at + n]))
                at += n
                audioLeft -= n
                audioBytes += n
            }
        }
    }

    /// `StreamTitle`'s value: from `StreamTitle='` to the next `';` (a title may hold a lone `'`), or to the
    /// block's last `'` when none follows. Nil when the block names no title (an empty block, or garbage).
    static func streamTitle(in block: [UInt8]) -> String? {
        let key = Array("StreamTitle='".utf8)
        guard block.count >= key.count,
              let start = (0 ... block.count - key.count).first(where: { block[$0 ..< $0 + key.count].elementsEqual(key) })
        else { return nil }
        let from = start + key.count
        var end: Int?
        var i = from
        while i < block.count {
            if block[i] == UInt8(ascii: "'"), i + 1 < block.count, block[i + 1] == UInt8(ascii: ";") {
                end = i
                break
            }
            i += 1
        }
        if end == nil { end = block[from...].lastIndex(of: UInt8(ascii: "'")) }
        guard let end else { return nil }
        return StreamTags.text(block[from ..< end])
    }
}
