/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Observability of the simulated bus: the trace ring (order, overflow,
 * determinism), the phase log's lines, the VCD file (header, monotonic
 * times, summarised data phases) and the bus statistics. Times are those of
 * the documented timing model (see hal/sim/README.md).
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp, strtok_r */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "simraw.h"
#include "pcam/pcam_err.h"
#include "pcam/pcam_msg.h"

static const uint8_t tur[6] = {0};
static const uint8_t ident = 0x80;

static pcam_sim *make(size_t ring, uint8_t **store)
{
    pcam_sim_config sc;
    pcam_sim *sim;

    pcam_sim_config_defaults(&sc);
    sc.trace_entries = ring;
    sim = pcam_sim_create(&sc);
    assert_non_null(sim);
    *store = simraw_add_disk(sim, 3, 0, NULL, 64, 1000);
    assert_non_null(*store);
    return sim;
}

/* TEST UNIT READY by hand: select, status, COMMAND COMPLETE. */
static void run_tur(simraw *r)
{
    uint8_t st = 0xFF;

    assert_int_equal(simraw_select(r, 3, true, &ident, 1, tur, 6), PCAM_HAL_EV_SELECT_DONE);
    assert_int_equal(simraw_xfer(r, PCAM_PHASE_STATUS, &st, 0, 1), PCAM_HAL_EV_XFER_DONE);
    assert_int_equal(simraw_msg_in(r), PCAM_HAL_EV_MSG_BYTE);
    assert_int_equal(simraw_accept(r, false), PCAM_HAL_EV_BUS_FREE);
}

static void ring_records_the_bus_in_order(void **state)
{
    static const pcam_sim_trace_kind want[] = {
        PCAM_SIM_TR_ARBITRATION, PCAM_SIM_TR_SELECTION, PCAM_SIM_TR_PHASE,   PCAM_SIM_TR_ATN,
        PCAM_SIM_TR_MSG_OUT,     PCAM_SIM_TR_PHASE,     PCAM_SIM_TR_COMMAND, PCAM_SIM_TR_PHASE,
        PCAM_SIM_TR_EVENT,       PCAM_SIM_TR_STATUS,    PCAM_SIM_TR_PHASE,   PCAM_SIM_TR_EVENT,
        PCAM_SIM_TR_MSG_IN,      PCAM_SIM_TR_EVENT,     PCAM_SIM_TR_BUS_FREE, PCAM_SIM_TR_EVENT,
    };
    /* 800 arbitration; 4800 selected; 5200 MESSAGE OUT; IDENTIFY 5200-5400;
     * 5800 COMMAND; CDB to 7000; 7400 STATUS; 7600 status sent; 8000
     * MESSAGE IN; byte latched 8100; ACK released 8100, done 8200; BUS FREE 8600. */
    static const uint64_t when[] = {800,  800,  5200, 5200, 5200, 5800, 5800, 7400,
                                    7400, 7400, 8000, 8000, 8100, 8100, 8600, 8600};
    pcam_sim_trace_entry e;
    pcam_sim_bus_stats bs;
    uint8_t *store;
    pcam_sim *sim = make(256, &store);
    simraw r;
    size_t i, n;

    (void)state;
    simraw_init(&r, sim);
    run_tur(&r);
    n = pcam_sim_trace_count(sim);
    /* The task notes are left out of the comparison. */
    for (i = 0, n = 0; i < pcam_sim_trace_count(sim); i++) {
        assert_true(pcam_sim_trace_get(sim, i, &e));
        if (e.kind == PCAM_SIM_TR_TASK)
            continue;
        assert_true(n < sizeof want / sizeof want[0]);
        assert_int_equal(e.kind, want[n]);
        assert_int_equal(e.t_ns, when[n]);
        n++;
    }
    assert_int_equal(n, sizeof want / sizeof want[0]);
    assert_false(pcam_sim_trace_get(sim, pcam_sim_trace_count(sim), &e));
    pcam_sim_bus_stats_get(sim, &bs);
    assert_int_equal(bs.busy_ns, 8600 - 800);
    assert_int_equal(bs.arbitrations, 1);
    assert_int_equal(bs.selections, 1);
    assert_int_equal(bs.data_bytes, 0);
    pcam_sim_trace_clear(sim);
    assert_int_equal(pcam_sim_trace_count(sim), 0);
    pcam_sim_destroy(sim);
    free(store);
}

static void ring_overwrites_the_oldest(void **state)
{
    pcam_sim_trace_entry e;
    uint8_t *store;
    pcam_sim *sim = make(8, &store);
    simraw r;

    (void)state;
    simraw_init(&r, sim);
    run_tur(&r);
    assert_int_equal(pcam_sim_trace_count(sim), 8);
    assert_true(pcam_sim_trace_dropped(sim) > 0);
    /* The newest entry is the BUS_FREE event. */
    assert_true(pcam_sim_trace_get(sim, 7, &e));
    assert_int_equal(e.kind, PCAM_SIM_TR_EVENT);
    assert_int_equal(e.value, PCAM_HAL_EV_BUS_FREE);
    assert_false(pcam_sim_trace_get(sim, 8, &e));
    pcam_sim_destroy(sim);
    free(store);
}

