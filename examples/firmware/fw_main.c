/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_main.c: the shared bare-metal firmware. It finds the SCSI chips PCI
 * enumeration placed, attaches hal/esp (AM53C974) or hal/sym (LSI53C895A)
 * to each with static storage, and runs pcam through its public API as a
 * vendor's firmware would: scan, a written pattern read back, an injected
 * medium error, a bus reset under load, polled and then interrupt mode,
 * and a short timed run. Every result goes out on the UART as one "PROOF"
 * or "FIGURE" line for the host test to check; the exit status is 0 only
 * if every proof passed. A watchdog bounds every wait, so a firmware that
 * cannot finish says why and exits instead of hanging.
 *
 * What it must never do: reach a chip register itself (that is hal/esp and
 * hal/sym through fw_platform.c), or contain anything board-specific
 * (fw_board.h is the whole board interface).
 *
 * Disk layout the host test expects (tests/firmware/run.sh):
 *   target 0: the data disk; the pattern goes to LBA_POLLED (polled mode)
 *             and LBA_IRQ (interrupt mode), PATTERN_BLOCKS blocks each;
 *   target 1: optional, a blkdebug disk whose sector FAULT_LBA fails with
 *             ENODATA on reads (AM53C974 boots) or writes (LSI boots).
 */
#include "fw.h"

#include "pcam/pcam_esp.h"
#include "pcam/pcam_sense.h"
#include "pcam/pcam_sym.h"

#define BLOCK 512u
#define XFER 4096u
#define PATTERN_BLOCKS 64u /* 32 KiB in 4 KiB commands */
#define LBA_POLLED 1000u
#define LBA_IRQ 2000u
#define FAULT_LBA 8u
#define DEPTH 16u
#define BENCH_READS 256u
#define WATCHDOG_MS 20000u /* virtual time; each wait gets this much */

/* ---- pcam's storage: all static, sized for a narrow or wide bus ---- */
#define LUNS_PER_TARGET 1
static pcam_bus bus;
static pcam_lun luns[PCAM_BUS_LUNS(PCAM_MAX_TARGETS, LUNS_PER_TARGET)];
static pcam_ccb ccbs[DEPTH];
static union {
    pcam_esp esp;
    pcam_sym sym;
} chip_sc;
/* hal/sym's coherent DMA area (script, rings, command blocks). */
static uint8_t sym_dma[PCAM_SYM_DMA_BYTES] __attribute__((aligned(4096)));
static uint8_t buf[DEPTH][XFER] __attribute__((aligned(64)));
static uint8_t sense[DEPTH][32];

static pcam_hal hal;
static pcam_platform plat;
static const char *chip_name;
static int failures;
static bool irq_mode;
static volatile unsigned irq_count;
static volatile unsigned done_count[DEPTH];
static volatile unsigned completions;
uint64_t fw_pcam_insns;

/* Every core entry point goes through here: it is where the instructions
 * spent inside pcam (core and back-end) are counted. In interrupt mode the
 * caller holds the "lock": interrupts are off. */
#define PCAM_CALL(call)                                   \
    do {                                                  \
        uint64_t t0_ = board_instret();                   \
        call;                                             \
        fw_pcam_insns += (uint32_t)(board_instret() - t0_); \
    } while (0)

static void proof(bool ok, const char *what, const char *detail)
{
    fw_printf("PROOF %s %s %s: %s\n", ok ? "ok" : "FAIL", chip_name, what, detail);
    if (!ok)
        failures++;
}

static void fatal(const char *why) __attribute__((noreturn));
static void fatal(const char *why)
{
    fw_printf("FATAL %s: %s\nRESULT FAIL\n", chip_name != NULL ? chip_name : "firmware", why);
    board_exit(3);
}

static void isr(void)
{
    irq_count++;
    PCAM_CALL(pcam_bus_intr(&bus));
}

static void on_done(pcam_ccb *ccb)
{
    unsigned i = (unsigned)(uintptr_t)ccb->user;

    if (i < DEPTH)
        done_count[i]++;
    completions++;
}

/* Serve the bus until `target` completions have been counted: polled, or
 * sleeping until the next interrupt or core deadline. The watchdog turns a
 * wait that never ends into a message and a non-zero exit. */
