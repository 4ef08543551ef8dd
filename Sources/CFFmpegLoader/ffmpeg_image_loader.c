#include "ffmpeg_image_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static xz_ffmpeg_image table;
static const xz_ffmpeg_image *loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void *open_library(const char *name) {
    void *handle = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (!handle) snprintf(failure, sizeof failure, "cannot load %s: %s", name, dlerror());
    return handle;
}

static void load(void) {
    // The major versions the headers were written for: their ABI is what the table's types describe.
    void *util = open_library("libavutil.so." STRINGIFY(LIBAVUTIL_VERSION_MAJOR));
    void *codec = util ? open_library("libavcodec.so." STRINGIFY(LIBAVCODEC_VERSION_MAJOR)) : NULL;
    void *scale = codec ? open_library("libswscale.so." STRINGIFY(LIBSWSCALE_VERSION_MAJOR)) : NULL;
    if (!scale) return;
    void *libraries[] = { scale, codec, util };
#define RESOLVE(name)                                                                             \
    for (int i = 0; i < 3 && !table.name; i++) *(void **)&table.name = dlsym(libraries[i], #name); \
    if (!table.name) {                                                                            \
        snprintf(failure, sizeof failure, "FFmpeg's libraries lack %s", #name);                   \
        return;                                                                                   \
    }
    RESOLVE(av_frame_alloc)
    RESOLVE(av_frame_free)
    RESOLVE(av_frame_get_buffer)
    RESOLVE(av_malloc)
    RESOLVE(av_free)
    RESOLVE(av_log_set_level)
    RESOLVE(av_packet_alloc)
    RESOLVE(av_packet_free)
    RESOLVE(av_packet_from_data)
    RESOLVE(av_packet_unref)
    RESOLVE(av_pix_fmt_desc_get)
    RESOLVE(avcodec_alloc_context3)
    RESOLVE(avcodec_find_decoder)
    RESOLVE(avcodec_find_encoder)
    RESOLVE(avcodec_free_context)
    RESOLVE(avcodec_open2)
    RESOLVE(avcodec_receive_frame)
    RESOLVE(avcodec_receive_packet)
    RESOLVE(avcodec_send_frame)
    RESOLVE(avcodec_send_packet)
    RESOLVE(sws_freeContext)
    RESOLVE(sws_getContext)
    RESOLVE(sws_scale)
#undef RESOLVE
    // FFmpeg writes its warnings to stderr; a damaged picture reaches callers as a return code instead.
    table.av_log_set_level(AV_LOG_QUIET);
    loaded = &table;
}

const xz_ffmpeg_image *xz_ffmpeg_image_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *xz_ffmpeg_image_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}
