/// What an endpoint answers: a document the transport encodes as the client asked (`f=`), or media bytes.
package enum SubsonicReply: Sendable {
    /// `subsonic-response` with `status="ok"`, holding `payload` under `key` ("album", "artists" …), or
    /// nothing (`ping`, `star` …).
    case document(SubsonicDocument)
    /// A file's bytes, whole or the byte range asked for (raw `stream`, `download`).
    case file(FileReply)
    /// Bytes produced as they are sent (a transcode).
    case stream(StreamReply)
    /// A small body held in memory (cover art, from its cache).
    case bytes(BytesReply)

    /// A document with nothing in it but the envelope.
    package static let empty = SubsonicReply.document(SubsonicDocument())
}

/// A successful response's payload, under its key.
package struct SubsonicDocument: Sendable {
    package var key: String?
    package var payload: (any Encodable & Sendable)?

    package init() {}

    package init(_ key: String, _ payload: any Encodable & Sendable) {
        self.key = key
        self.payload = payload
    }
}

/// A range of a file on disk.
package struct FileReply: Sendable {
    package var path: String
    package var contentType: String
    /// The file's whole size, for Content-Length and Content-Range.
    package var size: Int64
    /// The bytes to send; the whole file when nil (200), else 206.
    package var range: ClosedRange<Int64>?
    /// Extra headers (Content-Disposition for `download`).
    package var headers: [(name: String, value: String)] = []

    package init(path: String, contentType: String, size: Int64, range: ClosedRange<Int64>? = nil,
                 headers: [(name: String, value: String)] = []) {
        self.path = path
        self.contentType = contentType
        self.size = size
        self.range = range
        self.headers = headers
    }
}

/// Where a produced body goes. `write` blocks while the client is behind, and throws once it is gone.
package protocol MediaSink: Sendable {
    func write(_ bytes: [UInt8]) throws
}

/// Bytes produced on a thread of their own (decoding and encoding block) as the client takes them.
package struct StreamReply: Sendable {
    package var contentType: String
    /// A length announced before the bytes exist (`estimateContentLength`); nil sends it chunked.
    package var estimatedLength: Int64?
    package var headers: [(name: String, value: String)] = []
    /// Runs on a dedicated thread; returns when the body is complete.
    package var produce: @Sendable (any MediaSink) throws -> Void

    package init(contentType: String, estimatedLength: Int64? = nil, headers: [(name: String, value: String)] = [],
                 produce: @escaping @Sendable (any MediaSink) throws -> Void) {
        self.contentType = contentType
        self.estimatedLength = estimatedLength
        self.headers = headers
        self.produce = produce
    }
}

package struct BytesReply: Sendable {
    package var contentType: String
    package var bytes: [UInt8]
    package var headers: [(name: String, value: String)] = []

    package init(contentType: String, bytes: [UInt8], headers: [(name: String, value: String)] = []) {
        self.contentType = contentType
        self.bytes = bytes
        self.headers = headers
    }
}
