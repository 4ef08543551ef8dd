import Foundation
import XZText

/// A payload type whose XML element holds one of its fields as text instead of an attribute (a genre's
/// name, a lyric line), as the spec's XML examples have it.
package protocol SubsonicXMLText {
    /// The key whose value is the element's text.
    static var xmlTextKey: String { get }
}

/// The format a client asked for with `f=`: XML (the default), JSON, or JSON wrapped in a call (`callback=`).
package enum SubsonicFormat: Sendable, Equatable {
    case xml
    case json
    case jsonp(callback: String)

    /// The longest callback name accepted.
    package static let maxCallbackLength = 256

    /// The format `request` asks for: error 10 for `jsonp` without `callback`, error 0 for another `f` or
    /// a callback that is no JavaScript name (`a.b_c$1`).
    package init(request: some SubsonicParameterReading) throws(SubsonicError) {
        switch request.value("f") {
        case nil, "xml": self = .xml
        case "json": self = .json
        case "jsonp":
            guard let callback = request.value("callback"), !callback.isEmpty else {
                throw SubsonicError.missingParameter("required parameter 'callback' is missing")
            }
            guard Self.isCallbackName(callback) else {
                throw SubsonicError(kind: .generic, message: "parameter 'callback' is not a JavaScript name")
            }
            self = .jsonp(callback: callback)
        default:
            throw SubsonicError(kind: .generic, message: "parameter 'f' is none of xml, json, jsonp")
        }
    }

    /// What an error about the format itself is sent in: JSON when JSON was meant, else XML.
    package static func fallback(for request: some SubsonicParameterReading) -> SubsonicFormat {
        if let format = try? SubsonicFormat(request: request) { return format }
        return request.value("f")?.hasPrefix("json") == true ? .json : .xml
    }

    /// Identifiers joined by dots, each of ASCII letters, digits, `_` and `$`, not starting with a digit.
    static func isCallbackName(_ text: String) -> Bool {
        guard text.utf8.count <= maxCallbackLength else { return false }
        return text.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false).allSatisfy { part in
            guard let first = part.first, !(0x30...0x39).contains(first) else { return false }
            return part.allSatisfy { byte in
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                    || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$")
            }
        }
    }

    package var contentType: String {
        switch self {
        case .xml: "text/xml; charset=utf-8"
        case .json: "application/json; charset=utf-8"
        case .jsonp: "application/javascript; charset=utf-8"
        }
    }
}

/// A response body and its type.
package struct SubsonicEncodedBody: Sendable, Equatable {
    package var bytes: [UInt8]
    package var contentType: String
}

/// The `subsonic-response` envelope around a document or an error, in the format asked for. Both formats
/// come from the same `Encodable` payloads.
package enum SubsonicEncoding {
    /// The Subsonic API version answered.
    package static let apiVersion = "1.16.1"
    package static let serverType = "xzmusic"
    package static let serverVersion = XZMusicVersion.string
    package static let xmlNamespace = "http://subsonic.org/restapi"

    /// A successful response. Throws only when a payload cannot be encoded (a number JSON cannot hold).
    package static func encode(_ document: SubsonicDocument, as format: SubsonicFormat) throws -> SubsonicEncodedBody {
        try encode(Envelope(status: "ok", error: nil, key: document.key, payload: document.payload), as: format)
    }

    /// A failed response with the error's code and message (control characters stripped).
    package static func encode(_ error: SubsonicError, as format: SubsonicFormat) -> SubsonicEncodedBody {
        let body = ErrorBody(code: error.code, message: SubsonicXMLEncoder.strippingForbidden(error.message))
        // Only text and an integer: nothing here can fail to encode.
        return (try? encode(Envelope(status: "failed", error: body, key: nil, payload: nil), as: format))
            ?? SubsonicEncodedBody(bytes: [], contentType: format.contentType)
    }

    private static func encode(_ envelope: Envelope, as format: SubsonicFormat) throws -> SubsonicEncodedBody {
        switch format {
        case .xml:
            let bytes = try SubsonicXMLEncoder.document(envelope, rootName: "subsonic-response",
                                                        rootAttributes: [("xmlns", xmlNamespace)])
            return SubsonicEncodedBody(bytes: bytes, contentType: format.contentType)
        case .json:
            return SubsonicEncodedBody(bytes: try json(envelope), contentType: format.contentType)
        case .jsonp(let callback):
            let bytes = Array(callback.utf8) + [UInt8(ascii: "(")] + (try json(envelope)) + Array(");".utf8)
            return SubsonicEncodedBody(bytes: bytes, contentType: format.contentType)
        }
    }

    private static func json(_ envelope: Envelope) throws -> [UInt8] {
        let encoder = JSONEncoder()
        // Keys in one order: the same document is the same bytes.
        encoder.outputFormatting = [.withoutEscapingSlashes, .sortedKeys]
        return Array(try encoder.encode(["subsonic-response": envelope]))
    }

    struct ErrorBody: Encodable {
        var code: Int
        var message: String
    }

    struct Envelope: Encodable {
        var status: String
        var error: ErrorBody?
        var key: String?
        var payload: (any Encodable & Sendable)?

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(_ text: String) { stringValue = text }
            init?(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: Key.self)
            try container.encode(status, forKey: Key("status"))
            try container.encode(SubsonicEncoding.apiVersion, forKey: Key("version"))
            try container.encode(SubsonicEncoding.serverType, forKey: Key("type"))
            try container.encode(SubsonicEncoding.serverVersion, forKey: Key("serverVersion"))
            try container.encode(true, forKey: Key("openSubsonic"))
            if let error { try container.encode(error, forKey: Key("error")) }
            if let key, let payload { try container.encode(payload, forKey: Key(key)) }
        }
    }
}
