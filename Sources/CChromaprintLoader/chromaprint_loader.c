#include "chromaprint_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static xz_chromaprint table;
static const xz_chromaprint *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The major version the header was written for: its ABI is what the table's types describe.
    const char *name = "libchromaprint.so." STRINGIFY(CHROMAPRINT_VERSION_MAJOR);
    void *library = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "cannot load %s: %s", name, dlerror());
        return;
    }
#define RESOLVE(name)                                                                  \
    *(void **)&table.name = dlsym(library, #name);                                     \
    if (!table.name) {                                                                 \
        snprintf(failure, sizeof failure, "Chromaprint's library lacks %s", #name);    \
        return;                                                                        \
    }
    RESOLVE(chromaprint_new)
    RESOLVE(chromaprint_free)
    RESOLVE(chromaprint_start)
    RESOLVE(chromaprint_feed)
    RESOLVE(chromaprint_finish)
    RESOLVE(chromaprint_get_fingerprint)
    RESOLVE(chromaprint_decode_fingerprint)
    RESOLVE(chromaprint_dealloc)
#undef RESOLVE
    loaded = &table;
}

const xz_chromaprint *xz_chromaprint_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *xz_chromaprint_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}
