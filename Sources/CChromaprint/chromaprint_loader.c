#include "chromaprint_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

static xz_chromaprint table;
static const xz_chromaprint *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The soname of the ABI chromaprint.h describes (1 since Chromaprint 1.0).
    void *library = dlopen("libchromaprint.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "cannot load libchromaprint.so.1: %s", dlerror());
        return;
    }
#define RESOLVE(name)                                                                   \
    if (!(*(void **)&table.name = dlsym(library, #name))) {                             \
        snprintf(failure, sizeof failure, "libchromaprint lacks %s", #name);            \
        return;                                                                         \
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
