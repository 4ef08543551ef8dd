import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import XCTest
import XZTestSupport
@testable import XZSubsonicAPI

/// The envelope in XML, JSON and JSONP, from one set of payloads: the XML holds the JSON's fields as
/// attributes and elements.
final class EncodingTests: XCTestCase {
    /// A song with every kind of field: text needing escapes, numbers, booleans, dates, objects, arrays.
    static func song(_ id: Int64, title: String = "Tom & \"Jerry\" <live> 'n'") -> SubsonicChild {
        var child = SubsonicChild(id: SubsonicID.song(id).text, title: title)
        child.parent = SubsonicID.folder("王菲/红豆").text
        child.album = "红豆"
        child.artist = "王菲"
        child.track = 2
        child.year = 1998
        child.genre = "Pop"
        child.coverArt = "al-3"
        child.size = 5_000_000_000
        child.contentType = "audio/flac"
        child.suffix = "flac"
        child.duration = 241
        child.bitRate = 1011
        child.bitDepth = 24
        child.samplingRate = 96_000
        child.channelCount = 2
        child.path = "王菲/红豆/02.flac"
        child.isVideo = false
        child.discNumber = 1
        child.created = SubsonicDate(stamp: "2026-01-02T03:04:05Z")
        child.albumId = "al-3"
        child.artistId = "ar-2"
        child.type = "music"
        child.mediaType = "song"
        child.genres = [ItemGenre(name: "Pop"), ItemGenre(name: "Mandopop")]
        child.artists = [ArtistID3(id: "ar-2", name: "王菲")]
        child.displayArtist = "王菲"
        child.albumArtists = [ArtistID3(id: "ar-2", name: "王菲")]
        child.displayAlbumArtist = "王菲"
        child.replayGain = ReplayGain(trackGain: -6.5, albumGain: -7.25, trackPeak: 0.891, albumPeak: 1)
        child.apply(SubsonicAnnotation(starred: SubsonicDate(Date(timeIntervalSince1970: 1_700_000_000.5)), userRating: 4, playCount: 3))
        return child
    }

