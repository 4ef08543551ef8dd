#ifndef XZ_TAGLIB_SHIM_H
#define XZ_TAGLIB_SHIM_H

/* TagLib's C++ API behind plain C: one opened file, its tag values copied out as UTF-8. No C++
 * exception crosses these functions; every string and byte pointer stays valid until tl_close. */

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tl_file tl_file;

typedef enum tl_status {
    TL_OK = 0,
    /* The file cannot be opened for reading; the errno value says why. */
    TL_CANNOT_OPEN = 1,
    TL_IS_FOLDER = 2,
    /* Neither the name's suffix nor the content is a format TagLib reads, or TagLib found it damaged. */
    TL_UNKNOWN_FORMAT = 3,
    /* TagLib threw (out of memory, say). */
    TL_FAILED = 4
} tl_status;

/* Which tag a value came from. An MP3's values come from its ID3v2 tag, then fill in from its APE
 * and ID3v1 tags for keys ID3v2 lacks; WAV and AIFF use their ID3v2 tag when it holds anything. */
typedef enum tl_source {
    TL_SOURCE_ID3V2 = 0,
    TL_SOURCE_ID3V1 = 1,
    TL_SOURCE_APE = 2,
    /* The file's own tag: Vorbis comments (FLAC, Vorbis, Opus), MP4 items, ASF, RIFF INFO, … */
    TL_SOURCE_OTHER = 3
} tl_source;

/* Opens `path` read-only. NULL on failure, with *status set and, for TL_CANNOT_OPEN, *error_number
 * the errno. Audio properties are read only when asked (they cost a few seeks). */
tl_file *tl_open(const char *path, int read_audio_properties, tl_status *status, int *error_number);
void tl_close(tl_file *file);

/* TagLib's name for the format: "MPEG", "FLAC", "Ogg Vorbis", "Ogg Opus", "Ogg FLAC", "Ogg Speex",
 * "MP4", "ASF", "WAV", "AIFF", "APE", "WavPack", "Musepack", "TrueAudio", or "other". */
const char *tl_format(const tl_file *file);

/* Every (key, value) pair, all values of each key in tag order. Keys are TagLib's property names
 * (TITLE, ARTIST, REPLAYGAIN_TRACK_GAIN, R128_TRACK_GAIN, …) with these differences:
 * - ID3v2 TCON values come as written (genre numbers not turned into names);
 * - ID3v2 TIT1 comes as GROUPING, not TagLib's WORK (TIT1 is "content group");
 * - an ID3v1 genre comes as its number;
 * - MP4 freeform items TagLib has no name for ("----:com.apple.iTunes:replaygain_track_gain")
 *   come under their upper-cased name (REPLAYGAIN_TRACK_GAIN);
 * - an MP3's ID3v2 text that TagLib 1.13 loses (UTF-16 without a byte-order mark, invalid UTF-8, frames
 *   after one of size 0 or at the end of a tag with an extended header) is read by the shim itself;
 * - keys whose values are all empty are left out. */
size_t tl_property_count(const tl_file *file);
const char *tl_property_key(const tl_file *file, size_t index);
const char *tl_property_value(const tl_file *file, size_t index);
tl_source tl_property_source(const tl_file *file, size_t index);

/* The file's raw comments as MPD's `readcomments` lists them, in file order: an MP3's ID3v2 TXXX frames
 * (description, first value) but those MPD reads as MusicBrainz ids; for other formats, the properties
 * above. Read on the first call. */
size_t tl_comment_count(tl_file *file);
const char *tl_comment_key(const tl_file *file, size_t index);
const char *tl_comment_value(const tl_file *file, size_t index);

/* The major version (2, 3 or 4) of the ID3v2 tag the TL_SOURCE_ID3V2 values came from; 0 when none. */
int tl_id3v2_version(const tl_file *file);

typedef struct tl_audio_properties {
    int length_ms;
    int sample_rate;
    int channels;
    /* 0 when the format has no fixed depth (MP3, Vorbis, Opus, AAC). */
    int bits_per_sample;
    int bitrate_kbps;
} tl_audio_properties;

/* 1 and *out filled when the file was opened with audio properties and TagLib read them, else 0. */
int tl_audio(const tl_file *file, tl_audio_properties *out);

/* The MP4 item ----:com.apple.iTunes:iTunSMPB (encoder delay and padding); NULL when absent. */
const char *tl_mp4_itunsmpb(const tl_file *file);

/* The embedded picture: the front cover when there is one, else the first. Looks in ID3v2 APIC,
 * FLAC PICTURE blocks, Xiph METADATA_BLOCK_PICTURE, MP4 covr, APE "Cover Art (…)" and ASF
 * WM/Picture. 1 with *mime_type (possibly "") and the bytes set, 0 when the file holds none. */
int tl_picture(tl_file *file, const char **mime_type, const unsigned char **data, size_t *size);

#ifdef __cplusplus
}
#endif

#endif