static void serve(unsigned target, const char *what)
{
    uint64_t limit = fw_now_ns() + (uint64_t)WATCHDOG_MS * 1000000u;

    for (;;) {
        if (irq_mode)
            board_irq_enable(false);
        if (completions >= target)
            break;
        uint64_t now = fw_now_ns();
        if (now > limit) {
            fw_printf("watchdog: %s: %u of %u commands completed after %u ms\n", what,
                      completions, target, WATCHDOG_MS);
            for (unsigned i = 0; i < DEPTH; i++)
                if (ccbs[i].status == PCAM_REQ_INPROG && ccbs[i].done != NULL)
                    fw_printf("watchdog: CCB %u (function %u, target %u) still in the core\n", i,
                              ccbs[i].func, ccbs[i].target);
            fatal("a wait did not end (watchdog)");
        }
        uint64_t dl;
        if (!irq_mode) {
            bool busy;
            PCAM_CALL(busy = pcam_bus_poll(&bus));
            (void)busy;
            continue;
        }
        PCAM_CALL(dl = pcam_bus_next_deadline(&bus));
        if (dl <= now) {
            PCAM_CALL(pcam_bus_tick(&bus));
            board_irq_enable(true);
            continue;
        }
        if (dl > limit)
            dl = limit;
        board_wait(fw_ns_to_ticks(dl) + 1u);
        board_irq_enable(true);
    }
    if (irq_mode)
        board_irq_enable(true);
}

static void submit(pcam_ccb *c)
{
    if (irq_mode)
        board_irq_enable(false);
    PCAM_CALL(pcam_action(&bus, c));
    if (irq_mode)
        board_irq_enable(true);
}

static void prep(unsigned i, uint8_t func, uint8_t target)
{
    pcam_ccb *c = &ccbs[i];

    memset(c, 0, sizeof *c);
    c->func = func;
    c->target = target;
    c->done = on_done;
    c->user = (void *)(uintptr_t)i;
    done_count[i] = 0;
}

/* A READ(10) or WRITE(10) of `blocks` at `lba` into buf[i]. */
static void prep_rw(unsigned i, uint8_t target, bool write, uint32_t lba, unsigned blocks, bool tagged)
{
    pcam_ccb *c;

    prep(i, PCAM_FN_SCSI_IO, target);
    c = &ccbs[i];
    c->u.io.cdb[0] = write ? 0x2A : 0x28;
    c->u.io.cdb[2] = (uint8_t)(lba >> 24);
    c->u.io.cdb[3] = (uint8_t)(lba >> 16);
    c->u.io.cdb[4] = (uint8_t)(lba >> 8);
    c->u.io.cdb[5] = (uint8_t)lba;
    c->u.io.cdb[7] = (uint8_t)(blocks >> 8);
    c->u.io.cdb[8] = (uint8_t)blocks;
    c->u.io.cdb_len = 10;
    c->u.io.dir = write ? PCAM_DIR_OUT : PCAM_DIR_IN;
    c->u.io.data = buf[i];
    c->u.io.data_len = blocks * BLOCK;
    c->u.io.sense = sense[i];
    c->u.io.sense_len = sizeof sense[i];
    c->u.io.retries = 4;
    if (tagged) {
        c->flags |= PCAM_CCB_TAGGED;
        c->u.io.tag_action = PCAM_TAG_SIMPLE;
    }
}

/* Run the prepared CCBs 0..n-1 together and wait for all of them. */
static void run(unsigned n, const char *what)
{
    completions = 0;
    for (unsigned i = 0; i < n; i++)
        submit(&ccbs[i]);
    serve(n, what);
}

static uint32_t status(unsigned i)
{
    return ccbs[i].status & PCAM_STATUS_MASK;
}

/* The pattern the host checks in the image: block n starts with n
 * (big-endian), then "PCAM", then (n * 7 + j * 3 + seed) mod 256. */
static void pattern(uint8_t *p, uint32_t lba, uint8_t seed)
{
    for (unsigned j = 0; j < BLOCK; j++)
        p[j] = (uint8_t)(lba * 7u + j * 3u + seed);
    p[0] = (uint8_t)(lba >> 24);
    p[1] = (uint8_t)(lba >> 16);
    p[2] = (uint8_t)(lba >> 8);
    p[3] = (uint8_t)lba;
    memcpy(p + 4, "PCAM", 4);
}

