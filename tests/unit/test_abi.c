/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The storage check of every entry point that takes the caller's storage
 * (pcam.h, pcam_abi), inside one build: each field of the caller's view
 * that differs from the library's is refused with PCAM_ERR_ABI, the text
 * names that field with both values, and not a byte of the storage is
 * written. Across builds and installs, tests/abi/check.sh proves the same
 * with real mismatched configurations.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "pcam/pcam.h"
#include "pcam/pcam_esp.h"
#include "pcam/pcam_sym.h"
#include "pcam/pcam_mpt.h"
#include "pcam/pcam_virtio.h"

static pcam_bus bus;
static pcam_lun luns[PCAM_BUS_LUNS(PCAM_MAX_TARGETS, 1)];

static bool all(const void *p, size_t n, uint8_t v)
{
    const uint8_t *c = p;
    for (size_t i = 0; i < n; i++)
        if (c[i] != v)
            return false;
    return true;
}

static uint64_t clock_ns(void *ctx) { (void)ctx; return 0; }

static void every_field_is_checked(void **state)
{
    /* field offset, the name the text must give, the library's value */
    const pcam_abi lib = PCAM_ABI_INITIALIZER;
    static const struct {
        size_t off;
        const char *name;
    } f[] = {
        {offsetof(pcam_abi, version), "PCAM_ABI_VERSION"},
        {offsetof(pcam_abi, abi_size), "sizeof(pcam_abi)"},
        {offsetof(pcam_abi, bus_size), "sizeof(pcam_bus)"},
        {offsetof(pcam_abi, ccb_size), "sizeof(pcam_ccb)"},
        {offsetof(pcam_abi, lun_size), "sizeof(pcam_lun)"},
        {offsetof(pcam_abi, target_size), "sizeof(pcam_target)"},
        {offsetof(pcam_abi, max_targets), "PCAM_CFG_MAX_TARGETS"},
        {offsetof(pcam_abi, tags), "PCAM_CFG_TAGS"},
        {offsetof(pcam_abi, tag_hash), "PCAM_CFG_TAG_HASH"},
        {offsetof(pcam_abi, event_ring), "PCAM_CFG_EVENT_RING"},
        {offsetof(pcam_abi, scan_buf), "PCAM_CFG_SCAN_BUF"},
        {offsetof(pcam_abi, counters), "PCAM_CFG_COUNTERS"},
    };
    (void)state;
    assert_int_equal(sizeof f / sizeof f[0], sizeof(pcam_abi) / sizeof(uint32_t));
    pcam_platform plat;
    memset(&plat, 0, sizeof plat);
    plat.now_ns = clock_ns;
    for (size_t i = 0; i < sizeof f / sizeof f[0]; i++) {
        pcam_abi v = lib;
        uint32_t x;
        memcpy(&x, (uint8_t *)&v + f[i].off, sizeof x);
        uint32_t lib_value = x;
        x += 1;
        memcpy((uint8_t *)&v + f[i].off, &x, sizeof x);
        char why[96], want[96];
        assert_int_equal(pcam_abi_check(&v, why, sizeof why), PCAM_ERR_ABI);
        snprintf(want, sizeof want, "%s: caller %u, library %u", f[i].name, (unsigned)x,
                 (unsigned)lib_value);
        assert_string_equal(why, want);
        /* No hal at all: the check must come before anything else is looked at. */
        memset(&bus, 0x5A, sizeof bus);
        memset(luns, 0x5A, sizeof luns);
        assert_int_equal(pcam_bus_init_abi(&v, &bus, NULL, NULL, &plat, luns, 1), PCAM_ERR_ABI);
        assert_true(all(&bus, sizeof bus, 0x5A));
        assert_true(all(luns, sizeof luns, 0x5A));
    }
    char why[8];
    assert_int_equal(pcam_abi_check(NULL, why, sizeof why), PCAM_ERR_ABI);
    assert_int_equal(pcam_abi_check(&lib, why, sizeof why), PCAM_OK);
    assert_string_equal(why, "");
    assert_int_equal(pcam_abi_compare(NULL, 0), PCAM_OK);
    /* A short buffer gets a cut, terminated text. */
    pcam_abi v = lib;
    v.tags++;
    assert_int_equal(pcam_abi_check(&v, why, sizeof why), PCAM_ERR_ABI);
    assert_int_equal(strlen(why), sizeof why - 1);
    assert_memory_equal(why, "PCAM_CF", sizeof why - 1);
}

static void backends_check_their_storage(void **state)
{
    static pcam_esp esp;
    static pcam_sym sym;
    static pcam_mpt mpt;
    static pcam_virtio vio;
    pcam_esp_config ec;
    pcam_sym_config sc;
    pcam_mpt_config mc;
    pcam_virtio_config vc;
    pcam_platform plat;
    pcam_hal hal;
    (void)state;
    memset(&ec, 0, sizeof ec);
    memset(&sc, 0, sizeof sc);
    memset(&mc, 0, sizeof mc);
    memset(&vc, 0, sizeof vc);
    memset(&plat, 0, sizeof plat);
    memset(&hal, 0x5A, sizeof hal);
    memset(&esp, 0x5A, sizeof esp);
    memset(&sym, 0x5A, sizeof sym);
    memset(&mpt, 0x5A, sizeof mpt);
    memset(&vio, 0x5A, sizeof vio);
    assert_int_equal(pcam_esp_attach_abi(sizeof esp - 8, &esp, &ec, &plat, &hal), PCAM_ERR_ABI);
    assert_int_equal(pcam_sym_attach_abi(sizeof sym + 8, &sym, &sc, &plat, &hal), PCAM_ERR_ABI);
    assert_true(all(&esp, sizeof esp, 0x5A));
    assert_int_equal(pcam_mpt_attach_abi(sizeof mpt - 8, &mpt, &mc, &plat, &hal), PCAM_ERR_ABI);
    assert_true(all(&sym, sizeof sym, 0x5A));
    assert_true(all(&mpt, sizeof mpt, 0x5A));
    assert_int_equal(pcam_virtio_attach_abi(sizeof vio + 8, &vio, &vc, &plat, &hal), PCAM_ERR_ABI);
    assert_true(all(&vio, sizeof vio, 0x5A));
    assert_true(all(&hal, sizeof hal, 0x5A));
    /* The right size gets past the check to the ordinary ones (no services). */
    assert_int_equal(pcam_esp_attach(&esp, &ec, &plat, &hal), PCAM_ERR_NULL);
    assert_int_equal(pcam_sym_attach(&sym, &sc, &plat, &hal), PCAM_ERR_NULL);
    assert_int_equal(pcam_mpt_attach(&mpt, &mc, &plat, &hal), PCAM_ERR_NULL);
    assert_int_equal(pcam_virtio_attach(&vio, &vc, &plat, &hal), PCAM_ERR_NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_field_is_checked),
        cmocka_unit_test(backends_check_their_storage),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
