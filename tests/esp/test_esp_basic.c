/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * hal/esp against the register-level ESP model: chip identification, bus
 * scan, a read on every variant, selection time-out and CHECK CONDITION
 * with autosense. Every scenario ends with zero protocol errors in the model
 * (the back-end used the chip as its data manual allows).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "esp_rig.h"

static void no_model_errors(const chiprig *r)
{
    erig_print_model_errors(r);
    assert_int_equal(espm_errors(r->model), 0);
    assert_null(r->violation);
}

/* ---- identification ---- */

static void identify_one(espm_chip chip, pcam_esp_chip want)
{
    chiprig r;
    erig_opts o;
    erig_opts_default(&o, chip);
    assert_int_equal(erig_init(&r, &o), 0);
    assert_int_equal(pcam_esp_get_chip(r.sc), want);
    no_model_errors(&r);
    chiprig_fini(&r);
}

static void identifies_every_variant(void **state)
{
    (void)state;
    /* Expectations from the variants' register sets (espmodel.h, the data
     * manuals): no CFG2 = 53C90; CFG2 only = 90A; CFG3 without part ID =
     * 53C94; part ID 0x12 = FAS216, 0x13 = FAS236; CFG4 = AM53C974. */
    identify_one(ESPM_NCR53C90, PCAM_ESP_NCR53C90);
    identify_one(ESPM_NCR53C90A, PCAM_ESP_NCR53C90A);
    identify_one(ESPM_NCR53C94, PCAM_ESP_NCR53C94);
    identify_one(ESPM_FAS216, PCAM_ESP_FAS216);
    identify_one(ESPM_FAS236, PCAM_ESP_FAS236);
    identify_one(ESPM_AM53C974, PCAM_ESP_AM53C974);
}

static void attach_rejects_bad_config(void **state)
{
    (void)state;
    pcam_esp esp;
    pcam_esp_config c;
    pcam_platform p;
    pcam_hal h;
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    pcam_sim *sim = pcam_sim_create(&sc);
    espm_config mc = {ESPM_FAS236, 40000, 7};
    espm *m = espm_create(sim, &mc);
    assert_non_null(m);
    espm_get_platform(m, &p);
    memset(&c, 0, sizeof c);
    c.base = espm_base(m);
    c.stride = 1;
    c.clock_khz = 40000;
    c.initiator_id = 7;
    assert_int_equal(pcam_esp_attach(NULL, &c, &p, &h), PCAM_ERR_NULL);
    assert_int_equal(pcam_esp_attach(&esp, NULL, &p, &h), PCAM_ERR_NULL);
    assert_int_equal(pcam_esp_attach(&esp, &c, NULL, &h), PCAM_ERR_NULL);
    assert_int_equal(pcam_esp_attach(&esp, &c, &p, NULL), PCAM_ERR_NULL);
    c.stride = 2;
    assert_int_equal(pcam_esp_attach(&esp, &c, &p, &h), PCAM_ERR_RANGE);
    c.stride = 1;
    c.clock_khz = 50000; /* above the family's 40 MHz */
    assert_int_equal(pcam_esp_attach(&esp, &c, &p, &h), PCAM_ERR_RANGE);
    c.clock_khz = 40000;
    c.initiator_id = 8;
    assert_int_equal(pcam_esp_attach(&esp, &c, &p, &h), PCAM_ERR_RANGE);
    c.initiator_id = 7;
    c.chip = (pcam_esp_chip)7;
    assert_int_equal(pcam_esp_attach(&esp, &c, &p, &h), PCAM_ERR_RANGE);
    c.chip = PCAM_ESP_AUTO;
    assert_int_equal(pcam_esp_attach(&esp, &c, &p, &h), PCAM_OK);
    assert_int_equal(pcam_esp_get_chip(NULL), PCAM_ESP_AUTO);
    assert_int_equal(espm_errors(m), 0);
    espm_destroy(m);
    pcam_sim_destroy(sim);
}

/* ---- scan ---- */

typedef struct expect {
    uint8_t id, lun;
} expect;

static const expect present[] = {{0, 0}, {2, 0}, {3, 0}, {3, 2}, {3, 5}, {6, 0}};