    func testXMLHoldsEveryFieldOfTheJSONAsAttributesAndElements() throws {
        let entities = try ModelFixtures.entities(children: [Self.song(1), Self.song(2, title: "二")])
        for (endpoint, key, value) in ModelFixtures.responses(entities) {
            let document = SubsonicDocument(key, value)
            let json = try SubsonicEncoding.encode(document, as: .json)
            let xml = try SubsonicEncoding.encode(document, as: .xml)
            XCTAssertEqual(json.contentType, "application/json; charset=utf-8")
            XCTAssertEqual(xml.contentType, "text/xml; charset=utf-8")
            let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: Any])
            let root = try XCTUnwrap(XMLDocument(data: Data(xml.bytes), options: []).rootElement())
            XCTAssertEqual(root.name, "subsonic-response")
            XCTAssertEqual(root.uri, SubsonicEncoding.xmlNamespace, endpoint)
            try Self.assertSame(try XCTUnwrap(object["subsonic-response"] as? [String: Any]), root, path: endpoint)
            let envelope = try XCTUnwrap(object["subsonic-response"] as? [String: Any])
            XCTAssertEqual(envelope["status"] as? String, "ok")
            XCTAssertEqual(envelope["version"] as? String, "1.16.1")
            XCTAssertEqual(envelope["type"] as? String, "xzmusic")
            XCTAssertEqual(envelope["serverVersion"] as? String, SubsonicEncoding.serverVersion)
            XCTAssertEqual(envelope["openSubsonic"] as? Bool, true)
            XCTAssertNotNil(envelope[key], endpoint)
        }
    }

    func testScalarsAreAttributesObjectsAndArraysElementsTextWhereTheSpecHasIt() throws {
        let genres = Genres(genre: [SubsonicGenre(value: "Rock & Roll", songCount: 3, albumCount: 1), SubsonicGenre(value: "Pop", songCount: 1, albumCount: 1)])
        let xml = String(decoding: try SubsonicEncoding.encode(SubsonicDocument("genres", genres), as: .xml).bytes, as: UTF8.self)
        XCTAssertEqual(xml, """
            <?xml version="1.0" encoding="UTF-8"?>
            <subsonic-response xmlns="http://subsonic.org/restapi" status="ok" version="1.16.1" type="xzmusic" \
            serverVersion="\(SubsonicEncoding.serverVersion)" openSubsonic="true"><genres>\
            <genre songCount="3" albumCount="1">Rock &amp; Roll</genre><genre songCount="1" albumCount="1">Pop</genre>\
            </genres></subsonic-response>
            """)
        let song = String(decoding: try SubsonicEncoding.encode(SubsonicDocument("song", Self.song(7)), as: .xml).bytes, as: UTF8.self)
        XCTAssertTrue(song.contains(#"<song id="so-7" parent="#), song)
        XCTAssertTrue(song.contains(#" isDir="false" title="Tom &amp; &quot;Jerry&quot; &lt;live&gt; 'n'""#), song)
        XCTAssertTrue(song.contains(#" size="5000000000""#), song)
        XCTAssertTrue(song.contains(#" created="2026-01-02T03:04:05.000Z""#), song)
        XCTAssertTrue(song.contains(#" starred="2023-11-14T22:13:20.500Z""#), song)
        XCTAssertTrue(song.contains(#"<genres name="Pop"/><genres name="Mandopop"/>"#), song)
        XCTAssertTrue(song.contains(#"<replayGain trackGain="-6.5" albumGain="-7.25" trackPeak="0.891" albumPeak="1.0"/>"#), song)
        XCTAssertFalse(song.contains("comment="), "nil fields are left out")
    }

    func testTextIsEscapedAndWhatXMLForbidsIsLeftOut() throws {
        let title = "a\u{1}b\u{8}c\u{1B}d\te\nf\r\u{FFFE}g & <h> \"i\" 'j' 王"
        let child = SubsonicChild(id: "so-1", title: title)
        let xml = try SubsonicEncoding.encode(SubsonicDocument("song", child), as: .xml)
        let root = try XCTUnwrap(XMLDocument(data: Data(xml.bytes), options: []).rootElement())
        let song = try XCTUnwrap(root.elements(forName: "song").first)
        XCTAssertEqual(Self.attribute("title", of: song), "abcd\te\nf\rg & <h> \"i\" 'j' 王")
        // JSON escapes what it must and keeps every character.
        let json = try SubsonicEncoding.encode(SubsonicDocument("song", child), as: .json)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: [String: Any]])
        XCTAssertEqual((object["subsonic-response"]?["song"] as? [String: Any])?["title"] as? String, title)
    }

    func testErrorsCarryTheSpecsCodeInBothFormats() throws {
        let error = SubsonicError(kind: .notFound, message: "no such album \u{7}<x>")
        let xml = SubsonicEncoding.encode(error, as: .xml)
        let root = try XCTUnwrap(XMLDocument(data: Data(xml.bytes), options: []).rootElement())
        XCTAssertEqual(Self.attribute("status", of: root), "failed")
        let element = try XCTUnwrap(root.elements(forName: "error").first)
        XCTAssertEqual(Self.attribute("code", of: element), "70")
        XCTAssertEqual(Self.attribute("message", of: element), "no such album <x>")
        let json = SubsonicEncoding.encode(error, as: .json)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: [String: Any]])
        let envelope = try XCTUnwrap(object["subsonic-response"])
        XCTAssertEqual(envelope["status"] as? String, "failed")
        XCTAssertEqual(envelope["openSubsonic"] as? Bool, true)
        XCTAssertEqual((envelope["error"] as? [String: Any])?["code"] as? Int, 70)
    }

    func testJSONPWrapsTheJSONInTheCallbackNamed() throws {
        let request = SubsonicRequest(endpoint: "ping", parameters: [("f", "jsonp"), ("callback", "app.handlers.$cb_1")],
                                      clientAddress: "127.0.0.1")
        let format = try SubsonicFormat(request: request)
        XCTAssertEqual(format, .jsonp(callback: "app.handlers.$cb_1"))
        let body = try SubsonicEncoding.encode(SubsonicDocument(), as: format)
        XCTAssertEqual(body.contentType, "application/javascript; charset=utf-8")
        let text = String(decoding: body.bytes, as: UTF8.self)
        XCTAssertTrue(text.hasPrefix("app.handlers.$cb_1({\"subsonic-response\":"), text)
        XCTAssertTrue(text.hasSuffix("});"), text)
        let json = try SubsonicEncoding.encode(SubsonicDocument(), as: .json)
        XCTAssertEqual(Array(body.bytes.dropFirst("app.handlers.$cb_1(".utf8.count).dropLast(2)), json.bytes, "the same JSON, keys in one order")
    }

    func testFormatsOtherThanTheSpecsAndBadCallbacksAreRefused() throws {
        func format(_ parameters: [(String, String)]) -> Result<SubsonicFormat, SubsonicError> {
            let request = SubsonicRequest(endpoint: "ping", parameters: parameters.map { (name: $0.0, value: $0.1) }, clientAddress: "::1")
            return Result { () throws(SubsonicError) in try SubsonicFormat(request: request) }
        }
        XCTAssertEqual(try format([]).get(), .xml)
        XCTAssertEqual(try format([("f", "xml")]).get(), .xml)
        XCTAssertEqual(try format([("f", "json")]).get(), .json)
        XCTAssertEqual(try format([("f", "jsonp"), ("callback", "cb")]).get(), .jsonp(callback: "cb"))
        for (parameters, code) in [
            ([("f", "jsonp")], 10), ([("f", "jsonp"), ("callback", "")], 10),
            ([("f", "jsonp"), ("callback", "alert(1)")], 0), ([("f", "jsonp"), ("callback", "a..b")], 0),
            ([("f", "jsonp"), ("callback", "1a")], 0), ([("f", "jsonp"), ("callback", "a.")], 0),
            ([("f", "jsonp"), ("callback", "a\u{0}b")], 0), ([("f", "jsonp"), ("callback", "函数")], 0),
            ([("f", "jsonp"), ("callback", String(repeating: "a", count: 5_000))], 0),
            ([("f", "yaml")], 0), ([("f", "")], 0),
        ] {
            guard case .failure(let error) = format(parameters) else { XCTFail("\(parameters) accepted"); continue }
            XCTAssertEqual(error.code, code, "\(parameters.map { "\($0.0)=\($0.1.prefix(20))" })")
        }
        let jsonp = SubsonicRequest(endpoint: "ping", parameters: [("f", "jsonp")], clientAddress: "::1")
        XCTAssertEqual(SubsonicFormat.fallback(for: jsonp), .json)
        XCTAssertEqual(SubsonicFormat.fallback(for: SubsonicRequest(endpoint: "ping", parameters: [("f", "x")], clientAddress: "::1")), .xml)
    }

    func testALargeListEncodesInBothFormats() throws {
        let songs = (1...5_000).map { Self.song(Int64($0), title: "Song \($0)") }
        let album = AlbumID3WithSongs(album: AlbumID3(id: "al-1", name: "Big", songCount: songs.count, duration: 0,
                                                      created: SubsonicDate(Date())), song: songs)
        let xml = try SubsonicEncoding.encode(SubsonicDocument("album", album), as: .xml)
        let root = try XCTUnwrap(XMLDocument(data: Data(xml.bytes), options: []).rootElement())
        let element = try XCTUnwrap(root.elements(forName: "album").first)
        XCTAssertEqual(element.elements(forName: "song").count, 5_000)
        XCTAssertEqual(Self.attribute("title", of: element.elements(forName: "song").last), "Song 5000")
        let json = try SubsonicEncoding.encode(SubsonicDocument("album", album), as: .json)
        let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.bytes)) as? [String: [String: Any]])
        XCTAssertEqual(((object["subsonic-response"]?["album"] as? [String: Any])?["song"] as? [Any])?.count, 5_000)
    }

    /// FoundationXML's `attribute(forName:)` misses attributes of an element in a default namespace.
    static func attribute(_ name: String, of element: XMLElement?) -> String? {
        element?.attributes?.first { $0.name == name }?.stringValue
    }

    /// The element holds the object's fields: each scalar as an attribute (or the element's text where the
    /// type says), each object as one child element, each array as elements repeated under its key.
    static func assertSame(_ object: [String: Any], _ element: XMLElement, path: String,
                           file: StaticString = #filePath, line: UInt = #line) throws {
        var attributes: [String: String] = [:]
        for attribute in element.attributes ?? [] {
            if let name = attribute.name, name != "xmlns" { attributes[name] = attribute.stringValue ?? "" }
        }
        var scalarKeys = Set<String>()
        for (key, value) in object {
            let here = "\(path)/\(key)"
            let children = element.elements(forName: key)
            switch value {
            case let nested as [String: Any]:
                XCTAssertEqual(children.count, 1, here, file: file, line: line)
                if let child = children.first { try assertSame(nested, child, path: here, file: file, line: line) }
            case let items as [Any]:
                XCTAssertEqual(children.count, items.count, here, file: file, line: line)
                for (index, (item, child)) in zip(items, children).enumerated() {
                    if let nested = item as? [String: Any] {
                        try assertSame(nested, child, path: "\(here)[\(index)]", file: file, line: line)
                    } else {
                        assertScalar(item, child.stringValue, "\(here)[\(index)]", file: file, line: line)
                    }
                }
            default:
                if let text = attributes[key] {
                    scalarKeys.insert(key)
                    assertScalar(value, text, here, file: file, line: line)
                } else {
                    // The field the type writes as its element's text.
                    XCTAssertEqual(element.childCount, element.children?.filter { $0.kind == .text }.count, here, file: file, line: line)
                    assertScalar(value, element.stringValue, here, file: file, line: line)
                }
            }
        }
        XCTAssertEqual(Set(attributes.keys), scalarKeys, "\(path): attributes beyond the JSON's fields", file: file, line: line)
    }

    static func assertScalar(_ value: Any, _ text: String?, _ path: String, file: StaticString, line: UInt) {
        guard let text else { return XCTFail("\(path): missing in the XML", file: file, line: line) }
        if let string = value as? String {
            XCTAssertEqual(text, string, path, file: file, line: line)
        } else if text == "true" || text == "false" {
            XCTAssertEqual(value as? Bool, text == "true", path, file: file, line: line)
        } else if let number = value as? NSNumber {
            XCTAssertEqual(Double(text), number.doubleValue, path, file: file, line: line)
        } else {
            XCTFail("\(path): \(value) is no scalar", file: file, line: line)
        }
    }
}