/* ---- the proofs ---- */

/* Returns a mask of the targets found (bit 0: a 512-byte-block disk at 0). */
static unsigned scan(void)
{
    char line[96];
    unsigned found = 0;

    prep(0, PCAM_FN_SCAN_BUS, 0);
    run(1, "scan");
    fw_printf("scan: %s\n", pcam_status_name(ccbs[0].status));
    for (uint8_t t = 0; t < PCAM_MAX_TARGETS; t++) {
        prep(0, PCAM_FN_GET_DEV, t);
        run(1, "get dev");
        if (status(0) != PCAM_REQ_CMP || !ccbs[0].u.dev.present)
            continue;
        const uint8_t *q = ccbs[0].u.dev.inquiry;
        memcpy(line, q + 8, 28);
        line[28] = '\0';
        uint8_t ttype = ccbs[0].u.dev.type;
        prep(0, PCAM_FN_GET_TRAN, t);
        ccbs[0].u.tran.type = PCAM_TRAN_CURRENT;
        run(1, "get tran");
        pcam_xfer_settings x = ccbs[0].u.tran.settings;
        /* READ CAPACITY(10): last LBA and block length, big-endian. */
        prep_rw(0, t, false, 0, 0, false);
        memset(ccbs[0].u.io.cdb, 0, sizeof ccbs[0].u.io.cdb);
        ccbs[0].u.io.cdb[0] = 0x25;
        ccbs[0].u.io.data_len = 8;
        run(1, "read capacity");
        const uint8_t *r = buf[0];
        uint32_t last = (uint32_t)r[0] << 24 | (uint32_t)r[1] << 16 | (uint32_t)r[2] << 8 | r[3];
        uint32_t bl = (uint32_t)r[4] << 24 | (uint32_t)r[5] << 16 | (uint32_t)r[6] << 8 | r[7];
        fw_printf("target %u: type %u \"%s\" %u blocks of %u; agreement period %u offset %u "
                  "width %u tagged %u (%s)\n",
                  t, ttype, line, (unsigned)(last + 1u), (unsigned)bl, x.period, x.offset,
                  8u << x.width, x.tagged, pcam_status_name(ccbs[0].status));
        if (status(0) == PCAM_REQ_CMP && bl == BLOCK)
            found |= 1u << t;
    }
    proof((found & 1) != 0, "scan", (found & 1) ? "target 0 is a disk with 512-byte blocks"
                                               : "no disk at target 0");
    return found;
}

/* Write PATTERN_BLOCKS at lba in 4 KiB commands, read them back, compare. */
static void write_read(uint32_t lba, uint8_t seed, const char *what)
{
    const unsigned per = XFER / BLOCK, cmds = PATTERN_BLOCKS / per;
    unsigned bad = 0, errs = 0;

    for (unsigned c = 0; c < cmds; c += DEPTH / 2) {
        unsigned n = cmds - c < DEPTH / 2 ? cmds - c : DEPTH / 2;
        for (unsigned i = 0; i < n; i++) {
            prep_rw(i, 0, true, lba + (c + i) * per, per, false);
            for (unsigned b = 0; b < per; b++)
                pattern(buf[i] + b * BLOCK, lba + (c + i) * per + b, seed);
        }
        run(n, "write");
        for (unsigned i = 0; i < n; i++)
            errs += status(i) != PCAM_REQ_CMP || ccbs[i].u.io.resid != 0;
        for (unsigned i = 0; i < n; i++) {
            prep_rw(i, 0, false, lba + (c + i) * per, per, false);
            memset(buf[i], 0xEE, XFER);
        }
        run(n, "read back");
        for (unsigned i = 0; i < n; i++) {
            uint8_t want[BLOCK];
            errs += status(i) != PCAM_REQ_CMP || ccbs[i].u.io.resid != 0;
            for (unsigned b = 0; b < per; b++) {
                pattern(want, lba + (c + i) * per + b, seed);
                bad += memcmp(want, buf[i] + b * BLOCK, BLOCK) != 0;
            }
        }
    }
    fw_printf("wrote and read back %u blocks at LBA %u: %u command errors, %u blocks differ\n",
              PATTERN_BLOCKS, (unsigned)lba, errs, bad);
    proof(errs == 0 && bad == 0, what,
          errs == 0 && bad == 0 ? "pattern written and read back equal" : "errors or differences");
}

