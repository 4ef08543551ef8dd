#include <systemd/sd-bus.h>
#include <sys/eventfd.h>

/* sd-bus's vtable entries are made by macros (designated initializers of a struct with bit fields and a
   union), which Swift cannot expand: one function per kind of entry builds it in C. The strings must
   outlive the object's registration. */
static inline sd_bus_vtable xz_bus_vtable_start(void) {
    return (sd_bus_vtable) SD_BUS_VTABLE_START(0);
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
