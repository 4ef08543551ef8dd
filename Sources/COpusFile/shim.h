#include <opusfile.h>

/* The single decoder inside a one-stream multistream decoder. Decoding a packet with it gives exactly what
   opus_multistream_decode_float gives for a one-stream, identity-mapped layout, without the per-packet size
   queries of libopus 1.3's multistream layer (each runs CPUID, which traps to the hypervisor in a VM).
   The control call is variadic, which Swift cannot call directly. */
static inline OpusDecoder *xz_opus_first_stream_decoder(OpusMSDecoder *decoder) {
    OpusDecoder *stream = NULL;
    if (opus_multistream_decoder_ctl(decoder, OPUS_MULTISTREAM_GET_DECODER_STATE(0, &stream)) != OPUS_OK) return NULL;
    return stream;
}
