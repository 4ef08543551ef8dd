#ifndef XZ_COLLATION_H
#define XZ_COLLATION_H

#include <stdint.h>

/* ICU's root collation behind plain C types: no ICU header reaches Swift, where Foundation's own copy
   of ICU's headers would clash with the system's. */

/* The root collation (MPD's ucol_open("")), ICU loaded on the first call; NULL when ICU or its data is missing. */
void *xz_collator_open_root(void);

/* The sort key of a UTF-16 string: its bytes compare (memcmp) as the collator orders the strings.
   Returns the key's length with its terminating 0 (more than `capacity`: it did not fit), 0 on error. */
int32_t xz_collator_sort_key(const void *collator, const uint16_t *text, int32_t length, uint8_t *key,
                             int32_t capacity);

#endif
