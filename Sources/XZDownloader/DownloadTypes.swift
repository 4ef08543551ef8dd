import Foundation

/// What a task fetches for its song.
public enum DownloadKind: String, Codable, Sendable, CaseIterable {
    case audio, lyrics
}

public enum DownloadState: String, Codable, Sendable, CaseIterable {
    case queued, running, paused, done, failed, cancelled

    /// Nothing more will happen to the task without a user action.
    public var isFinal: Bool { self == .done || self == .failed || self == .cancelled }
}

/// One task by id, or every task the action applies to.
public enum DownloadTarget: Sendable, Equatable {
    case task(Int64)
    case all
}

/// A task as `downloads` shows it; the JSON keys are those of `downloads --json`, where JSONWriter
/// writes unknown values as null so that every task has every key.
public struct DownloadTaskInfo: Encodable, Sendable, Equatable {
    public var id: Int64
    public var songKey: String
    public var title: String
    public var singer: String
    public var kind: DownloadKind
    public var state: DownloadState
    public var bytesDone: Int64
    public var bytesTotal: Int64?
    /// Measured over the last few seconds; nil unless the task is running in this process.
    public var bytesPerSecond: Double?
    public var etaSeconds: Double?
    public var lastError: String?
    /// An outcome worth showing that is no error, e.g. "instrumental: no lyrics".
    public var note: String?
    /// Where the finished file is, once done.
    public var path: String?

    public init(id: Int64, songKey: String, title: String, singer: String, kind: DownloadKind, state: DownloadState,
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
public enum DownloadEvent: Sendable {
    case progress(DownloadTaskInfo)
    case finished(DownloadTaskInfo)
    case failed(DownloadTaskInfo)
}

/// What `enqueue(songs:)` did with each song.
public struct EnqueueResult: Sendable, Equatable {
    /// Ids of the tasks now queued (new, or re-queued after failing, pausing or cancelling).
    public var queued: [Int64] = []
    /// Song keys that needed nothing: already offline with lyrics, or a task already running.
    public var skipped: [String] = []
    /// Song keys that are not offline and have no audio URL to fetch.
    public var noSource: [String] = []

    public init() {}
}

/// A download failure with a message meant for the user.
public struct DownloadError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: Sendable, Equatable {
        /// An HTTP status that is not retried (or retries ran out on it).
        case http(Int)
        case network, timeout, diskFull, io, unsupportedURL, redirect
        /// Byte count, size or checksum does not match.
        case verification
        /// The body is not audio that decodes.
        case notAudio
        case unsafePath, database, lyrics
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
