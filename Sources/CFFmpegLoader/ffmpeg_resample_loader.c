#include "ffmpeg_loader.h"
#include "ffmpeg_library.h"

static xz_ffmpeg_resample table;
static xz_ffmpeg_loading loading = { .once = PTHREAD_ONCE_INIT };

static void load(void) {
    static const char *const libraries[] = {
        XZ_FFMPEG_LIBRARY(avutil, LIBAVUTIL_VERSION_MAJOR),
        XZ_FFMPEG_LIBRARY(swresample, LIBSWRESAMPLE_VERSION_MAJOR),
    };
    const xz_ffmpeg_symbol symbols[] = { XZ_FFMPEG_RESAMPLE_FUNCTIONS(XZ_FFMPEG_SYMBOL) };
    if (!xz_ffmpeg_resolve(&loading, libraries, 2, symbols, sizeof symbols / sizeof *symbols)) return;
    // Failures reach callers as return codes; FFmpeg's own lines about them would go to stderr.
    table.av_log_set_level(AV_LOG_QUIET);
    loading.loaded = true;
}

const xz_ffmpeg_resample *xz_ffmpeg_resample_load(void) {
    return xz_ffmpeg_ensure(&loading, load) ? NULL : &table;
}

const char *xz_ffmpeg_resample_error(void) {
    return xz_ffmpeg_ensure(&loading, load);
}
