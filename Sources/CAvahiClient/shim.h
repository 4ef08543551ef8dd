// Avahi's client library: services published through avahi-daemon over D-Bus, from a poll thread of its own.
#include <avahi-client/client.h>
#include <avahi-client/publish.h>
#include <avahi-common/alternative.h>
#include <avahi-common/error.h>
#include <avahi-common/malloc.h>
#include <avahi-common/strlst.h>
#include <avahi-common/thread-watch.h>
#include <avahi-common/timeval.h>
// The eventfd that wakes Avahi's thread when the services to announce change.
#include <sys/eventfd.h>
