/* SPDX-License-Identifier: BSD-2-Clause */
/* Event ring, async registration and delivery, logging and per-bus counters access. */
#include "common.h"

void pcam_core_event(pcam_bus *bus, uint16_t code, uint8_t target, uint8_t lun, uint32_t arg)
{
#if PCAM_EVENT_RING > 0
    pcam_event *e = &bus->ev.ring[bus->ev.ring_head];
    e->time_ns = pcam_core_now(bus);
    e->code = code;
    e->target = target;
    e->lun = lun;
    e->arg = arg;
    bus->ev.ring_head = (uint16_t)((bus->ev.ring_head + 1u) % PCAM_EVENT_RING);
    if (bus->ev.ring_count < PCAM_EVENT_RING)
        bus->ev.ring_count++;
    else
        bus->ev.ring_dropped++; /* the oldest entry was overwritten */
#else
    (void)code;
    (void)target;
    (void)lun;
    (void)arg;
    bus->ev.ring_dropped++; /* no ring: every event is dropped, and counted */
#endif
}

size_t pcam_bus_read_events(pcam_bus *bus, pcam_event *out, size_t max)
{
    size_t n = 0;
    if (bus == NULL || out == NULL)
        return 0;
#if PCAM_EVENT_RING > 0
    while (n < max && bus->ev.ring_count > 0) {
        unsigned oldest = (bus->ev.ring_head + PCAM_EVENT_RING - bus->ev.ring_count) % PCAM_EVENT_RING;
        out[n++] = bus->ev.ring[oldest];
        bus->ev.ring_count--;
    }
#else
    (void)max;
#endif
    return n;
}

void pcam_core_async(pcam_bus *bus, uint32_t code, uint8_t target, uint8_t lun)
{
    for (unsigned i = 0; i < PCAM_ASYNC_SLOTS; i++) {
        const pcam_async_slot *s = &bus->ev.async[i];
        if (s->cb != NULL && (s->events & code) != 0)
            s->cb(s->arg, code, target, lun);
    }
}

void (pcam_core_log)(pcam_bus *bus, pcam_log_level level, const char *a, const char *b)
{
    char line[160];
    pcam_strbuf sb;
    if (bus->plat.log == NULL)
        return;
    pcam_sb_init(&sb, line, sizeof line);
    pcam_sb_puts(&sb, "pcam: ");
    /* NULL: built with PCAM_CFG_LOG_TEXT 0. */
    pcam_sb_puts(&sb, a != NULL ? a : "event (message texts not built in)");
    if (b != NULL) {
        pcam_sb_puts(&sb, ": ");
        pcam_sb_puts(&sb, b);
    }
    bus->plat.log(bus->plat.ctx, level, line);
}

pcam_err pcam_bus_get_counters(const pcam_bus *bus, uint8_t target, pcam_counters *out)
{
    if (bus == NULL || out == NULL)
        return PCAM_ERR_NULL;
    if (target >= PCAM_MAX_TARGETS)
        return PCAM_ERR_RANGE;
#if PCAM_CFG_COUNTERS
    *out = bus->targets[target].counters;
    return PCAM_OK;
#else
    memset(out, 0, sizeof *out);
    return PCAM_ERR_UNSUPPORTED;
#endif
}

uint32_t pcam_core_set_async(pcam_bus *bus, const pcam_ccb *ccb)
{
    const pcam_async *a = &ccb->u.async;
    pcam_async_slot *free_slot = NULL;
    for (unsigned i = 0; i < PCAM_ASYNC_SLOTS; i++) {
        pcam_async_slot *s = &bus->ev.async[i];
        if (s->cb != NULL && s->arg == a->arg && (a->cb == NULL || s->cb == a->cb)) {
            if (a->cb == NULL) {
                memset(s, 0, sizeof *s);
                return PCAM_REQ_CMP;
            }
            s->events = a->events; /* re-registration updates the mask */
            return PCAM_REQ_CMP;
        }
        if (s->cb == NULL && free_slot == NULL)
            free_slot = s;
    }
    if (a->cb == NULL)
        return PCAM_REQ_INVALID;
    if (free_slot == NULL)
        return PCAM_RESRC_UNAVAIL;
    free_slot->events = a->events;
    free_slot->cb = a->cb;
    free_slot->arg = a->arg;
    return PCAM_REQ_CMP;
}