/* The blkdebug disk at target 1 fails FAULT_LBA with ENODATA: the command
 * must end in CHECK CONDITION with autosense MEDIUM ERROR 3/11/00. */
static void medium_error(bool on_write)
{
    pcam_sense s;

    prep_rw(0, 1, on_write, FAULT_LBA, 1, false);
    ccbs[0].u.io.retries = 0;
    ccbs[0].flags |= PCAM_CCB_NO_RECOVERY;
    if (on_write)
        pattern(buf[0], FAULT_LBA, 0x33);
    run(1, "medium error");
    bool sns = (ccbs[0].status & PCAM_AUTOSNS_VALID) != 0 &&
               pcam_sense_decode(sense[0], sizeof sense[0] - ccbs[0].u.io.sense_resid, &s) == PCAM_OK;
    fw_printf("%s of LBA %u on target 1: %s, SCSI status 0x%02x, sense %x/%02x/%02x\n",
              on_write ? "WRITE" : "READ", FAULT_LBA, pcam_status_name(ccbs[0].status),
              ccbs[0].u.io.scsi_status, sns ? s.key : 0xF, sns ? s.asc : 0xFF, sns ? s.ascq : 0xFF);
    bool ok = status(0) == PCAM_SCSI_STATUS_ERROR && ccbs[0].u.io.scsi_status == 0x02 && sns &&
              s.key == PCAM_SK_MEDIUM_ERROR && s.asc == 0x11 && s.ascq == 0x00;
    proof(ok, on_write ? "medium-error-write" : "medium-error-read",
          ok ? "CHECK CONDITION, sense MEDIUM ERROR 3/11/00 decoded" : "wrong outcome");
}

/* DEPTH tagged READs at once; the LSI's SCRIPTS must hold them all. */
static void tagged(void)
{
    pcam_sym_stats st;

    for (unsigned i = 0; i < DEPTH; i++)
        prep_rw(i, 0, false, LBA_POLLED + (i % 8) * 8, XFER / BLOCK, true);
    run(DEPTH, "tagged reads");
    unsigned ok = 0;
    for (unsigned i = 0; i < DEPTH; i++)
        ok += status(i) == PCAM_REQ_CMP;
    pcam_sym_get_stats(&chip_sc.sym, &st);
    fw_printf("%u tagged READs: %u completed, chip held up to %u at once\n", DEPTH, ok,
              (unsigned)st.max_outstanding);
    bool good = ok == DEPTH && st.max_outstanding >= 4;
    proof(good, "tagged", good ? "several tagged commands were outstanding at once"
                               : "a READ failed, or fewer than 4 were outstanding at once");
}

/* A bus reset while READs are queued and running: each CCB completes
 * exactly once (whatever its status), and the disk reads again after. */
static void bus_reset(bool tags)
{
    const unsigned n = 8;
    unsigned once = 0, cmp = 0;

    completions = 0;
    for (unsigned i = 0; i < n; i++) {
        prep_rw(i, 0, false, LBA_POLLED + i * 8, XFER / BLOCK, tags);
        submit(&ccbs[i]);
    }
    prep(n, PCAM_FN_RESET_BUS, 0);
    submit(&ccbs[n]);
    serve(n + 1, "bus reset");
    /* Let anything that would complete twice show itself. */
    uint64_t settle = fw_now_ns() + 50000000u;
    while (fw_now_ns() < settle)
        serve(n + 1, "bus reset settle");
    for (unsigned i = 0; i <= n; i++) {
        once += done_count[i] == 1;
        cmp += i < n && status(i) == PCAM_REQ_CMP;
    }
    fw_printf("bus reset under %u READs: reset %s; %u READs done, %u of %u CCBs completed exactly "
              "once, %u completions in all\n",
              n, pcam_status_name(ccbs[n].status), cmp, once, n + 1, completions);
    bool ok = once == n + 1 && completions == n + 1 && status(n) == PCAM_REQ_CMP;
    prep_rw(0, 0, false, LBA_POLLED, XFER / BLOCK, false);
    run(1, "read after reset");
    ok = ok && status(0) == PCAM_REQ_CMP;
    proof(ok, "bus-reset", ok ? "every CCB completed exactly once, the disk reads after"
                              : "a CCB was lost, completed twice, or the disk did not come back");
}

