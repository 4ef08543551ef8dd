// Avahi's client libraries loaded on first use: each avahi_* function the Swift side calls, defined with
// Avahi's own prototype and forwarded to the library, so a one-shot command never maps Avahi and libdbus.
#include "shim.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>

#define XZ_AVAHI_FUNCTIONS(X)                   \
    X(avahi_alternative_service_name)           \
    X(avahi_client_errno)                       \
    X(avahi_client_free)                        \
    X(avahi_client_get_state)                   \
    X(avahi_client_new)                         \
    X(avahi_elapse_time)                        \
    X(avahi_entry_group_add_service_strlst)     \
    X(avahi_entry_group_commit)                 \
    X(avahi_entry_group_free)                   \
    X(avahi_entry_group_get_client)             \
    X(avahi_entry_group_new)                    \
    X(avahi_entry_group_reset)                  \
    X(avahi_free)                               \
    X(avahi_strerror)                           \
    X(avahi_string_list_add)                    \
    X(avahi_string_list_free)                   \
    X(avahi_threaded_poll_free)                 \
    X(avahi_threaded_poll_get)                  \
    X(avahi_threaded_poll_new)                  \
    X(avahi_threaded_poll_start)                \
    X(avahi_threaded_poll_stop)

static struct {
#define FIELD(name) __typeof__(name) *name;
    XZ_AVAHI_FUNCTIONS(FIELD)
#undef FIELD
} table;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The sonames of the ABI the headers describe; avahi-common first, as avahi-client needs it.
    void *common = dlopen("libavahi-common.so.3", RTLD_LAZY | RTLD_LOCAL);
    if (!common) {
        snprintf(failure, sizeof failure, "cannot load libavahi-common.so.3: %s", dlerror());
        return;
    }
    void *client = dlopen("libavahi-client.so.3", RTLD_LAZY | RTLD_LOCAL);
    if (!client) {
        snprintf(failure, sizeof failure, "cannot load libavahi-client.so.3: %s", dlerror());
        return;
    }
    // dlsym on the client's handle searches its dependencies too, avahi-common among them.
#define RESOLVE(name)                                                           \
    if (!(*(void **)&table.name = dlsym(client, #name))) {                      \
        snprintf(failure, sizeof failure, "Avahi's libraries lack %s", #name);  \
        return;                                                                 \
    }
    XZ_AVAHI_FUNCTIONS(RESOLVE)
#undef RESOLVE
    loaded = 1;
}

static int available(void) {
    pthread_once(&once, load);
    return loaded;
}

const char *xz_avahi_error(void) {
    return available() ? NULL : failure;
}

// Without the libraries nothing can be made: constructors give NULL (the client with
// AVAHI_ERR_NOT_SUPPORTED), calls on objects that cannot exist give that error.
#define FORWARD(name, fallback, ...) return available() ? table.name(__VA_ARGS__) : (fallback)
#define FORWARD_VOID(name, ...) if (available()) table.name(__VA_ARGS__)

char *avahi_alternative_service_name(const char *s) {
    FORWARD(avahi_alternative_service_name, NULL, s);
}

int avahi_client_errno(AvahiClient *client) {
    FORWARD(avahi_client_errno, AVAHI_ERR_NOT_SUPPORTED, client);
}

void avahi_client_free(AvahiClient *client) {
    FORWARD_VOID(avahi_client_free, client);
}

AvahiClientState avahi_client_get_state(AvahiClient *client) {
    FORWARD(avahi_client_get_state, AVAHI_CLIENT_FAILURE, client);
}

AvahiClient *avahi_client_new(const AvahiPoll *poll_api, AvahiClientFlags flags, AvahiClientCallback callback,
                              void *userdata, int *error) {
    if (!available()) {
        if (error) *error = AVAHI_ERR_NOT_SUPPORTED;
        return NULL;
    }
    return table.avahi_client_new(poll_api, flags, callback, userdata, error);
}

struct timeval *avahi_elapse_time(struct timeval *tv, unsigned ms, unsigned j) {
    FORWARD(avahi_elapse_time, NULL, tv, ms, j);
}

int avahi_entry_group_add_service_strlst(AvahiEntryGroup *group, AvahiIfIndex interface, AvahiProtocol protocol,
                                         AvahiPublishFlags flags, const char *name, const char *type,
                                         const char *domain, const char *host, uint16_t port, AvahiStringList *txt) {
    FORWARD(avahi_entry_group_add_service_strlst, AVAHI_ERR_NOT_SUPPORTED, group, interface, protocol, flags, name,
            type, domain, host, port, txt);
}

int avahi_entry_group_commit(AvahiEntryGroup *group) {
    FORWARD(avahi_entry_group_commit, AVAHI_ERR_NOT_SUPPORTED, group);
}

int avahi_entry_group_free(AvahiEntryGroup *group) {
    FORWARD(avahi_entry_group_free, AVAHI_ERR_NOT_SUPPORTED, group);
}

AvahiClient *avahi_entry_group_get_client(AvahiEntryGroup *group) {
    FORWARD(avahi_entry_group_get_client, NULL, group);
}

AvahiEntryGroup *avahi_entry_group_new(AvahiClient *c, AvahiEntryGroupCallback callback, void *userdata) {
    FORWARD(avahi_entry_group_new, NULL, c, callback, userdata);
}

int avahi_entry_group_reset(AvahiEntryGroup *group) {
    FORWARD(avahi_entry_group_reset, AVAHI_ERR_NOT_SUPPORTED, group);
}

void avahi_free(void *p) {
    FORWARD_VOID(avahi_free, p);
}

// Without the libraries the error worth telling is why they did not load.
const char *avahi_strerror(int error) {
    FORWARD(avahi_strerror, failure, error);
}

AvahiStringList *avahi_string_list_add(AvahiStringList *l, const char *text) {
    FORWARD(avahi_string_list_add, NULL, l, text);
}

void avahi_string_list_free(AvahiStringList *l) {
    FORWARD_VOID(avahi_string_list_free, l);
}

void avahi_threaded_poll_free(AvahiThreadedPoll *p) {
    FORWARD_VOID(avahi_threaded_poll_free, p);
}

const AvahiPoll *avahi_threaded_poll_get(AvahiThreadedPoll *p) {
    FORWARD(avahi_threaded_poll_get, NULL, p);
}

AvahiThreadedPoll *avahi_threaded_poll_new(void) {
    FORWARD(avahi_threaded_poll_new, NULL);
}

int avahi_threaded_poll_start(AvahiThreadedPoll *p) {
    FORWARD(avahi_threaded_poll_start, AVAHI_ERR_NOT_SUPPORTED, p);
}

int avahi_threaded_poll_stop(AvahiThreadedPoll *p) {
    FORWARD(avahi_threaded_poll_stop, AVAHI_ERR_NOT_SUPPORTED, p);
}
