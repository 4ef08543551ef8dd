#include <FLAC/stream_decoder.h>
#include <FLAC/metadata.h>
#include <FLAC/stream_encoder.h>
