// libsystemd loaded on first use: each sd_bus_* function shim.h's users call, defined with sd-bus.h's own
// prototype and forwarded to the library, so a one-shot command never maps libsystemd and what it pulls in.
#include "shim.h"

#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>

#define XZ_SYSTEMD_FUNCTIONS(X)                 \
    X(sd_bus_add_object_vtable)                 \
    X(sd_bus_call)                              \
    X(sd_bus_emit_properties_changed_strv)      \
    X(sd_bus_error_free)                        \
    X(sd_bus_error_set)                         \
    X(sd_bus_flush_close_unref)                 \
    X(sd_bus_get_events)                        \
    X(sd_bus_get_fd)                            \
    X(sd_bus_get_timeout)                       \
    X(sd_bus_message_append_basic)              \
    X(sd_bus_message_close_container)           \
    X(sd_bus_message_get_error)                 \
    X(sd_bus_message_get_member)                \
    X(sd_bus_message_is_method_error)           \
    X(sd_bus_message_new_method_call)           \
    X(sd_bus_message_new_method_return)         \
    X(sd_bus_message_new_signal)                \
    X(sd_bus_message_open_container)            \
    X(sd_bus_message_read_basic)                \
    X(sd_bus_message_unref)                     \
    X(sd_bus_new)                               \
    X(sd_bus_open_user)                         \
    X(sd_bus_process)                           \
    X(sd_bus_request_name_async)                \
    X(sd_bus_send)                              \
    X(sd_bus_set_address)                       \
    X(sd_bus_set_bus_client)                    \
    X(sd_bus_slot_unref)                        \
    X(sd_bus_start)                             \
    X(sd_bus_unref)

static struct {
#define FIELD(name) __typeof__(name) *name;
    XZ_SYSTEMD_FUNCTIONS(FIELD)
#undef FIELD
    const unsigned *vtable_format;
} table;
static int loaded;
static char failure[512];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void) {
    // The soname of the ABI sd-bus.h describes (0 since systemd 209).
    void *library = dlopen("libsystemd.so.0", RTLD_LAZY | RTLD_LOCAL);
    if (!library) {
        snprintf(failure, sizeof failure, "cannot load libsystemd.so.0: %s", dlerror());
        return;
    }
#define RESOLVE(name)                                                           \
    if (!(*(void **)&table.name = dlsym(library, #name))) {                     \
        snprintf(failure, sizeof failure, "libsystemd lacks %s", #name);        \
        return;                                                                 \
    }
    XZ_SYSTEMD_FUNCTIONS(RESOLVE)
#undef RESOLVE
    // Data, not a function: sd-bus checks a vtable's start entry points at the library's own copy.
    if (!(table.vtable_format = dlsym(library, "sd_bus_object_vtable_format"))) {
        snprintf(failure, sizeof failure, "libsystemd lacks sd_bus_object_vtable_format");
        return;
    }
    loaded = 1;
}

static int available(void) {
    pthread_once(&once, load);
    return loaded;
}

const unsigned *xz_systemd_vtable_format(void) {
    return available() ? table.vtable_format : NULL;
}

const char *xz_systemd_error(void) {
    return available() ? NULL : failure;
}

// Without the library every call fails as sd-bus does when a feature is missing (-ENOSYS), or gives NULL.
#define FORWARD(name, fallback, ...) return available() ? table.name(__VA_ARGS__) : (fallback)

int sd_bus_add_object_vtable(sd_bus *bus, sd_bus_slot **slot, const char *path, const char *interface,
                             const sd_bus_vtable *vtable, void *userdata) {
    FORWARD(sd_bus_add_object_vtable, -ENOSYS, bus, slot, path, interface, vtable, userdata);
}

int sd_bus_call(sd_bus *bus, sd_bus_message *m, uint64_t usec, sd_bus_error *ret_error, sd_bus_message **reply) {
    FORWARD(sd_bus_call, -ENOSYS, bus, m, usec, ret_error, reply);
}

int sd_bus_emit_properties_changed_strv(sd_bus *bus, const char *path, const char *interface, char **names) {
    FORWARD(sd_bus_emit_properties_changed_strv, -ENOSYS, bus, path, interface, names);
}

void sd_bus_error_free(sd_bus_error *e) {
    if (available()) table.sd_bus_error_free(e);
}

int sd_bus_error_set(sd_bus_error *e, const char *name, const char *message) {
    FORWARD(sd_bus_error_set, -ENOSYS, e, name, message);
}

sd_bus *sd_bus_flush_close_unref(sd_bus *bus) {
    FORWARD(sd_bus_flush_close_unref, NULL, bus);
}

int sd_bus_get_events(sd_bus *bus) {
    FORWARD(sd_bus_get_events, -ENOSYS, bus);
}

int sd_bus_get_fd(sd_bus *bus) {
    FORWARD(sd_bus_get_fd, -ENOSYS, bus);
}

int sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec) {
    FORWARD(sd_bus_get_timeout, -ENOSYS, bus, timeout_usec);
}

int sd_bus_message_append_basic(sd_bus_message *m, char type, const void *p) {
    FORWARD(sd_bus_message_append_basic, -ENOSYS, m, type, p);
}

int sd_bus_message_close_container(sd_bus_message *m) {
    FORWARD(sd_bus_message_close_container, -ENOSYS, m);
}

const sd_bus_error *sd_bus_message_get_error(sd_bus_message *m) {
    FORWARD(sd_bus_message_get_error, NULL, m);
}

const char *sd_bus_message_get_member(sd_bus_message *m) {
    FORWARD(sd_bus_message_get_member, NULL, m);
}

int sd_bus_message_is_method_error(sd_bus_message *m, const char *name) {
    FORWARD(sd_bus_message_is_method_error, -ENOSYS, m, name);
}

int sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination, const char *path,
                                   const char *interface, const char *member) {
    FORWARD(sd_bus_message_new_method_call, -ENOSYS, bus, m, destination, path, interface, member);
}

int sd_bus_message_new_method_return(sd_bus_message *call, sd_bus_message **m) {
    FORWARD(sd_bus_message_new_method_return, -ENOSYS, call, m);
}

int sd_bus_message_new_signal(sd_bus *bus, sd_bus_message **m, const char *path, const char *interface,
                              const char *member) {
    FORWARD(sd_bus_message_new_signal, -ENOSYS, bus, m, path, interface, member);
}

int sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents) {
    FORWARD(sd_bus_message_open_container, -ENOSYS, m, type, contents);
}

