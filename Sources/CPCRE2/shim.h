// PCRE2's 8-bit API, the one MPD uses for `=~` and `!~`.
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
