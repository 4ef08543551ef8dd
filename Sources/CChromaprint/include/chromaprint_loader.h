// Chromaprint's functions, loaded with dlopen on first use instead of linked: Debian's libchromaprint
// links libavcodec, whose ~90 shared libraries would otherwise be mapped into every xzmusic process
// (some 11 MB of a host's memory and part of every command's start) for `getfingerprint` alone.
#ifndef XZ_CHROMAPRINT_LOADER_H
#define XZ_CHROMAPRINT_LOADER_H

#include <chromaprint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XZ_CHROMAPRINT_FUNCTION(name) __typeof__(name) *_Nonnull name;

typedef struct xz_chromaprint {
    XZ_CHROMAPRINT_FUNCTION(chromaprint_new)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_free)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_start)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_feed)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_finish)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_get_fingerprint)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_decode_fingerprint)
    XZ_CHROMAPRINT_FUNCTION(chromaprint_dealloc)
} xz_chromaprint;

#undef XZ_CHROMAPRINT_FUNCTION

/// Loads libchromaprint and resolves the table the first time it is called (thread-safe); every later
/// call returns the same table. NULL when it cannot be loaded; `xz_chromaprint_error` then says why.
const xz_chromaprint *_Nullable xz_chromaprint_load(void);
const char *_Nullable xz_chromaprint_error(void);

#ifdef __cplusplus
}
#endif

#endif
