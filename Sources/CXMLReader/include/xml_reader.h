// libxml2's SAX parser, loaded with dlopen on first use instead of linked (through FoundationXML):
// libxml2 links ICU's libicuuc and its 30 MB libicudata, which every xzmusic command mapped and
// relocated as it started (about 1.3 ms), for the XSPF playlists only.
#ifndef XZ_XML_READER_H
#define XZ_XML_READER_H

#ifdef __cplusplus
extern "C" {
#endif

/// What a parse reports, in document order; a callback returning nonzero stops the parse there.
typedef struct xz_xml_events {
    void *_Nullable context;
    /// An element's local name (namespaces processed) and the line its start tag ends on.
    int (*_Nonnull start)(void *_Nullable context, const char *_Nonnull name, long line);
    int (*_Nonnull end)(void *_Nullable context, const char *_Nonnull name);
    /// Text and CDATA, as UTF-8 bytes (not terminated).
    int (*_Nonnull text)(void *_Nullable context, const char *_Nonnull bytes, int length);
} xz_xml_events;

/// Parses `length` bytes, no DTD loaded, no network, no messages on stderr. 0: the document was read
/// whole; -1: it is not well-formed or a callback stopped it (the events before were reported);
/// -2: libxml2 cannot be loaded (`xz_xml_error` says why).
int xz_xml_parse(const char *_Nonnull bytes, int length, const xz_xml_events *_Nonnull events);
const char *_Nullable xz_xml_error(void);

#ifdef __cplusplus
}
#endif

#endif
