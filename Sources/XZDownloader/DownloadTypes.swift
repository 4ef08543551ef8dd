import XZSystem
import Foundation

/// What a task fetches for its song.
package enum DownloadKind: String, Codable, Sendable, CaseIterable {
    case audio, lyrics
}

package enum DownloadState: String, Codable, Sendable, CaseIterable {
    case queued, running, paused, done, failed, cancelled

    /// Nothing more will happen to the task without a user action.
    package var isFinal: Bool { self == .done || self == .failed || self == .cancelled }
}

/// One task by id, or every task the action applies to.
package enum DownloadTarget: Sendable, Equatable {
    case task(Int64)
    case all
}

/// A task as `downloads` shows it; the JSON keys are those of `downloads --json`, which
/// writes unknown values as null so that every task has every key.
package struct DownloadTaskInfo: Encodable, Sendable, Equatable {
    package var id: Int64
    package var songKey: String
    package var title: String
    package var singer: String
    package var kind: DownloadKind
    package var state: DownloadState
    package var bytesDone: Int64
    package var bytesTotal: Int64?
    /// Measured over the last few seconds; nil unless the task is running in this process.
    package var bytesPerSecond: Double?
    package var etaSeconds: Double?
    package var lastError: String?
    /// An outcome worth showing that is no error, e.g. "instrumental: no lyrics".
    package var note: String?
    /// Where the finished file is, once done.
    package var path: String?

    package init(id: Int64, songKey: String, title: String, singer: String, kind: DownloadKind, state: DownloadState,
                bytesDone: Int64 = 0, bytesTotal: Int64? = nil, bytesPerSecond: Double? = nil, etaSeconds: Double? = nil,
                lastError: String? = nil, note: String? = nil, path: String? = nil) {
        self.id = id
        self.songKey = songKey
        self.title = title
        self.singer = singer
        self.kind = kind
        self.state = state
        self.bytesDone = bytesDone
        self.bytesTotal = bytesTotal
        self.bytesPerSecond = bytesPerSecond
        self.etaSeconds = etaSeconds
        self.lastError = lastError
        self.note = note
        self.path = path
    }

    enum CodingKeys: String, CodingKey {
        case id, title, singer, kind, state, note, path
        case songKey = "song_key", bytesDone = "bytes_done", bytesTotal = "bytes_total"
        case bytesPerSecond = "bytes_per_second", etaSeconds = "eta_seconds", lastError = "last_error"
    }
}

/// For the REPL's progress lines. Progress events are throttled per task
/// (`DownloadSettings.progressInterval`).
package enum DownloadEvent: Sendable {
    case progress(DownloadTaskInfo)
    case finished(DownloadTaskInfo)
    case failed(DownloadTaskInfo)
}

/// What `enqueue(songs:)` did with each song.
package struct EnqueueResult: Sendable, Equatable {
    /// Ids of the tasks now queued (new, or re-queued after failing, pausing or cancelling).
    package var queued: [Int64] = []
    /// Song keys that needed nothing: already offline with lyrics, or a task already running.
    package var skipped: [String] = []
    /// Song keys that are not offline and have no audio URL to fetch.
    package var noSource: [String] = []

    package init() {}
}

/// A download failure, told apart by kind (`error == .diskFull`, `error == .http(404)`); the message is
/// the line shown to the user and takes no part in equality.
package struct DownloadError: KindedError {
    package enum Kind: Hashable, Sendable {
        case http(Int)
        case network, timeout, diskFull, io, unsupportedURL, redirect, verification, notAudio, unsafePath, database, lyrics
        case catalogueSource, tooLarge
    }

    package let kind: Kind
    package var message: String

    package static func ~= (kind: Self, error: any Error) -> Bool { kind.matches(error) }

    /// The HTTP status of an `.http` failure.
    package var httpStatus: Int? {
        if case .http(let status) = kind { return status }
        return nil
    }

    /// An HTTP status that is not retried (or retries ran out on it).
    package static func http(_ status: Int) -> DownloadError { DownloadError(kind: .http(status), message: "HTTP \(status)") }
    package static let network = DownloadError(kind: .network, message: "network failure")
    package static let timeout = DownloadError(kind: .timeout, message: "timed out")
    package static let diskFull = DownloadError(kind: .diskFull, message: "disk full")
    package static let io = DownloadError(kind: .io, message: "cannot read or write a file")
    package static let unsupportedURL = DownloadError(kind: .unsupportedURL, message: "unsupported URL")
    package static let redirect = DownloadError(kind: .redirect, message: "redirect not followed")
    /// Byte count, size or checksum does not match.
    package static let verification = DownloadError(kind: .verification, message: "the download does not match")
    /// The body is not audio that decodes.
    package static let notAudio = DownloadError(kind: .notAudio, message: "not playable audio")
    package static let unsafePath = DownloadError(kind: .unsafePath, message: "refusing to write outside the library folder")
    package static let database = DownloadError(kind: .database, message: "download database failure")
    package static let lyrics = DownloadError(kind: .lyrics, message: "lyrics failure")
    /// An open catalogue answered something that is not what it documents (HTML, broken JSON), or
    /// refuses what was asked of it.
    package static let catalogueSource = DownloadError(kind: .catalogueSource, message: "catalogue source failure")

    /// The body passed the size the server or the catalogue promised (or the largest download allowed);
    /// nothing of it is kept.
    package static let tooLarge = DownloadError(kind: .tooLarge, message: "the download is larger than promised")

    package static func http(_ status: Int, _ message: String) -> DownloadError { DownloadError(kind: .http(status), message: message) }
}
