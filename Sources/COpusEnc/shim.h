#include <opusenc.h>

/* ope_encoder_ctl is variadic, which Swift cannot call: one typed wrapper per request used. */
static inline int xz_ope_set_int(OggOpusEnc *enc, int request, opus_int32 value) {
    return ope_encoder_ctl(enc, request, value);
}
