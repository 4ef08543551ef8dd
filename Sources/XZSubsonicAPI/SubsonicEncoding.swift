/// A payload type whose XML element holds one of its fields as text instead of an attribute (a genre's
/// name, a lyric line), as the spec's XML examples have it.
package protocol SubsonicXMLText {
    /// The key whose value is the element's text.
    static var xmlTextKey: String { get }
}
