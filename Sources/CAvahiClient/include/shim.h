// Avahi's client library: services published through avahi-daemon over D-Bus, from a poll thread of its own.
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>

// Loaded on first use (avahi_loader.c), so a one-shot command never maps Avahi and D-Bus: every avahi_*
// function the Swift side calls is defined there and fails as Avahi would (AVAHI_ERR_NOT_SUPPORTED) when
// the libraries cannot be loaded.
// Why Avahi could not be loaded, or NULL when it is.
const char *xz_avahi_error(void);

// The eventfd that wakes Avahi's thread when the services to announce change.
#include <sys/eventfd.h>
