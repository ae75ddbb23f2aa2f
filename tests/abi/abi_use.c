/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * A program built against an installed pcam, with whatever configuration
 * its compile line gives it (tests/abi/check.sh builds it several ways).
 * It hands the library storage fenced by guard bytes and checks what the
 * library did with it:
 *
 *   abi_use ok   the views agree: pcam_bus_init() succeeds, a path inquiry
 *                answers with this program's target count, and not one
 *                guard byte changed;
 *   abi_use abi  the views differ: pcam_bus_init() returns PCAM_ERR_ABI,
 *                and no byte of the storage or of its guards changed;
 *                pcam_abi_compare() says which switch differs (printed, for
 *                check.sh to match) and the platform log said the same.
 *
 * With -DABI_USE_ASPI the same is checked for pcam_aspi_add_adapter().
 * The guard after each object is larger than the largest storage type of
 * any configuration, so that an overrun by a library built for 16 targets
 * and 256 tags lands in it instead of in other memory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam/pcam.h"
#ifdef ABI_USE_ASPI
#include "pcam/pcam_aspi.h"
#endif

#define FILL 0xA5u
#define GUARD 32768

static struct {
    unsigned char pre[64];
    pcam_bus bus;
    unsigned char post[GUARD];
} B;
static struct {
    unsigned char pre[64];
    pcam_lun luns[PCAM_BUS_LUNS(PCAM_MAX_TARGETS, 1)];
    unsigned char post[GUARD];
} L;

/* A phase-level chip on an empty bus: enough for pcam_bus_init() and a
 * path inquiry. 16 IDs, so that a narrow build drives it as 8. */
static void caps(void *sc, pcam_hal_caps *c)
{
    (void)sc;
    memset(c, 0, sizeof *c);
    c->name = "abi-stub";
    c->profile = PCAM_HAL_PHASE_LEVEL;
    c->max_targets = 16;
    c->initiator_id = 7;
    c->max_sg = 1;
    c->max_xfer = 65536;
}
static int op_sc(void *sc) { (void)sc; return 0; }
static int op_sel(void *sc, const pcam_hal_select *s) { (void)sc; (void)s; return 0; }
static int op_xfer(void *sc, const pcam_hal_xfer *x) { (void)sc; (void)x; return 0; }
static int op_mo(void *sc, const uint8_t *m, size_t n) { (void)sc; (void)m; (void)n; return 0; }
static int op_acc(void *sc, bool atn) { (void)sc; (void)atn; return 0; }
static int op_sx(void *sc, uint8_t t, const pcam_hal_xfer_params *p) { (void)sc; (void)t; (void)p; return 0; }
static int op_poll(void *sc, pcam_hal_event *ev) { (void)sc; (void)ev; return 0; }
static const pcam_hal_ops ops = {
    .get_caps = caps, .reset_chip = op_sc, .reset_bus = op_sc, .select = op_sel,
    .transfer = op_xfer, .msg_out = op_mo, .msg_in = op_sc, .msg_accept = op_acc,
    .set_atn = op_sc, .set_xfer = op_sx, .poll = op_poll,
};

static uint64_t clock_ns(void *ctx) { (void)ctx; return 0; }
static char logged[256];
static void log_line(void *ctx, pcam_log_level level, const char *line)
{
    (void)ctx;
    if (level == PCAM_LOG_ERROR && logged[0] == '\0')
        snprintf(logged, sizeof logged, "%s", line);
}

static int done_count;
static void on_done(pcam_ccb *ccb) { (void)ccb; done_count++; }

/* Bytes of [p, p+n) that are not FILL. */
static size_t changed(const void *p, size_t n)
{
    const unsigned char *c = p;
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        bad += c[i] != FILL;
    return bad;
}

#define FAIL(...)                                     \
    do {                                              \
        fprintf(stderr, "abi_use: FAIL: " __VA_ARGS__); \
        fputc('\n', stderr);                          \
        return 1;                                     \
    } while (0)

#ifdef ABI_USE_ASPI
static struct {
    unsigned char pre[64];
    pcam_aspi_adapter ad;
    pcam_aspi_req reqs[2];
    unsigned char post[GUARD];
} A;
static void a_lock(void *c) { (void)c; }
static void a_wait(void *c) { (void)c; }
static const pcam_aspi_adapter_ops aops = { .lock = a_lock, .unlock = a_lock, .wait = a_wait };

/* In the abi case the bus was refused, so the adapter gets a bus the
 * library never set up: the check must come before it is looked at. */