/* BENCH_READS 4 KiB READs of target 0 at depth 1 and DEPTH: reads per
 * second of board time and instructions inside pcam per READ. */
static void bench(bool tags)
{
    static const unsigned depths[2] = {1, DEPTH};

    for (unsigned k = 0; k < 2; k++) {
        unsigned depth = depths[k], issued = 0, bad = 0;
        uint64_t t0 = fw_now_ns();
        fw_pcam_insns = 0;
        fw_backend_insns = 0;
        completions = 0;
        for (; issued < depth; issued++) {
            prep_rw(issued, 0, false, LBA_POLLED + (issued % 8) * 8, XFER / BLOCK, tags);
            submit(&ccbs[issued]);
        }
        /* Resubmit each CCB as it completes until BENCH_READS were issued.
         * Count the completions handled here, not those the ISR counted:
         * a resubmitted READ may complete before the next wait starts. */
        for (unsigned handled = 0; handled < BENCH_READS;) {
            serve(handled + 1, "bench");
            for (unsigned i = 0; i < depth; i++) {
                if (done_count[i] == 0)
                    continue;
                handled++;
                bad += status(i) != PCAM_REQ_CMP;
                done_count[i] = 0;
                if (issued < BENCH_READS) {
                    prep_rw(i, 0, false, LBA_POLLED + (issued % 8) * 8, XFER / BLOCK, tags);
                    issued++;
                    submit(&ccbs[i]);
                }
            }
        }
        uint64_t ns = fw_now_ns() - t0;
        uint64_t per_s = fw_divmod((uint64_t)BENCH_READS * 1000000000u, ns != 0 ? ns : 1, NULL);
        uint64_t ipc = fw_divmod(fw_pcam_insns * board_info.insn_mul, BENCH_READS, NULL);
        uint64_t be = fw_divmod(fw_backend_insns * board_info.insn_mul, BENCH_READS, NULL);
        fw_printf("FIGURE %s %s depth %u: %u reads/s, %u pcam instructions/read (%s), %u errors",
                  chip_name, irq_mode ? "irq" : "polled", depth, (unsigned)per_s, (unsigned)ipc,
                  board_info.counter, bad);
        /* The back-end's share where it can be told apart: the untagged
         * run is the AM53C974's, a phase-level back-end (fw_meter.c). */
        if (!tags)
            fw_printf("; back-end ops %u, core %u", (unsigned)be, (unsigned)(ipc - be));
        fw_printf("\n");
        if (bad != 0)
            proof(false, "bench", "READs failed");
    }
}

/* ---- one chip, both modes ---- */

static bool attach(const fw_pci_fn *f, bool is_sym)
{
    pcam_err e;

    fw_platform_get(&plat);
    if (!is_sym) {
        pcam_esp_config ec;
        memset(&ec, 0, sizeof ec);
        ec.chip = PCAM_ESP_AUTO;
        ec.base = f->bar_cpu[0];
        ec.stride = 4;
        ec.clock_khz = 40000;
        ec.initiator_id = 7;
        ec.use_dma = true;
        /* QEMU's model (subsystem vendor 1AF4) takes SELECT WITH ATN3 as a
         * no-op: a fact of the model, not of the board. */
        if ((board_pci_cfg_read(f->dev, f->fn, 0x2C) & 0xFFFFu) == 0x1AF4u)
            ec.flags |= PCAM_ESP_F_NO_SELATN3;
        e = pcam_esp_attach(&chip_sc.esp, &ec, &plat, &hal);
        if (e == PCAM_OK)
            fw_meter_wrap(&hal);
    } else {
        pcam_sym_config sc;
        memset(sym_dma, 0, sizeof sym_dma);
        memset(&sc, 0, sizeof sc);
        sc.base = f->bar_cpu[1]; /* the memory BAR */
        sc.pci_device = f->device;
        sc.pci_revision = f->revision;
        sc.initiator_id = 7;
        sc.dma_va = sym_dma;
        sc.dma_bus = board_dma_addr(sym_dma);
        sc.dma_len = sizeof sym_dma;
        e = pcam_sym_attach(&chip_sc.sym, &sc, &plat, &hal);
    }
    if (e != PCAM_OK) {
        fw_printf("%s attach: %s\n", chip_name, pcam_strerror(e));
        return false;
    }
    return true;
}

