#include <systemd/sd-bus.h>
#include <sys/eventfd.h>
#include <string.h>

/* libsystemd is loaded on first use (systemd_loader.c), so a one-shot command never maps it: every sd_bus_*
   function this header declares is defined there and fails with -ENOSYS when the library cannot be loaded. */

/* The address of the loaded library's `sd_bus_object_vtable_format`, which sd-bus compares with a vtable's
   start entry (NULL when not loaded). */
const unsigned *xz_systemd_vtable_format(void);

/* Why libsystemd could not be loaded, or NULL when it is. */
const char *xz_systemd_error(void);

/* sd-bus's vtable entries are made by macros (designated initializers of a struct with bit fields and a
   union), which Swift cannot expand: one function per kind of entry builds it in C. The strings must
   outlive the object's registration. */
static inline sd_bus_vtable xz_bus_vtable_start(void) {
    /* SD_BUS_VTABLE_START(0) spelled out: the macro takes the address of our own (unlinked) symbol. */
    sd_bus_vtable entry;
    memset(&entry, 0, sizeof entry);
    entry.type = _SD_BUS_VTABLE_START;
    entry.x.start.element_size = sizeof(sd_bus_vtable);
    entry.x.start.features = _SD_BUS_VTABLE_PARAM_NAMES;
    entry.x.start.vtable_format_reference = xz_systemd_vtable_format();
    return entry;
}

static inline sd_bus_vtable xz_bus_vtable_end(void) {
    return (sd_bus_vtable) SD_BUS_VTABLE_END;
}

static inline sd_bus_vtable xz_bus_vtable_method(const char *member, const char *signature, const char *result,
                                                 const char *names, sd_bus_message_handler_t handler) {
    /* `names`: the arguments' names, each ended by NUL (the macro pastes literals). */
    sd_bus_vtable entry = SD_BUS_METHOD_WITH_NAMES_OFFSET(member, signature, "", result, "", handler, 0,
                                                          SD_BUS_VTABLE_UNPRIVILEGED);
    entry.x.method.names = names;
    return entry;
}

static inline sd_bus_vtable xz_bus_vtable_signal(const char *member, const char *signature, const char *names) {
    sd_bus_vtable entry = SD_BUS_SIGNAL_WITH_NAMES(member, signature, "", 0);
    entry.x.signal.names = names;
    return entry;
}

/* `changes`: emits PropertiesChanged with the value; otherwise only read (Position) or never changing. */
static inline sd_bus_vtable xz_bus_vtable_property(const char *member, const char *signature, sd_bus_property_get_t get,
                                                   sd_bus_property_set_t set, int changes, int constant) {
    uint64_t flags = constant ? SD_BUS_VTABLE_PROPERTY_CONST : (changes ? SD_BUS_VTABLE_PROPERTY_EMITS_CHANGE : 0);
    if (set) {
        return (sd_bus_vtable) SD_BUS_WRITABLE_PROPERTY(member, signature, get, set, 0, flags | SD_BUS_VTABLE_UNPRIVILEGED);
    }
    return (sd_bus_vtable) SD_BUS_PROPERTY(member, signature, get, 0, flags);
}