static void log_lines_are_readable(void **state)
{
    uint8_t *store;
    pcam_sim *sim = make(0, &store);
    char line[200];
    FILE *f = tmpfile();
    simraw r;
    bool saw_cc = false, saw_free = false;
    int lines = 0;

    (void)state;
    assert_non_null(f);
    pcam_sim_set_log(sim, f);
    simraw_init(&r, sim);
    run_tur(&r);
    pcam_sim_set_log(sim, NULL);
    rewind(f);
    assert_non_null(fgets(line, sizeof line, f));
    assert_string_equal(line, "         0.800 us  T7  ARBITRATION won by 7 (contenders 0x0080)\n");
    lines = 1;
    while (fgets(line, sizeof line, f) != NULL) {
        lines++;
        if (strcmp(line, "         8.100 us  T3  MSG IN 0x00 COMMAND COMPLETE\n") == 0)
            saw_cc = true;
        if (strcmp(line, "         8.600 us  T3  BUS FREE\n") == 0)
            saw_free = true;
    }
    assert_true(saw_cc);
    assert_true(saw_free);
    assert_true(lines >= 16);
    fclose(f);
    pcam_sim_destroy(sim);
    free(store);
}

static void format_checks_its_arguments(void **state)
{
    pcam_sim_trace_entry e;
    char buf[16];

    (void)state;
    memset(&e, 0, sizeof e);
    e.kind = PCAM_SIM_TR_BUS_FREE;
    e.target = 2;
    e.t_ns = 1234567;
    assert_int_equal(pcam_sim_trace_format(NULL, buf, sizeof buf), PCAM_ERR_NULL);
    assert_int_equal(pcam_sim_trace_format(&e, NULL, 0), PCAM_ERR_NULL);
    assert_int_equal(pcam_sim_trace_format(&e, buf, sizeof buf), PCAM_ERR_NOSPACE);
    assert_string_equal(buf, "      1234.567 ");
    e.kind = (pcam_sim_trace_kind)99;
    {
        char big[80];
        assert_true(pcam_sim_trace_format(&e, big, sizeof big) > 0);
        assert_string_equal(big, "      1234.567 us  T2  ?");
    }
}

/* Run the same script twice with one seed: identical traces. */
static size_t script_trace(uint64_t seed, pcam_sim_trace_entry *out, size_t max)
{
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 8, 0};
    pcam_sim_config sc;
    pcam_sim_target_config tc;
    pcam_sim *sim;
    uint8_t *store, buf[4096];
    simraw r;
    simraw_cmd c;
    size_t i, n;
    int k;

    pcam_sim_config_defaults(&sc);
    sc.seed = seed;
    sim = pcam_sim_create(&sc);
    pcam_sim_target_config_defaults(&tc);
    tc.ua_power_on = false;
    tc.parity_data_ppm = 300;
    tc.parity_msg_ppm = 20000;
    store = simraw_add_disk(sim, 1, 0, &tc, 64, 1000);
    simraw_init(&r, sim);
    for (k = 0; k < 6; k++) {
        simraw_cmd_init(&c, 1, 0, rd, 10, buf, sizeof buf);
        c.disc = true;
        assert_int_equal(simraw_run(&r, &c), 0);
        assert_memory_equal(buf, store, sizeof buf);
    }
    n = pcam_sim_trace_count(sim);
    for (i = 0; i < n && i < max; i++)
        assert_true(pcam_sim_trace_get(sim, i, &out[i]));
    pcam_sim_destroy(sim);
    free(store);
    return n;
}

static void one_seed_one_run(void **state)
{
    static pcam_sim_trace_entry a[4096], b[4096], c[4096];
    size_t na, nb, nc;

    (void)state;
    na = script_trace(7, a, 4096);
    nb = script_trace(7, b, 4096);
    nc = script_trace(8, c, 4096);
    assert_int_equal(na, nb);
    assert_memory_equal(a, b, na * sizeof a[0]);
    assert_true(na != nc || memcmp(a, c, na * sizeof a[0]) != 0);
}

