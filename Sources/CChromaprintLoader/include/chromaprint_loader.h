// Chromaprint's functions, loaded with dlopen on first use instead of linked: Debian's libchromaprint
// links FFmpeg's libavcodec, whose hundred shared libraries and their initializers (libhwy's timer
// calibration among them) added some 17 ms to the start of every xzmusic command.
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

/// Loads libchromaprint (the major version this header describes) once; every later call returns the
/// same table. NULL when it cannot be loaded; `xz_chromaprint_error` then says why.
const xz_chromaprint *_Nullable xz_chromaprint_load(void);
const char *_Nullable xz_chromaprint_error(void);

#ifdef __cplusplus
}
#endif

#endif
