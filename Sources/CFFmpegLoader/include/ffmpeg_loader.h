// FFmpeg's functions, loaded with dlopen on first use instead of linked: linking Debian's libavformat pulls
// in about 140 shared libraries, which would add some 30 ms to the start of every xzmusic command.
// Three tables, each loaded on its own: audio (libavformat), pictures (libswscale) and resampling
// (libswresample), so a host that never resizes a cover or transcodes never maps those libraries and audio
// decoding does not need them installed.
#ifndef XZ_FFMPEG_LOADER_H
#define XZ_FFMPEG_LOADER_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/frame.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>
#include <libavutil/pixdesc.h>
#include <libswscale/swscale.h>
#include <libswresample/swresample.h>

#ifdef __cplusplus
extern "C" {
#endif

// Each table's functions, listed once: the table's fields and the names its loader resolves.
#define XZ_FFMPEG_AUDIO_FUNCTIONS(F)                                                              \
    F(av_dict_get) F(av_find_best_stream) F(av_frame_alloc) F(av_frame_free) F(av_free)          \
    F(av_get_packed_sample_fmt) F(av_log_set_level) F(av_malloc) F(av_packet_alloc)              \
    F(av_packet_free) F(av_packet_unref) F(av_probe_input_format2) F(av_read_frame) F(av_rescale) \
    F(av_rescale_q) F(av_sample_fmt_is_planar) F(av_seek_frame) F(av_strerror)                   \
    F(avcodec_alloc_context3) F(avcodec_descriptor_get) F(avcodec_find_decoder)                  \
    F(avcodec_flush_buffers) F(avcodec_free_context) F(avcodec_get_name) F(avcodec_open2)        \
    F(avcodec_parameters_to_context) F(avcodec_receive_frame) F(avcodec_send_packet)             \
    F(avformat_alloc_context) F(avformat_close_input) F(avformat_find_stream_info)               \
    F(avformat_index_get_entries_count) F(avformat_index_get_entry) F(avformat_open_input)       \
    F(avio_alloc_context) F(avio_context_free)

#define XZ_FFMPEG_IMAGE_FUNCTIONS(F)                                                              \
    F(av_frame_alloc) F(av_frame_free) F(av_frame_get_buffer) F(av_malloc) F(av_free)            \
    F(av_log_set_level) F(av_packet_alloc) F(av_packet_free) F(av_packet_from_data)              \
    F(av_packet_unref) F(av_pix_fmt_desc_get) F(avcodec_alloc_context3) F(avcodec_find_decoder)  \
    F(avcodec_find_encoder) F(avcodec_free_context) F(avcodec_open2) F(avcodec_receive_frame)    \
    F(avcodec_receive_packet) F(avcodec_send_frame) F(avcodec_send_packet) F(sws_freeContext)    \
    F(sws_getContext) F(sws_scale)

#define XZ_FFMPEG_RESAMPLE_FUNCTIONS(F)                                                           \
    F(av_channel_layout_from_mask) F(av_log_set_level) F(swr_alloc_set_opts2) F(swr_convert)      \
    F(swr_free) F(swr_get_delay) F(swr_get_out_samples) F(swr_init) F(swr_set_matrix)

#define XZ_FFMPEG_FIELD(name) __typeof__(name) *_Nonnull name;

typedef struct xz_ffmpeg {
    XZ_FFMPEG_AUDIO_FUNCTIONS(XZ_FFMPEG_FIELD)
} xz_ffmpeg;

typedef struct xz_ffmpeg_image {
    XZ_FFMPEG_IMAGE_FUNCTIONS(XZ_FFMPEG_FIELD)
} xz_ffmpeg_image;

typedef struct xz_ffmpeg_resample {
    XZ_FFMPEG_RESAMPLE_FUNCTIONS(XZ_FFMPEG_FIELD)
} xz_ffmpeg_resample;

#undef XZ_FFMPEG_FIELD

/// Loads libavutil, libavcodec and libavformat (the major versions these headers describe) once; every
/// later call returns the same table. NULL when they cannot be loaded; `xz_ffmpeg_error` then says why.
const xz_ffmpeg *_Nullable xz_ffmpeg_load(void);
const char *_Nullable xz_ffmpeg_error(void);

/// The same for libavutil, libavcodec and libswscale: the image codecs and scaler.
const xz_ffmpeg_image *_Nullable xz_ffmpeg_image_load(void);
const char *_Nullable xz_ffmpeg_image_error(void);

/// The same for libavutil and libswresample: sample rates, formats and channel layouts for transcodes.
const xz_ffmpeg_resample *_Nullable xz_ffmpeg_resample_load(void);
const char *_Nullable xz_ffmpeg_resample_error(void);

#ifdef __cplusplus
}
#endif

#endif
