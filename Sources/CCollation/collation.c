#include "collation.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <unicode/ucol.h>
#include <unicode/uvernum.h>

/* ICU is loaded the first time a name is collated, not linked: linking its three libraries would add
   some 4 ms to the start of every command. Its functions carry its version (ucol_open_72), which these
   macros spell as the headers do. */
#define XZ_NAME(symbol) #symbol
#define XZ_SYMBOL(symbol) XZ_NAME(symbol)
#define XZ_LIBRARY "libicui18n.so." XZ_SYMBOL(U_ICU_VERSION_MAJOR_NUM)

typedef UCollator *(*OpenFunction)(const char *, UErrorCode *);
typedef int32_t (*SortKeyFunction)(const UCollator *, const UChar *, int32_t, uint8_t *, int32_t);

struct Collator {
    UCollator *collator;
    SortKeyFunction sort_key;
};

void *xz_collator_open_root(void) {
    void *library = dlopen(XZ_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (library == NULL) return NULL;
    OpenFunction open = (OpenFunction)dlsym(library, XZ_SYMBOL(ucol_open));
    SortKeyFunction sort_key = (SortKeyFunction)dlsym(library, XZ_SYMBOL(ucol_getSortKey));
    struct Collator *result = malloc(sizeof *result);
    UErrorCode status = U_ZERO_ERROR;
    UCollator *collator = open != NULL && sort_key != NULL && result != NULL ? open("", &status) : NULL;
    if (collator == NULL || U_FAILURE(status)) {
        /* The library stays loaded: a collator it made may be open, and nothing else unloads it. */
        free(result);
        return NULL;
    }
    result->collator = collator;
    result->sort_key = sort_key;
    return result;
}

int32_t xz_collator_sort_key(const void *handle, const uint16_t *text, int32_t length, uint8_t *key,
                             int32_t capacity) {
    const struct Collator *collator = handle;
    return collator->sort_key(collator->collator, (const UChar *)text, length, key, capacity);
}
