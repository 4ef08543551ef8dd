// The loading the FFmpeg tables share (ffmpeg_loader.c, ffmpeg_image_loader.c, ffmpeg_resample_loader.c);
// each table names its own libraries and functions.
#ifndef XZ_FFMPEG_LIBRARY_H
#define XZ_FFMPEG_LIBRARY_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>

#define XZ_STRINGIFY_(x) #x
#define XZ_STRINGIFY(x) XZ_STRINGIFY_(x)
/// A library's file name at the major version its header was written for: that ABI is what the tables'
/// types describe.
#define XZ_FFMPEG_LIBRARY(name, major) "lib" #name ".so." XZ_STRINGIFY(major)

/// A function's name and the table field its address goes to.
typedef struct xz_ffmpeg_symbol {
    const char *name;
    void **field;
} xz_ffmpeg_symbol;

/// One entry of a `xz_ffmpeg_symbol` list for a field of `table` (used with a table's function list).
#define XZ_FFMPEG_SYMBOL(name) { #name, (void **)&table.name },

/// One table's state: loaded once, then only read.
typedef struct xz_ffmpeg_loading {
    pthread_once_t once;
    bool loaded;
    char failure[512];
} xz_ffmpeg_loading;

/// Opens `libraries` in order and fills every field from the last library that defines it (a library's
/// own dependencies are searched with it). False, with `loading->failure` saying why, when a library or
/// function is missing.
bool xz_ffmpeg_resolve(xz_ffmpeg_loading *loading, const char *const libraries[], size_t library_count,
                       const xz_ffmpeg_symbol symbols[], size_t symbol_count);

/// Runs `load` once for the table; the failure text when it could not be loaded, else NULL.
const char *xz_ffmpeg_ensure(xz_ffmpeg_loading *loading, void (*load)(void));

#endif
