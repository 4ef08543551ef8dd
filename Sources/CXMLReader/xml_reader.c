#include "xml_reader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <libxml/parserInternals.h>

static struct {
    __typeof__(xmlCreateMemoryParserCtxt) *create;
    __typeof__(xmlCtxtUseOptions) *options;
    __typeof__(xmlParseDocument) *parse;
    __typeof__(xmlStopParser) *stop;
    __typeof__(xmlFreeParserCtxt) *free;
    __typeof__(xmlSAX2GetLineNumber) *line;
} lib;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The major version the headers were written for: its ABI is what the structures describe.
    const char *name = "libxml2.so.2";
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "cannot load %s: %s", name, dlerror());
        return;
    }
#define RESOLVE(field, symbol)                                                        \
    *(void **)&lib.field = dlsym(library, #symbol);                                   \
    if (!lib.field) {                                                                 \
        snprintf(failure, sizeof failure, "libxml2 lacks %s", #symbol);               \
        return;                                                                       \
    }
    RESOLVE(create, xmlCreateMemoryParserCtxt)
    RESOLVE(options, xmlCtxtUseOptions)
    RESOLVE(parse, xmlParseDocument)
    RESOLVE(stop, xmlStopParser)
    RESOLVE(free, xmlFreeParserCtxt)
    RESOLVE(line, xmlSAX2GetLineNumber)
#undef RESOLVE
    loaded = 1;
}

const char *xz_xml_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}

// The parser's context is the SAX callbacks' context; the caller's events ride in its _private.
static const xz_xml_events *events_of(void *ctx) { return ((xmlParserCtxtPtr)ctx)->_private; }

static void on_start(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri, int namespaces,
                     const xmlChar **namespace_list, int attributes, int defaulted, const xmlChar **attribute_list) {
    (void)prefix, (void)uri, (void)namespaces, (void)namespace_list, (void)attributes, (void)defaulted, (void)attribute_list;
    const xz_xml_events *events = events_of(ctx);
    if (events->start(events->context, (const char *)localname, (long)lib.line(ctx))) lib.stop(ctx);
}

static void on_end(void *ctx, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)prefix, (void)uri;
    const xz_xml_events *events = events_of(ctx);
    if (events->end(events->context, (const char *)localname)) lib.stop(ctx);
}

static void on_text(void *ctx, const xmlChar *bytes, int length) {
    const xz_xml_events *events = events_of(ctx);
    if (events->text(events->context, (const char *)bytes, length)) lib.stop(ctx);
}

static void quiet(void *data, xmlErrorPtr error) { (void)data, (void)error; }

int xz_xml_parse(const char *bytes, int length, const xz_xml_events *events) {
    pthread_once(&once, load);
    if (!loaded) return -2;
    xmlParserCtxtPtr ctxt = lib.create(bytes, length);
    if (!ctxt) return -1;
    lib.options(ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_text;
    sax.ignorableWhitespace = on_text;
    sax.cdataBlock = on_text;
    sax.serror = quiet;
    *ctxt->sax = sax;
    ctxt->_private = (void *)events;
    lib.parse(ctxt);
    int result = ctxt->wellFormed ? 0 : -1;
    lib.free(ctxt);
    return result;
}
