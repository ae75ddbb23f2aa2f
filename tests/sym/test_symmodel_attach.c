/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/sym's attach and argument checks, on the SCRIPTS-level model: the
 * chip table maps PCI IDs and revisions as the data manuals do (810 vs
 * 810A by revision, 875 with its doubler from revision 2, 895A's 8 KiB
 * SCRIPTS RAM), chips without LOAD/STORE and unknown IDs are refused,
 * bad configurations get PCAM_ERR_RANGE / PCAM_ERR_NULL, the capabilities
 * follow the chip (wide Ultra2: 16 IDs, factor 0x0A, offset 31), the script
 * fits, and commands the chip cannot carry (CDB over 16 bytes, more than 16
 * segments, the chip's own ID) are refused without touching the chip.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "sym_rig.h"

static void test_chip_table(void **state)
{
    (void)state;
    assert_string_equal(pcam_sym_chip_lookup(0x0001, 0x02)->name, "53C810");
    assert_string_equal(pcam_sym_chip_lookup(0x0001, 0x12)->name, "53C810A");
    assert_string_equal(pcam_sym_chip_lookup(0x0003, 0x14)->name, "53C825A");
    const pcam_sym_chip_info *c875 = pcam_sym_chip_lookup(0x000F, 0x01);
    const pcam_sym_chip_info *c875d = pcam_sym_chip_lookup(0x000F, 0x04);
    assert_true((c875->flags & PCAM_SYM_F_DBLR) == 0);
    assert_true((c875d->flags & PCAM_SYM_F_DBLR) != 0);
    const pcam_sym_chip_info *a = pcam_sym_chip_lookup(0x0012, 0x00);
    assert_string_equal(a->name, "53C895A");
    assert_int_equal(a->ram_bytes, 8192);
    assert_true((a->flags & (PCAM_SYM_F_WIDE | PCAM_SYM_F_ULTRA2 | PCAM_SYM_F_QUAD | PCAM_SYM_F_LDSTR)) ==
                (PCAM_SYM_F_WIDE | PCAM_SYM_F_ULTRA2 | PCAM_SYM_F_QUAD | PCAM_SYM_F_LDSTR));
    assert_true((pcam_sym_chip_lookup(0x0020, 0)->flags & PCAM_SYM_F_DT) != 0);
    assert_null(pcam_sym_chip_lookup(0x2020, 0));
    size_t n;
    const pcam_sym_chip_info *t = pcam_sym_chip_table(&n);
    assert_true(n >= 15);
    for (size_t i = 0; i < n; i++) {
        assert_true(t[i].rev_min <= t[i].rev_max);
        assert_true(t[i].max_offset >= 8);
        /* Entries of one device ID do not overlap in revision. */
        for (size_t j = i + 1; j < n; j++)
            if (t[i].device == t[j].device)
                assert_true(t[i].rev_max < t[j].rev_min || t[j].rev_max < t[i].rev_min);
    }
}

static void test_attach_errors(void **state)
{
    (void)state;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    pcam_sim *sim = pcam_sim_create(&sc);
    symm *m = symm_create(sim, 160000);
    pcam_platform plat;
    symm_get_platform(m, &plat);
    pcam_sym *sym = calloc(1, sizeof *sym);
    pcam_hal hal;
    pcam_sym_config yc;
    uint64_t bus;
    memset(&yc, 0, sizeof yc);
    yc.base = symm_base(m);
    yc.pci_device = 0x0012;
    yc.initiator_id = 7;
    yc.dma_va = symm_alloc(m, PCAM_SYM_DMA_BYTES, &bus);
    yc.dma_bus = bus;
    yc.dma_len = PCAM_SYM_DMA_BYTES;
    assert_int_equal(pcam_sym_attach(NULL, &yc, &plat, &hal), PCAM_ERR_NULL);
    pcam_platform p2 = plat;
    p2.dma_map = NULL;
    assert_int_equal(pcam_sym_attach(sym, &yc, &p2, &hal), PCAM_ERR_NULL);
    pcam_sym_config bad = yc;
    bad.pci_device = 0x0001; /* 53C810: no LOAD/STORE */
    assert_int_equal(pcam_sym_attach(sym, &bad, &plat, &hal), PCAM_ERR_UNSUPPORTED);
    bad = yc;
    bad.pci_device = 0x7777;
    assert_int_equal(pcam_sym_attach(sym, &bad, &plat, &hal), PCAM_ERR_UNSUPPORTED);
    bad = yc;
    bad.dma_len = PCAM_SYM_DMA_BYTES - 1;
    assert_int_equal(pcam_sym_attach(sym, &bad, &plat, &hal), PCAM_ERR_RANGE);
    bad = yc;
    bad.initiator_id = 16;
    assert_int_equal(pcam_sym_attach(sym, &bad, &plat, &hal), PCAM_ERR_RANGE);
    bad = yc;
    bad.dma_bus = 0xFFFFF000u;
    assert_int_equal(pcam_sym_attach(sym, &bad, &plat, &hal), PCAM_ERR_RANGE);
    bad = yc;
    bad.clock_khz = 5000;
    assert_int_equal(pcam_sym_attach(sym, &bad, &plat, &hal), PCAM_ERR_RANGE);
    assert_null(pcam_sym_get_chip(NULL));
    assert_int_equal(pcam_sym_attach(sym, &yc, &plat, &hal), PCAM_OK);
    assert_string_equal(pcam_sym_get_chip(sym)->name, "53C895A");
    size_t sb = pcam_sym_script_bytes(sym);
    printf("script: %zu bytes (%zu instructions)\n", sb, sb / 8);
    assert_true(sb > 0 && sb <= 2048);
    pcam_hal_caps caps;
    hal.ops->get_caps(hal.sc, &caps);
    assert_int_equal(caps.profile, PCAM_HAL_SCRIPT_LEVEL);
    assert_int_equal(caps.max_targets, 16);
    assert_int_equal(caps.min_period, 0x0A);
    assert_int_equal(caps.max_offset, 31);
    assert_int_equal(caps.max_sg, PCAM_SYM_MAX_SG);
    assert_true((caps.flags & PCAM_HAL_CAP_WIDE) != 0 && (caps.flags & PCAM_HAL_CAP_TAGS) != 0);

    /* Commands the chip cannot carry. */
    static const uint8_t cdb[16] = {0x28};
    static uint8_t data[64];
    pcam_sg sg[17];
    for (unsigned i = 0; i < 17; i++) {
        sg[i].addr = data + i;
        sg[i].len = 1;
    }
    pcam_hal_cmd cmd;
    memset(&cmd, 0, sizeof cmd);
    cmd.handle = &cmd;
    cmd.target = 0;
    cmd.cdb = cdb;
    cmd.cdb_len = 17;
    assert_int_equal(hal.cmd->start(hal.sc, &cmd), PCAM_ERR_RANGE);
    cmd.cdb_len = 10;
    cmd.target = 7;
    assert_int_equal(hal.cmd->start(hal.sc, &cmd), PCAM_ERR_RANGE);
    cmd.target = 0;
    cmd.dir = PCAM_DIR_IN;
    cmd.sg = sg;
    cmd.sg_count = 17;
    cmd.data_len = 17;
    assert_int_equal(hal.cmd->start(hal.sc, &cmd), PCAM_ERR_RANGE);
    cmd.sg_count = 2;
    cmd.data_len = 5; /* longer than the list */
    assert_int_equal(hal.cmd->start(hal.sc, &cmd), PCAM_ERR_RANGE);
    assert_int_equal(hal.cmd->abort(hal.sc, &cmd), PCAM_ERR_RANGE);
    assert_int_equal(hal.cmd->reset_dev(hal.sc, 16, 0, false), PCAM_ERR_RANGE);
    pcam_sym_stats st;
    pcam_sym_get_stats(sym, &st);
    assert_int_equal(st.started, 0);
    assert_int_equal(symm_live_maps(m), 0); /* every refused command unmapped what it mapped */
    assert_int_equal(symm_errors(m), 0);
    free(sym);
    symm_destroy(m);
    pcam_sim_destroy(sim);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chip_table),
        cmocka_unit_test(test_attach_errors),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