/* ---- VCD ---- */

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf;
    long n;

    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    n = ftell(f);
    assert_true(n > 0);
    rewind(f);
    buf = malloc((size_t)n + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)n, f), (size_t)n);
    buf[n] = '\0';
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void vcd_run(const char *path)
{
    static const uint8_t rd[10] = {0x28, 0, 0, 0, 0, 0, 0, 0, 16, 0};
    static const uint8_t wr[10] = {0x2A, 0, 0, 0, 0, 32, 0, 0, 1, 0};
    uint8_t *store, buf[8192];
    pcam_sim *sim = make(16, &store);
    simraw r;
    simraw_cmd c;

    pcam_sim_target_cfg(sim, 3)->disconnect = PCAM_SIM_DISC_ALWAYS;
    assert_int_equal(pcam_sim_vcd_open(sim, path), 0);
    assert_int_equal(pcam_sim_vcd_open(sim, path), PCAM_ERR_UNSUPPORTED);
    simraw_init(&r, sim);
    simraw_cmd_init(&c, 3, 0, rd, 10, buf, sizeof buf);
    c.disc = true;
    assert_int_equal(simraw_run(&r, &c), 0);
    simraw_cmd_init(&c, 3, 0, wr, 10, buf, 512);
    assert_int_equal(simraw_run(&r, &c), 0);
    pcam_sim_bus_reset(sim);
    assert_int_equal(simraw_wait(&r), PCAM_HAL_EV_BUS_RESET);
    pcam_sim_advance(sim, pcam_sim_now(sim) + 30000);
    assert_int_equal(pcam_sim_vcd_close(sim), 0);
    assert_int_equal(pcam_sim_vcd_close(sim), 0);
    pcam_sim_destroy(sim);
    free(store);
}

static void vcd_file_is_well_formed(void **state)
{
    char path[] = "/tmp/pcam_simbus_vcd_XXXXXX", path2[] = "/tmp/pcam_simbus_vcd_XXXXXX";
    int fd = mkstemp(path), fd2 = mkstemp(path2);
    char *text, *text2, *line, *save = NULL;
    size_t len, len2;
    unsigned long long last = 0, t;
    bool defs_done = false, saw_x = false, saw_rst = false, first_time = true;
    int req_edges = 0, vars = 0;

    (void)state;
    assert_true(fd >= 0 && fd2 >= 0);
    close(fd);
    close(fd2);
    vcd_run(path);
    vcd_run(path2);
    text = slurp(path, &len);
    text2 = slurp(path2, &len2);
    /* Deterministic, and small: the 8 KiB data phase is summarised. */
    assert_int_equal(len, len2);
    assert_memory_equal(text, text2, len);
    assert_true(len < 16384);
    assert_non_null(strstr(text, "$timescale 1ns $end"));
    assert_non_null(strstr(text, "$var wire 1 A BSY $end"));
    assert_non_null(strstr(text, "$var wire 1 H REQ $end"));
    assert_non_null(strstr(text, "$var wire 16 J DB [15:0] $end"));
    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        if (!defs_done) {
            if (strncmp(line, "$var ", 5) == 0)
                vars++;
            if (strcmp(line, "$enddefinitions $end") == 0)
                defs_done = true;
            continue;
        }
        if (line[0] == '#') {
            t = strtoull(line + 1, NULL, 10);
            if (!first_time)
                assert_true(t > last);
            first_time = false;
            last = t;
        } else if (line[0] == 'b') {
            assert_non_null(strchr(line, ' '));
            assert_int_equal(strchr(line, ' ')[1], 'J');
            if (line[1] == 'x')
                saw_x = true;
        } else if (line[0] == '0' || line[0] == '1') {
            assert_true(line[1] >= 'A' && line[1] <= 'L');
            assert_int_equal(line[2], '\0');
            if (line[0] == '1' && line[1] == 'H')
                req_edges++;
            if (line[0] == '1' && line[1] == 'D')
                saw_rst = true;
        } else {
            assert_true(line[0] == '$'); /* $dumpvars / $end */
        }
    }
    assert_int_equal(vars, 12);
    assert_true(defs_done);
    assert_true(saw_x);
    assert_true(saw_rst);
    /* Handshakes: read 1 IDENTIFY + 10 CDB + DISCONNECT, IDENTIFY (in the
     * reselection), 32 of 8192 data, status, COMMAND COMPLETE = 47; write 1 +
     * 10 + 32 of 512 + status + COMMAND COMPLETE = 45. */
    assert_int_equal(req_edges, 47 + 45);
    free(text);
    free(text2);
    remove(path);
    remove(path2);
}

static void vcd_open_failures(void **state)
{
    uint8_t *store;
    pcam_sim *sim = make(0, &store);

    (void)state;
    assert_int_equal(pcam_sim_vcd_open(sim, NULL), PCAM_ERR_NULL);
    assert_int_equal(pcam_sim_vcd_open(sim, "/nonexistent-dir/x.vcd"), PCAM_ERR_NOSPACE);
    assert_int_equal(pcam_sim_vcd_close(sim), 0);
    pcam_sim_destroy(sim);
    free(store);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ring_records_the_bus_in_order),
        cmocka_unit_test(ring_overwrites_the_oldest),
        cmocka_unit_test(log_lines_are_readable),
        cmocka_unit_test(format_checks_its_arguments),
        cmocka_unit_test(one_seed_one_run),
        cmocka_unit_test(vcd_file_is_well_formed),
        cmocka_unit_test(vcd_open_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
