#include "ffmpeg_loader.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define STRINGIFY_(x) #x
#define STRINGIFY(x) STRINGIFY_(x)

static xz_ffmpeg table;
static const xz_ffmpeg *loaded;
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
    void *format = codec ? open_library("libavformat.so." STRINGIFY(LIBAVFORMAT_VERSION_MAJOR)) : NULL;
    if (!format) return;
    void *libraries[] = { format, codec, util };
#define RESOLVE(name)                                                                             \
    for (int i = 0; i < 3 && !table.name; i++) *(void **)&table.name = dlsym(libraries[i], #name); \
    if (!table.name) {                                                                            \
        snprintf(failure, sizeof failure, "FFmpeg's libraries lack %s", #name);                   \
        return;                                                                                   \
    }
    RESOLVE(av_dict_get)
    RESOLVE(av_find_best_stream)
    RESOLVE(av_frame_alloc)
    RESOLVE(av_frame_free)
    RESOLVE(av_free)
    RESOLVE(av_get_packed_sample_fmt)
    RESOLVE(av_log_set_level)
    RESOLVE(av_malloc)
    RESOLVE(av_packet_alloc)
    RESOLVE(av_packet_free)
    RESOLVE(av_packet_unref)
    RESOLVE(av_probe_input_format2)
    RESOLVE(av_read_frame)
    RESOLVE(av_rescale)
    RESOLVE(av_rescale_q)
    RESOLVE(av_sample_fmt_is_planar)
    RESOLVE(av_seek_frame)
    RESOLVE(av_strerror)
    RESOLVE(avcodec_alloc_context3)
    RESOLVE(avcodec_descriptor_get)
    RESOLVE(avcodec_find_decoder)
    RESOLVE(avcodec_flush_buffers)
    RESOLVE(avcodec_free_context)
    RESOLVE(avcodec_get_name)
    RESOLVE(avcodec_open2)
    RESOLVE(avcodec_parameters_to_context)
    RESOLVE(avcodec_receive_frame)
    RESOLVE(avcodec_send_packet)
    RESOLVE(avformat_alloc_context)
    RESOLVE(avformat_close_input)
    RESOLVE(avformat_find_stream_info)
    RESOLVE(avformat_index_get_entries_count)
    RESOLVE(avformat_index_get_entry)
    RESOLVE(avformat_open_input)
    RESOLVE(avio_alloc_context)
    RESOLVE(avio_context_free)
#undef RESOLVE
    // FFmpeg writes its warnings to stderr; its errors reach callers as return codes instead.
    table.av_log_set_level(AV_LOG_QUIET);
    loaded = &table;
}

const xz_ffmpeg *xz_ffmpeg_load(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *xz_ffmpeg_error(void) {
    pthread_once(&once, load);
    return loaded ? NULL : failure;
}
