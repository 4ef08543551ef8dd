#include "ffmpeg_library.h"

#include <dlfcn.h>
#include <stdio.h>

enum { most_libraries = 4 };

bool xz_ffmpeg_resolve(xz_ffmpeg_loading *loading, const char *const libraries[], size_t library_count,
                       const xz_ffmpeg_symbol symbols[], size_t symbol_count) {
    if (library_count > most_libraries) return false;
    void *handles[most_libraries];
    for (size_t i = 0; i < library_count; i++) {
        handles[i] = dlopen(libraries[i], RTLD_NOW | RTLD_LOCAL);
        if (!handles[i]) {
            snprintf(loading->failure, sizeof loading->failure, "cannot load %s: %s", libraries[i], dlerror());
            return false;
        }
    }
    for (size_t s = 0; s < symbol_count; s++) {
        void **field = symbols[s].field;
        for (size_t i = library_count; i > 0 && !*field; i--) *field = dlsym(handles[i - 1], symbols[s].name);
        if (!*field) {
            snprintf(loading->failure, sizeof loading->failure, "FFmpeg's libraries lack %s", symbols[s].name);
            return false;
        }
    }
    return true;
}

const char *xz_ffmpeg_ensure(xz_ffmpeg_loading *loading, void (*load)(void)) {
    pthread_once(&loading->once, load);
    return loading->loaded ? NULL : loading->failure;
}