static int check_aspi(bool expect_ok)
{
    memset(&A, FILL, sizeof A);
    if (pcam_aspi_init(NULL) != PCAM_OK)
        FAIL("pcam_aspi_init");
    pcam_err e = pcam_aspi_add_adapter(&A.ad, &B.bus, &aops, NULL, A.reqs, 2, NULL);
    if (expect_ok) {
        if (e != PCAM_OK)
            FAIL("pcam_aspi_add_adapter: %d (%s)", e, pcam_strerror(e));
        if (changed(A.pre, sizeof A.pre) != 0 || changed(A.post, sizeof A.post) != 0)
            FAIL("pcam_aspi_add_adapter wrote outside the storage it was given");
        pcam_aspi_shutdown();
        printf("abi_use: pcam_aspi_add_adapter took the adapter, guards untouched\n");
        return 0;
    }
    if (e != PCAM_ERR_ABI)
        FAIL("pcam_aspi_add_adapter: %d (%s), expected PCAM_ERR_ABI", e, pcam_strerror(e));
    if (changed(&A, sizeof A) != 0)
        FAIL("pcam_aspi_add_adapter refused but changed %zu bytes", changed(&A, sizeof A));
    printf("abi_use: pcam_aspi_add_adapter refused too, nothing written\n");
    return 0;
}
#endif

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "ok") != 0 && strcmp(argv[1], "abi") != 0)) {
        fprintf(stderr, "usage: abi_use ok|abi\n");
        return 2;
    }
    bool expect_ok = strcmp(argv[1], "ok") == 0;
    char why[128];
    pcam_err cmp = pcam_abi_compare(why, sizeof why);
    printf("abi_use: this program: sizeof(pcam_bus) %zu, sizeof(pcam_lun) %zu, PCAM_MAX_TARGETS %d;"
           " compare: %s%s\n", sizeof(pcam_bus), sizeof(pcam_lun), PCAM_MAX_TARGETS,
           cmp == PCAM_OK ? "agree" : "differ: ", why);

    memset(&B, FILL, sizeof B);
    memset(&L, FILL, sizeof L);
    pcam_hal hal = { &ops, NULL, NULL };
    pcam_platform plat;
    memset(&plat, 0, sizeof plat);
    plat.now_ns = clock_ns;
    plat.log = log_line;
    pcam_bus_config cfg;
    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = 1;
    pcam_err e = pcam_bus_init(&B.bus, &cfg, &hal, &plat, L.luns,
                               sizeof L.luns / sizeof L.luns[0]);

    if (!expect_ok) {
        if (e != PCAM_ERR_ABI)
            FAIL("pcam_bus_init: %d (%s), expected PCAM_ERR_ABI", e, pcam_strerror(e));
        if (cmp != PCAM_ERR_ABI)
            FAIL("pcam_abi_compare agreed, yet pcam_bus_init refused");
        if (changed(&B, sizeof B) != 0 || changed(&L, sizeof L) != 0)
            FAIL("refused, but %zu bus and %zu LUN bytes (storage or guards) changed",
                 changed(&B, sizeof B), changed(&L, sizeof L));
        if (strstr(logged, why) == NULL)
            FAIL("the platform log did not say what differs: \"%s\"", logged);
        printf("abi_use: pcam_bus_init refused with PCAM_ERR_ABI (%s), nothing written\n",
               pcam_strerror(e));
        printf("abi_use: log: %s\n", logged);
#ifdef ABI_USE_ASPI
        return check_aspi(false);
#else
        return 0;
#endif
    }

    if (e != PCAM_OK)
        FAIL("pcam_bus_init: %d (%s)%s%s", e, pcam_strerror(e), logged[0] ? ": " : "", logged);
    if (cmp != PCAM_OK || why[0] != '\0')
        FAIL("pcam_abi_compare: %d \"%s\"", cmp, why);
    if (changed(B.pre, sizeof B.pre) != 0 || changed(B.post, sizeof B.post) != 0 ||
        changed(L.pre, sizeof L.pre) != 0 || changed(L.post, sizeof L.post) != 0)
        FAIL("pcam_bus_init wrote outside the storage it was given");
    pcam_ccb ccb;
    memset(&ccb, 0, sizeof ccb);
    ccb.func = PCAM_FN_PATH_INQ;
    ccb.done = on_done;
    pcam_action(&B.bus, &ccb);
    if (done_count != 1 || (ccb.status & PCAM_STATUS_MASK) != PCAM_REQ_CMP ||
        ccb.u.pathinq.max_target != PCAM_MAX_TARGETS - 1)
        FAIL("path inquiry: %d completions, status 0x%x, max_target %u", done_count,
             (unsigned)ccb.status, ccb.u.pathinq.max_target);
#ifdef ABI_USE_ASPI
    if (check_aspi(true) != 0)
        return 1;
#endif
    pcam_bus_shutdown(&B.bus);
    if (changed(B.post, sizeof B.post) != 0 || changed(L.post, sizeof L.post) != 0)
        FAIL("the bus wrote past its storage");
    printf("abi_use: views agree; the bus came up with %u targets, guards untouched\n",
           ccb.u.pathinq.max_target + 1u);
    return 0;
}