int sd_bus_message_read_basic(sd_bus_message *m, char type, void *p) {
    FORWARD(sd_bus_message_read_basic, -ENOSYS, m, type, p);
}

sd_bus_message *sd_bus_message_unref(sd_bus_message *m) {
    FORWARD(sd_bus_message_unref, NULL, m);
}

int sd_bus_new(sd_bus **ret) {
    FORWARD(sd_bus_new, -ENOSYS, ret);
}

int sd_bus_open_user(sd_bus **ret) {
    FORWARD(sd_bus_open_user, -ENOSYS, ret);
}

int sd_bus_process(sd_bus *bus, sd_bus_message **r) {
    FORWARD(sd_bus_process, -ENOSYS, bus, r);
}

int sd_bus_request_name_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *name, uint64_t flags,
                              sd_bus_message_handler_t callback, void *userdata) {
    FORWARD(sd_bus_request_name_async, -ENOSYS, bus, ret_slot, name, flags, callback, userdata);
}

int sd_bus_send(sd_bus *bus, sd_bus_message *m, uint64_t *cookie) {
    FORWARD(sd_bus_send, -ENOSYS, bus, m, cookie);
}

int sd_bus_set_address(sd_bus *bus, const char *address) {
    FORWARD(sd_bus_set_address, -ENOSYS, bus, address);
}

int sd_bus_set_bus_client(sd_bus *bus, int b) {
    FORWARD(sd_bus_set_bus_client, -ENOSYS, bus, b);
}

sd_bus_slot *sd_bus_slot_unref(sd_bus_slot *slot) {
    FORWARD(sd_bus_slot_unref, NULL, slot);
}

int sd_bus_start(sd_bus *bus) {
    FORWARD(sd_bus_start, -ENOSYS, bus);
}

sd_bus *sd_bus_unref(sd_bus *bus) {
    FORWARD(sd_bus_unref, NULL, bus);
}