static bool is_present(uint8_t id, uint8_t lun)
{
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++)
        if (present[i].id == id && present[i].lun == lun)
            return true;
    return false;
}

static void scan_and_check(espm_chip chip, bool polled, bool dma)
{
    chiprig r;
    erig_opts o;
    unsigned n = 0;
    erig_opts_default(&o, chip);
    o.polled = polled;
    o.use_dma = dma;
    assert_int_equal(erig_init(&r, &o), 0);
    for (size_t i = 0; i < sizeof present / sizeof present[0]; i++)
        assert_non_null(chiprig_add_disk(&r, present[i].id, present[i].lun, 256, NULL));
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    for (uint8_t id = 0; id < 7; id++) {
        for (uint8_t lun = 0; lun < 8; lun++) {
            chiprig_ccb g;
            memset(&g, 0, sizeof g);
            g.ccb.func = PCAM_FN_GET_DEV;
            g.ccb.target = id;
            g.ccb.lun = lun;
            uint32_t st = chiprig_sync(&r, &g, CHIPRIG_S(1));
            if (is_present(id, lun)) {
                n++;
                assert_int_equal(st, PCAM_REQ_CMP);
                assert_true(g.ccb.u.dev.present);
                assert_int_equal(g.ccb.u.dev.type, 0);
                assert_memory_equal(g.ccb.u.dev.inquiry + 8, "PCAMSIM ", 8);
            } else {
                assert_false(g.ccb.u.dev.present);
            }
        }
    }
    assert_int_equal(n, sizeof present / sizeof present[0]);
    no_model_errors(&r);
    chiprig_fini(&r);
}

static void scan_am53c974_dma(void **state)
{
    (void)state;
    scan_and_check(ESPM_AM53C974, false, true);
}

static void scan_am53c974_dma_polled(void **state)
{
    (void)state;
    scan_and_check(ESPM_AM53C974, true, true);
}

static void scan_fas236_pio(void **state)
{
    (void)state;
    scan_and_check(ESPM_FAS236, false, false);
}

/* ---- every variant: scan + read + write + read back ---- */

static void read_write_on(espm_chip chip, bool dma)
{
    chiprig r;
    erig_opts o;
    uint8_t buf[8 * 512], pat[8 * 512];
    erig_opts_default(&o, chip);
    o.use_dma = dma;
    assert_int_equal(erig_init(&r, &o), 0);
    uint8_t *store = chiprig_add_disk(&r, 1, 0, 512, NULL);
    assert_non_null(store);
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    memset(buf, 0xEE, sizeof buf);
    assert_int_equal(chiprig_rw(&r, 1, 0, false, 40, 8, buf, false), PCAM_REQ_CMP);
    assert_memory_equal(buf, store + 40 * 512, sizeof buf);
    for (size_t i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)(i * 31u + 5u);
    assert_int_equal(chiprig_rw(&r, 1, 0, true, 100, 8, pat, false), PCAM_REQ_CMP);
    assert_memory_equal(store + 100 * 512, pat, sizeof pat);
    memset(buf, 0, sizeof buf);
    assert_int_equal(chiprig_rw(&r, 1, 0, false, 100, 8, buf, false), PCAM_REQ_CMP);
    assert_memory_equal(buf, pat, sizeof pat);
    no_model_errors(&r);
    chiprig_fini(&r);
}

static void rw_ncr53c90(void **state)
{
    (void)state;
    read_write_on(ESPM_NCR53C90, false);
}

static void rw_ncr53c90a(void **state)
{
    (void)state;
    read_write_on(ESPM_NCR53C90A, false);
}

static void rw_ncr53c94(void **state)
{
    (void)state;
    read_write_on(ESPM_NCR53C94, false);
}

static void rw_fas216(void **state)
{
    (void)state;
    read_write_on(ESPM_FAS216, false);
}

static void rw_fas236(void **state)
{
    (void)state;
    read_write_on(ESPM_FAS236, false);
}

static void rw_am53c974_dma(void **state)
{
    (void)state;
    read_write_on(ESPM_AM53C974, true);
}

static void rw_am53c974_pio(void **state)
{
    (void)state;
    read_write_on(ESPM_AM53C974, false);
}

/* ---- selection time-out ---- */

