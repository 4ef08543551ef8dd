// FFmpeg's image codecs and scaler (libswscale), loaded with dlopen on first use like the audio table in
// ffmpeg_loader.h. A table of its own: a host that never resizes a cover never maps libswscale, and audio
// decoding does not depend on libswscale being installed.
#ifndef XZ_FFMPEG_IMAGE_LOADER_H
#define XZ_FFMPEG_IMAGE_LOADER_H

#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XZ_FFMPEG_FUNCTION(name) __typeof__(name) *_Nonnull name;

typedef struct xz_ffmpeg_image {
    XZ_FFMPEG_FUNCTION(av_frame_alloc)
    XZ_FFMPEG_FUNCTION(av_frame_free)
    XZ_FFMPEG_FUNCTION(av_frame_get_buffer)
    XZ_FFMPEG_FUNCTION(av_malloc)
    XZ_FFMPEG_FUNCTION(av_free)
    XZ_FFMPEG_FUNCTION(av_log_set_level)
    XZ_FFMPEG_FUNCTION(av_packet_alloc)
    XZ_FFMPEG_FUNCTION(av_packet_free)
    XZ_FFMPEG_FUNCTION(av_packet_from_data)
    XZ_FFMPEG_FUNCTION(av_packet_unref)
    XZ_FFMPEG_FUNCTION(av_pix_fmt_desc_get)
    XZ_FFMPEG_FUNCTION(avcodec_alloc_context3)
    XZ_FFMPEG_FUNCTION(avcodec_find_decoder)
    XZ_FFMPEG_FUNCTION(avcodec_find_encoder)
    XZ_FFMPEG_FUNCTION(avcodec_free_context)
    XZ_FFMPEG_FUNCTION(avcodec_open2)
    XZ_FFMPEG_FUNCTION(avcodec_receive_frame)
    XZ_FFMPEG_FUNCTION(avcodec_receive_packet)
    XZ_FFMPEG_FUNCTION(avcodec_send_frame)
    XZ_FFMPEG_FUNCTION(avcodec_send_packet)
    XZ_FFMPEG_FUNCTION(sws_freeContext)
    XZ_FFMPEG_FUNCTION(sws_getContext)
    XZ_FFMPEG_FUNCTION(sws_scale)
} xz_ffmpeg_image;

#undef XZ_FFMPEG_FUNCTION

/// Loads libavutil, libavcodec and libswscale (the major versions these headers describe) once; every
/// later call returns the same table. NULL when they cannot be loaded; `xz_ffmpeg_image_error` then says why.
const xz_ffmpeg_image *_Nullable xz_ffmpeg_image_load(void);
const char *_Nullable xz_ffmpeg_image_error(void);

#ifdef __cplusplus
}
#endif

#endif
