// FFmpeg's functions, loaded with dlopen on first use instead of linked: linking Debian's libavformat pulls
// in about 140 shared libraries, which would add some 30 ms to the start of every xzmusic command.
#ifndef XZ_FFMPEG_LOADER_H
#define XZ_FFMPEG_LOADER_H

#include <libavformat/avformat.h>
#include <libavcodec/avcodec.h>
#include <libavutil/avutil.h>
#include <libavutil/error.h>
#include <libavutil/log.h>
#include <libavutil/mathematics.h>

#ifdef __cplusplus
extern "C" {
#endif

#define XZ_FFMPEG_FUNCTION(name) __typeof__(name) *_Nonnull name;

typedef struct xz_ffmpeg {
    XZ_FFMPEG_FUNCTION(av_dict_get)
    XZ_FFMPEG_FUNCTION(av_find_best_stream)
    XZ_FFMPEG_FUNCTION(av_frame_alloc)
    XZ_FFMPEG_FUNCTION(av_frame_free)
    XZ_FFMPEG_FUNCTION(av_free)
    XZ_FFMPEG_FUNCTION(av_get_packed_sample_fmt)
    XZ_FFMPEG_FUNCTION(av_log_set_level)
    XZ_FFMPEG_FUNCTION(av_malloc)
    XZ_FFMPEG_FUNCTION(av_packet_alloc)
    XZ_FFMPEG_FUNCTION(av_packet_free)
    XZ_FFMPEG_FUNCTION(av_packet_unref)
    XZ_FFMPEG_FUNCTION(av_probe_input_format2)
    XZ_FFMPEG_FUNCTION(av_read_frame)
    XZ_FFMPEG_FUNCTION(av_rescale)
    XZ_FFMPEG_FUNCTION(av_rescale_q)
    XZ_FFMPEG_FUNCTION(av_sample_fmt_is_planar)
    XZ_FFMPEG_FUNCTION(av_seek_frame)
    XZ_FFMPEG_FUNCTION(av_strerror)
    XZ_FFMPEG_FUNCTION(avcodec_alloc_context3)
    XZ_FFMPEG_FUNCTION(avcodec_descriptor_get)
    XZ_FFMPEG_FUNCTION(avcodec_find_decoder)
    XZ_FFMPEG_FUNCTION(avcodec_flush_buffers)
    XZ_FFMPEG_FUNCTION(avcodec_free_context)
    XZ_FFMPEG_FUNCTION(avcodec_get_name)
    XZ_FFMPEG_FUNCTION(avcodec_open2)
    XZ_FFMPEG_FUNCTION(avcodec_parameters_to_context)
    XZ_FFMPEG_FUNCTION(avcodec_receive_frame)
    XZ_FFMPEG_FUNCTION(avcodec_send_packet)
    XZ_FFMPEG_FUNCTION(avformat_alloc_context)
    XZ_FFMPEG_FUNCTION(avformat_close_input)
    XZ_FFMPEG_FUNCTION(avformat_find_stream_info)
    XZ_FFMPEG_FUNCTION(avformat_index_get_entries_count)
    XZ_FFMPEG_FUNCTION(avformat_index_get_entry)
    XZ_FFMPEG_FUNCTION(avformat_open_input)
    XZ_FFMPEG_FUNCTION(avio_alloc_context)
    XZ_FFMPEG_FUNCTION(avio_context_free)
} xz_ffmpeg;

#undef XZ_FFMPEG_FUNCTION

/// Loads libavutil, libavcodec and libavformat (the major versions these headers describe) once; every
/// later call returns the same table. NULL when they cannot be loaded; `xz_ffmpeg_error` then says why.
const xz_ffmpeg *_Nullable xz_ffmpeg_load(void);
const char *_Nullable xz_ffmpeg_error(void);

#ifdef __cplusplus
}
#endif

#endif