static void selection_timeout(void **state)
{
    (void)state;
    chiprig r;
    erig_opts o;
    uint8_t buf[512];
    erig_opts_default(&o, ESPM_AM53C974);
    assert_int_equal(erig_init(&r, &o), 0);
    assert_non_null(chiprig_add_disk(&r, 0, 0, 64, NULL));
    uint64_t t0 = pcam_sim_now(r.sim);
    /* Nobody at ID 4: the chip's 250 ms time-out ends the selection. */
    assert_int_equal(chiprig_rw(&r, 4, 0, false, 0, 1, buf, false) & PCAM_STATUS_MASK, PCAM_SEL_TIMEOUT);
    assert_true(pcam_sim_now(r.sim) - t0 >= CHIPRIG_MS(200));
    /* The chip is usable afterwards. */
    assert_int_equal(chiprig_rw(&r, 0, 0, false, 0, 1, buf, false) & PCAM_STATUS_MASK, PCAM_REQ_CMP);
    no_model_errors(&r);
    chiprig_fini(&r);
}

/* ---- CHECK CONDITION + autosense ---- */

static void check_condition_autosense(espm_chip chip, bool dma)
{
    chiprig r;
    erig_opts o;
    uint8_t buf[512], sense[32];
    uint8_t cdb[10] = {0x28, 0, 0, 0, 0x10, 0, 0, 0, 1, 0}; /* READ(10) LBA 4096: past the end */
    chiprig_ccb rc;
    erig_opts_default(&o, chip);
    o.use_dma = dma;
    assert_int_equal(erig_init(&r, &o), 0);
    assert_non_null(chiprig_add_disk(&r, 2, 0, 64, NULL));
    assert_int_equal(chiprig_scan(&r), PCAM_REQ_CMP);
    chiprig_io(&rc, 2, 0, cdb, 10, PCAM_DIR_IN, buf, 512);
    memset(sense, 0, sizeof sense);
    rc.ccb.u.io.sense = sense;
    rc.ccb.u.io.sense_len = sizeof sense;
    uint32_t st = chiprig_sync(&r, &rc, CHIPRIG_S(5));
    assert_int_equal(st & PCAM_STATUS_MASK, PCAM_SCSI_STATUS_ERROR);
    assert_true((st & PCAM_AUTOSNS_VALID) != 0);
    assert_int_equal(rc.ccb.u.io.scsi_status, 0x02);
    /* Fixed-format sense, ILLEGAL REQUEST, LBA OUT OF RANGE (21/00), SPC. */
    assert_int_equal(sense[0] & 0x7F, 0x70);
    assert_int_equal(sense[2] & 0x0F, 0x05);
    assert_int_equal(sense[12], 0x21);
    assert_int_equal(sense[13], 0x00);
    assert_true(rc.ccb.u.io.sense_resid < sizeof sense);
    assert_int_equal(rc.done_count, 1);
    no_model_errors(&r);
    chiprig_fini(&r);
}

static void autosense_dma(void **state)
{
    (void)state;
    check_condition_autosense(ESPM_AM53C974, true);
}

static void autosense_pio(void **state)
{
    (void)state;
    check_condition_autosense(ESPM_NCR53C94, false);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(identifies_every_variant),
        cmocka_unit_test(attach_rejects_bad_config),
        cmocka_unit_test(scan_am53c974_dma),
        cmocka_unit_test(scan_am53c974_dma_polled),
        cmocka_unit_test(scan_fas236_pio),
        cmocka_unit_test(rw_ncr53c90),
        cmocka_unit_test(rw_ncr53c90a),
        cmocka_unit_test(rw_ncr53c94),
        cmocka_unit_test(rw_fas216),
        cmocka_unit_test(rw_fas236),
        cmocka_unit_test(rw_am53c974_dma),
        cmocka_unit_test(rw_am53c974_pio),
        cmocka_unit_test(selection_timeout),
        cmocka_unit_test(autosense_dma),
        cmocka_unit_test(autosense_pio),
    };
    if (getenv("PCAM_TEST_FILTER") != NULL)
        cmocka_set_test_filter(getenv("PCAM_TEST_FILTER"));
    return cmocka_run_group_tests(tests, NULL, NULL);
}
