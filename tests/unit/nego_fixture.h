/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Shared by test_nego.c and test_nego_policy.c: a zeroed bus with caps set
 * by each test, a fake back-end that records every set_xfer, an async
 * callback counter, and the messages several tests send or expect.
 * Include after cmocka.h.
 */
#ifndef NEGO_FIXTURE_H
#define NEGO_FIXTURE_H

#include <string.h>

#include "../../core/nego/nego.h"
#include "pcam/pcam_msg.h"

#define T 3 /* the target every test talks to */

static pcam_bus bus;
static struct {
    int calls;
    uint8_t target;
    pcam_hal_xfer_params last;
} xf;
static int async_calls;
static uint32_t async_code;

static inline int fake_set_xfer(void *sc, uint8_t target, const pcam_hal_xfer_params *p)
{
    (void)sc;
    xf.calls++;
    xf.target = target;
    xf.last = *p;
    return 0;
}

static const pcam_hal_ops fake_ops = {.set_xfer = fake_set_xfer};

static inline uint64_t fake_now(void *ctx)
{
    (void)ctx;
    return 1000;
}

static inline void on_async(void *arg, uint32_t code, uint8_t target, uint8_t lun)
{
    (void)arg;
    (void)lun;
    assert_int_equal(target, T);
    async_calls++;
    async_code = code;
}

/* Chips the tests use (flags, fastest factor, largest offset, IDs). */
#define ESP_FLAGS (PCAM_HAL_CAP_SYNC | PCAM_HAL_CAP_TAGS | PCAM_HAL_CAP_PARITY)
#define WIDE_FLAGS (ESP_FLAGS | PCAM_HAL_CAP_WIDE)
#define U160_FLAGS (WIDE_FLAGS | PCAM_HAL_CAP_DT)

static inline void setup_bus(uint32_t flags, uint8_t min_period, uint8_t max_offset, uint8_t max_targets)
{
    memset(&bus, 0, sizeof bus);
    memset(&xf, 0, sizeof xf);
    async_calls = 0;
    async_code = 0;
    bus.caps.flags = flags;
    bus.caps.min_period = min_period;
    bus.caps.max_offset = max_offset;
    bus.caps.max_targets = max_targets;
    bus.cfg.parity_stepdown = 2;
    bus.hal.ops = &fake_ops;
    bus.plat.now_ns = fake_now;
    bus.ev.async[0].events = PCAM_AC_TRANSFER_NEG;
    bus.ev.async[0].cb = on_async;
    pcam_nego_init(&bus, T);
}

/* AM53C974-class: narrow, FAST-10 (0x19), offset 15, 8 IDs. */
static inline void setup_esp(void)
{
    setup_bus(ESP_FLAGS, 0x19, 15, 8);
}
/* Ultra2-class: wide, 0x0A, offset 31, no DT. */
static inline void setup_wide(void)
{
    setup_bus(WIDE_FLAGS, 0x0A, 31, 16);
}
/* Ultra160-class: wide, DT, 0x09, offset 31. */
static inline void setup_u160(void)
{
    setup_bus(U160_FLAGS, 0x09, 31, 16);
}

static inline pcam_xfer_settings get(pcam_tran_type type)
{
    pcam_xfer_settings s;
    pcam_nego_get(&bus, T, type, &s);
    return s;
}

static inline void assert_link(pcam_xfer_settings s, uint8_t period, uint8_t offset, uint8_t width,
                        uint8_t options)
{
    assert_int_equal(s.period, period);
    assert_int_equal(s.offset, offset);
    assert_int_equal(s.width, width);
    assert_int_equal(s.ppr_options, options);
}

static inline void assert_chip(int calls, uint8_t period, uint8_t offset, uint8_t width, uint8_t options)
{
    assert_int_equal(xf.calls, calls);
    assert_int_equal(xf.target, T);
    assert_int_equal(xf.last.period, period);
    assert_int_equal(xf.last.offset, offset);
    assert_int_equal(xf.last.width, width);
    assert_int_equal(xf.last.ppr_options, options);
}

/* Start a negotiation and check the exact bytes. */
static inline void expect_start(const uint8_t *want, size_t n)
{
    uint8_t buf[PCAM_MSGOUT_BYTES];
    assert_true(pcam_nego_wanted(&bus, T));
    memset(buf, 0xEE, sizeof buf);
    assert_int_equal(pcam_nego_start(&bus, T, buf, sizeof buf), (int)n);
    assert_memory_equal(buf, want, n);
    assert_int_equal(buf[n], 0xEE);
    assert_true(pcam_nego_in_flight(&bus, T));
    assert_false(pcam_nego_wanted(&bus, T));
}

static inline int msg_in(const uint8_t *m, size_t n, uint8_t *reply)
{
    return pcam_nego_msg_in(&bus, T, m, n, reply, PCAM_MSGOUT_BYTES);
}

static inline uint32_t last_event_arg(uint16_t code)
{
    /* (At least one entry: the minimal build, which has no ring, includes this too.) */
    pcam_event ev[PCAM_EVENT_RING > 0 ? PCAM_EVENT_RING : 1];
    size_t n = pcam_bus_read_events(&bus, ev, sizeof ev / sizeof ev[0]);
    for (size_t i = n; i > 0; i--)
        if (ev[i - 1].code == code) {
            assert_int_equal(ev[i - 1].target, T);
            return ev[i - 1].arg;
        }
    fail_msg("no event %u", code);
    return 0;
}

/* Messages several tests send or expect (bytes per SPI-3, see test_nego.c). */
static const uint8_t esp_sdtr[] = {0x01, 0x03, 0x01, 0x19, 0x0F};  /* 100 ns, offset 15 */
static const uint8_t wide_sdtr[] = {0x01, 0x03, 0x01, 0x0A, 0x1F}; /* 25 ns, offset 31 */
static const uint8_t wdtr_wide[] = {0x01, 0x02, 0x03, 0x01};       /* 16-bit */
/* 12.5 ns (DT), offset 31, 16-bit, DT */
static const uint8_t ppr_u160[] = {0x01, 0x06, 0x04, 0x09, 0x00, 0x1F, 0x01, 0x02};

#endif /* NEGO_FIXTURE_H */