static bool bus_up(bool polled)
{
    pcam_bus_config cfg;
    pcam_err e;

    pcam_bus_config_defaults(&cfg);
    cfg.luns_per_target = LUNS_PER_TARGET;
    cfg.polled = polled;
    cfg.reset_settle_ms = 250; /* emulated disks settle at once; keeps the boot short */
    irq_mode = !polled;
    PCAM_CALL(e = pcam_bus_init(&bus, &cfg, &hal, &plat, luns, sizeof luns / sizeof luns[0]));
    if (e != PCAM_OK)
        fw_printf("%s pcam_bus_init: %s\n", chip_name, pcam_strerror(e));
    return e == PCAM_OK;
}

static void bus_down(bool is_sym)
{
    if (irq_mode)
        board_irq_enable(false);
    PCAM_CALL(pcam_bus_shutdown(&bus));
    if (is_sym)
        pcam_sym_stop(&chip_sc.sym);
    irq_mode = false;
}

static void run_chip(const fw_pci_fn *f, bool is_sym)
{
    chip_name = is_sym ? "lsi53c895a" : "am53c974";
    fw_printf("== %s at 00:%02u.%u, registers at 0x%lx\n", chip_name, f->dev, f->fn,
              (unsigned long)f->bar_cpu[is_sym ? 1 : 0]);

    /* Polled mode: no interrupt, the loop drives the bus. */
    if (!attach(f, is_sym) || !bus_up(true)) {
        proof(false, "attach", "the back-end or the bus did not come up");
        return;
    }
    unsigned found = scan();
    if (found & 1u) {
        write_read(LBA_POLLED, 0x11, "pattern-polled");
        if (found & 2u)
            medium_error(is_sym); /* reads on the LSI model lose their status */
        if (is_sym)
            tagged();
        bus_reset(is_sym);
        bench(is_sym);
    }
    bus_down(is_sym);

    /* Interrupt mode: the chip's INTx through the board's interrupt
     * controller; the loop only sleeps and runs the core's timers. */
    if (!board_irq_attach(f->dev, f->fn)) {
        proof(false, "irq", "the board could not route the interrupt");
        return;
    }
    board_irq_handler = isr;
    irq_count = 0;
    if (!attach(f, is_sym) || !bus_up(false)) {
        proof(false, "attach-irq", "the back-end or the bus did not come up");
        return;
    }
    board_irq_enable(true);
    if (scan() & 1u) {
        write_read(LBA_IRQ, 0x22, "pattern-irq");
        bench(is_sym);
    }
    fw_printf("interrupts taken: %u\n", irq_count);
    proof(irq_count > 0, "irq", irq_count > 0 ? "interrupt mode ran on the chip's INTx"
                                                : "no interrupt was taken");
    bus_down(is_sym);
    board_irq_handler = NULL;
}

void fw_main(void)
{
    board_init();
    fw_printf("\npcam firmware on %s (%s-endian), no OS\n", board_info.name,
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
              "big"
#else
              "little"
#endif
    );
    fw_printf("FIGURE storage: pcam_bus %u + %u LUN slots x %u + %u CCBs x %u bytes; "
              "hal/esp %u, hal/sym %u + %u DMA bytes\n",
              (unsigned)sizeof bus, (unsigned)(sizeof luns / sizeof luns[0]), (unsigned)sizeof luns[0],
              DEPTH, (unsigned)sizeof ccbs[0], (unsigned)sizeof(pcam_esp), (unsigned)sizeof(pcam_sym),
              (unsigned)sizeof sym_dma);
    fw_pci_enumerate();

    const fw_pci_fn *esp = fw_pci_find(0x1022, 0x2020, 0);
    const fw_pci_fn *sym = fw_pci_find(0x1000, 0x0012, 0);
    if (esp == NULL && sym == NULL)
        fatal("no SCSI controller on PCI (looked for AM53C974 1022:2020 and LSI53C895A 1000:0012)");
    if (esp != NULL)
        run_chip(esp, false);
    if (sym != NULL)
        run_chip(sym, true);
    chip_name = NULL;
    if (failures != 0) {
        fw_printf("RESULT FAIL (%d proofs failed)\n", failures);
        board_exit(1);
    }
    fw_printf("RESULT PASS\n");
    board_exit(0);
}
