/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * pcamctl internals shared by its source files: the run context, the
 * back-end seam, the simulated-bus topology (simspec.c), output helpers
 * (out.c) and the subcommands (cmd_*.c).
 *
 * Every subcommand talks to the bus only through the CCB API
 * (include/pcam/pcam.h) via ctl_sync()/ctl_submit()/ctl_step(); what a
 * back-end has to provide is the small ctl_backend table below, so a
 * QEMU back-end (one per chip-table entry) slots in without touching the
 * subcommands.
 */
#ifndef PCAMCTL_CTL_H
#define PCAMCTL_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "pcam/pcam.h"
#include "pcam_sim.h"
#include "simrig.h"

/* Exit statuses: sg3_utils' categories (sg3_utils(8), EXIT STATUS) for the
 * SCSI outcomes, and pcamctl's own in 42..46, which sg3_utils leaves free.
 * Documented in pcamctl.1, `pcamctl help` and README.md; tests/pcamctl
 * checks the man page lists each. */
enum {
    CTL_OK = 0,           /* done */
    CTL_EUSAGE = 1,       /* syntax error: bad arguments or a bad topology */
    CTL_ENOTREADY = 2,    /* the device is NOT READY */
    CTL_EMEDIUM = 3,      /* MEDIUM ERROR, HARDWARE ERROR or BLANK CHECK */
    CTL_EILLEGAL = 5,     /* ILLEGAL REQUEST (other than below) */
    CTL_EUA = 6,          /* UNIT ATTENTION */
    CTL_EPROTECT = 7,     /* DATA PROTECT */
    CTL_EOPCODE = 9,      /* ILLEGAL REQUEST: invalid command operation code */
    CTL_EABORTED = 11,    /* ABORTED COMMAND */
    CTL_EMISCOMPARE = 14, /* MISCOMPARE */
    CTL_EFILE = 15,       /* a local file (or standard output) could not be opened, read or written */
    CTL_ELBA = 22,        /* ILLEGAL REQUEST: LBA out of range */
    CTL_ERESV = 24,       /* status RESERVATION CONFLICT */
    CTL_EBUSY = 26,       /* status BUSY (after the core's retries) */
    CTL_ETASKFULL = 27,   /* status TASK SET FULL */
    CTL_EACA = 28,        /* status ACA ACTIVE */
    CTL_ETASKABORTED = 29,/* status TASK ABORTED */
    CTL_ETIMEOUT = 33,    /* the command timed out (or never completed) */
    CTL_ENODEV = 42,      /* pcamctl: no device at the path given */
    CTL_EBACKEND = 43,    /* pcamctl: the back-end is not available */
    CTL_ENOTCONF = 44,    /* pcamctl: a change was not confirmed (modepage --set) */
    CTL_ESCAN = 45,       /* pcamctl: the bus scan could not finish with a target */
    CTL_EEXPECT = 46,     /* pcamctl: a script's '!' line did not fail as it expected */
    CTL_ESANITY = 97,     /* a response failed sanity checks (short or malformed data) */
    CTL_ESENSE = 98,      /* CHECK CONDITION of another kind */
    CTL_EOTHER = 99       /* any other failure: the bus (parity, phases, resets), memory, QEMU */
};
/* The word --json gives for an exit status ("medium", "usage"...). */
const char *ctl_exit_kind(int rc);
/* True for the exit statuses of a command that failed on the bus or in the
 * device (a bare '!' in a script expects one of these). */
bool ctl_exit_is_scsi(int rc);

/* ---- simulated topology (simspec.c) ---- */
#define SPEC_MAX_MERR 8
#define SPEC_NAME 17
#define SPEC_PATH 256

typedef enum spec_kind { SPEC_NONE = 0, SPEC_DISK = 1, SPEC_CD = 2 } spec_kind;

typedef struct spec_target {
    spec_kind kind;
    uint64_t bytes;            /* medium size per LUN (0 for an empty CD tray) */
    uint32_t block_size;       /* 512 for disks unless bs=, 2048 for CDs */
    uint8_t luns;              /* LUNs 0..luns-1 present */
    bool size_given;
    pcam_sim_target_config tc; /* behaviour: speed, width, tags, injected faults */
    uint64_t merr[SPEC_MAX_MERR];
    uint8_t nmerr;
    char vendor[9];
    char product[SPEC_NAME];
    char file[SPEC_PATH];      /* media file (disk, luns=1), "" = memory */
    bool after_scan;           /* busy= hang= busfree= badphase= start after the scan (afterscan) */
    bool pulled;               /* off the bus once the scan is done (pulled) */
} spec_target;

typedef struct simspec {
    spec_target t[PCAM_SIM_MAX_IDS];
    uint8_t width;             /* 16 (default) or 8 */
    uint8_t initiator;         /* 7 */
    uint64_t seed;             /* 1 */
} simspec;

/* Parse a topology string (see the grammar in simspec.c and the README).
 * Returns 0, or CTL_EUSAGE with a message in err. */
int simspec_parse(const char *text, simspec *out, char *err, size_t errcap);
/* Read a topology file (comments with '#', entries separated by commas or
 * newlines) into a string; returns a malloc'd string or NULL with err set. */
char *simspec_read_file(const char *path, char *err, size_t errcap);
/* A target's behaviour for the bus scan: as given, but with the faults
 * "afterscan" holds back (busy=, hang=, busfree=, badphase=) not armed. */
pcam_sim_target_config simspec_scan_config(const spec_target *t);
/* Arm those faults on the simulated bus once its scan is done. */
void simspec_arm_after_scan(const simspec *s, pcam_sim *sim);

/* ---- QEMU drives (qemu_backend.c) ---- */
#define CTL_QEMU_MAX_DRIVES 16

#define CTL_QEMU_MAX_ARGS 32

typedef struct ctl_qdrive {
    uint8_t id, lun;
    bool cd;                   /* scsi-cd, else scsi-hd */
    bool read_only;
    char image[SPEC_PATH];     /* "" = a CD with no medium */
    bool blkdebug;             /* blkdebug between the device and its image */
    char blkdebug_conf[SPEC_PATH]; /* its [inject-error] file, "" = none (rules via hmp) */
} ctl_qdrive;

/* Parse one --qemu-drive value: ID[:LUN]:hd|cd|hd-ro[:IMAGE] (see the README).
 * Returns 0, or CTL_EUSAGE with a message in err. */
int ctl_qdrive_parse(const char *text, ctl_qdrive *out, char *err, size_t errcap);

/* ---- the run context ---- */
struct ctl;
struct pcam_qemu_chipbus;

typedef struct ctl_backend {
    const char *name;
    /* Build the bus, the devices behind it, and scan. Returns a CTL_* code
     * with a message already printed. */
    int (*open)(struct ctl *c);
    /* Hand a CCB to the core (the caller set ccb->done). */
    void (*submit)(struct ctl *c, pcam_ccb *ccb);
    /* Move the bus on by one step (an interrupt, a poll, or time passing);
     * false when nothing at all is pending. */
    bool (*step)(struct ctl *c);
    /* Back-end time in ns (simulated time on sim). */
    uint64_t (*now)(struct ctl *c);
    void (*close)(struct ctl *c);
    /* QEMU back-ends: the controller's entry in osshim/posix's chip table
     * (pcam_qemu_chip.h; NULL in a build without it), the bus's name, the
     * highest target ID on its bus and the drive IDs its QEMU model takes,
     * 0..ids-1 (the sim back-end: "sim0", 0, 0: its topology says). */
    const struct pcam_qemu_chip *chip;
    const char *bus;
    uint8_t max_target, ids;
} ctl_backend;

typedef struct ctl {
    const char *prog;
    bool json;
    bool polled;
    bool quiet;                /* ctl_err()/ctl_io_fail() print nothing (probes) */
    const char *backend_name;
    const ctl_backend *be;
    const char *spec_text;     /* as given, for messages */
    simspec spec;
    pcam_bus_config bcfg;      /* subcommands may change it before ctl_open() */
    bool scan;                 /* scan the bus in ctl_open() (default true) */
    /* trace */
    const char *vcd_path;      /* write a VCD of the bus (sim only) */
    bool vcd_with_scan;        /* start the VCD before the scan */
    bool phases;               /* print the phase log on stdout */
    /* QEMU back-end state */
    ctl_qdrive qdrives[CTL_QEMU_MAX_DRIVES];
    size_t nqdrives;
    const char *qemu_args[CTL_QEMU_MAX_ARGS + 1]; /* --qemu-arg, NULL-terminated */
    size_t nqargs;
    bool qemu_monitor;         /* a QMP monitor for the hmp command */
    struct pcam_qemu_chipbus *qe;  /* the bus on QEMU while open */
    /* the command line */
    const char *cmd;           /* the subcommand running (its usage line on errors) */
    const char *json_cmd;      /* the command a line named, for the JSON envelope */
    char last_err[400];        /* the last message ctl_err printed (--json error object) */
    int progress;              /* read/write progress: -1 never, 0 on a terminal, 1 always */
    bool script;               /* script mode: one bus across the commands */
    bool stdout_failed;        /* a failed write to stdout was already said */
    bool stdin_script;         /* the script comes from standard input (cmd -s may not read it) */
    bool yes;                  /* --yes: confirm changes without asking */
    uint16_t scan_trouble;     /* targets the last scan could not finish with (not in the table) */
    char scan_why[PCAM_MAX_TARGETS][72]; /* why, for each of them */
    /* sim state */
    bool open;
    simrig rig;
    void *media[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
    size_t media_len[PCAM_SIM_MAX_IDS][PCAM_SIM_LUNS];
} ctl;

/* Back-ends (backend.c; qemu-esp and qemu-mpt in qemu_backend.c). */
extern const ctl_backend ctl_qemu_esp_backend;
extern const ctl_backend ctl_qemu_mpt_backend;
/* True when the back-end is the simulated bus (trace and the simulated
 * target's side of negotiate need it). */
bool ctl_is_sim(const ctl *c);
const ctl_backend *ctl_find_backend(const char *name);
/* After a scan: warn about what went wrong and set scan_trouble/scan_why to
 * the targets the scan could not finish with, from the event ring and the
 * counters since `before` (one per target; NULL for a new bus). */
void ctl_scan_review(ctl *c, const pcam_counters *before);
int ctl_open(ctl *c);
void ctl_close(ctl *c);
pcam_bus *ctl_bus(ctl *c);

/* Run one CCB to completion; returns its status (0xFFFFFFFF if it never
 * completed within limit_ms of back-end time). ccb->done is set here. */
uint32_t ctl_sync(ctl *c, pcam_ccb *ccb, uint32_t limit_ms);
void ctl_submit(ctl *c, pcam_ccb *ccb);
bool ctl_step(ctl *c);
uint64_t ctl_now(ctl *c);

/* A path "T" or "T:L". Returns 0 or CTL_EUSAGE (message printed). */
int ctl_parse_path(ctl *c, const char *s, uint8_t *target, uint8_t *lun, bool allow_lun);
/* Fails with CTL_ENODEV (message printed) unless a LU is at target:lun. */
int ctl_need_device(ctl *c, uint8_t target, uint8_t lun, pcam_dev *dev);
/* Parse an unsigned number: decimal, or hex after 0x. A leading zero is
 * decimal ("0100" is 100): never octal. */
bool ctl_parse_u64(const char *s, uint64_t *out);
/* A byte count as sg3_utils takes it: a number (decimal, or hex after 0x),
 * decimal with a suffix k, K, KiB, m, M, MiB (powers of 1024) or KB, MB
 * (powers of 1000): "1k" is 1024. */
bool ctl_parse_size(const char *s, uint64_t *out);
/* The highest target ID and LUN a path may name on this back-end and bus. */
unsigned ctl_max_target(const ctl *c);
/* The back-end's name for its bus, "sim0", "esp0" or "mpt0". */
const char *ctl_bus_name(const ctl *c);

/* SCSI I/O helper: a CCB with a sense buffer. */
typedef struct ctl_io {
    pcam_ccb ccb;
    uint8_t sense[64];
    uint32_t status;
} ctl_io;
void ctl_io_init(ctl_io *io, uint8_t target, uint8_t lun, const uint8_t *cdb, int cdb_len,
                 pcam_dir dir, void *data, uint32_t len);
uint32_t ctl_io_run(ctl *c, ctl_io *io);
/* The exit status a failed I/O gives: its sense key, SCSI status or CAM
 * status in sg3_utils' categories. */
int ctl_io_exit(const ctl_io *io);
/* What a CAM status (0xFFFFFFFF: never completed) means, as a sentence
 * saying what happened on the bus and what the user can do. */
const char *ctl_status_sentence(uint32_t st);
/* Describe a failed I/O (status, SCSI status, decoded sense) into buf. */
void ctl_io_describe(const ctl_io *io, char *buf, size_t cap);
/* Print "pcamctl: WHAT failed: DESCRIPTION" on stderr and, with --json, an
 * error object on stdout. Returns the exit status of the failure (ctl_io_exit). */
int ctl_io_fail(ctl *c, const char *what, const ctl_io *io);
/* What a transfer that failed part-way kept (read: the good blocks saved). */
typedef struct ctl_partial {
    bool valid;
    uint64_t good_blocks;      /* blocks transferred and kept before the error */
    uint64_t error_lba;        /* the first block that failed */
    const char *file;
} ctl_partial;
/* ctl_io_fail with the partial transfer in the --json error object. */
int ctl_io_fail_at(ctl *c, const char *what, const ctl_io *io, const ctl_partial *part);

/* ---- output (out.c) ---- */
int ctl_err(ctl *c, int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;
/* A usage error of the running subcommand: the message, its usage line and
 * a pointer to `pcamctl help CMD`. Returns CTL_EUSAGE. */
int ctl_usage(ctl *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* Print a warning on stderr (not an error: the exit status is unchanged). */
void ctl_warn(ctl *c, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* How many top-level JSON documents have been written. */
unsigned j_docs(void);
/* After a command (or a script line) ended with rc: write its JSON
 * documents with the envelope (command, ok, and on a failure exit_status,
 * kind, error), or the error object alone when it wrote none and no
 * document was written since docs_before. Nothing without --json. */
void ctl_json_finish(ctl *c, int rc, unsigned docs_before);
/* The JSON error object for a failure that printed none: exit status, its
 * kind and the last error message. */
void ctl_json_error(ctl *c, int rc);
void j_i64(const char *key, int64_t v);
/* A small streaming JSON writer on stdout. */
void j_obj(const char *key);
void j_end_obj(void);
void j_arr(const char *key);
void j_end_arr(void);
void j_str(const char *key, const char *v);
void j_u64(const char *key, uint64_t v);
void j_bool(const char *key, bool v);
void j_null(const char *key);
void j_done(void);   /* newline after the top-level value */
/* A whole JSON object written elsewhere (pcambench's result line), as one
 * document of the running command. */
void j_raw_doc(const char *doc);
/* Sense bytes as a JSON object under key. */
void j_sense(const char *key, const uint8_t *sense, size_t len);
void ctl_hexdump(const uint8_t *b, size_t n);
const char *ctl_event_name(uint16_t code);
/* Drain the event ring, printing it (text) or as a JSON array "events". */
void ctl_print_events(ctl *c);

/* ---- the command table (help.c) ---- */
typedef struct ctl_cmd {
    const char *name;
    int (*fn)(ctl *, int, char **);
    const char *usage;   /* after "pcamctl " */
    const char *summary;
    const char *valopts; /* options taking a value, " "-separated with a space at each end */
    const char *flags;   /* options without one, the same way */
    bool own_args;       /* the command checks its options itself (trace, bench, cmd) */
} ctl_cmd;
const ctl_cmd *ctl_find_cmd(const char *name);
void ctl_print_help(FILE *f);
int ctl_cmd_help(ctl *c, const char *name);
extern const char ctl_version[];

/* ---- subcommands ---- */
int cmd_devlist(ctl *c, int argc, char **argv);
int cmd_inquiry(ctl *c, int argc, char **argv);
int cmd_readcap(ctl *c, int argc, char **argv);
int cmd_tur(ctl *c, int argc, char **argv);
int cmd_read(ctl *c, int argc, char **argv);
int cmd_write(ctl *c, int argc, char **argv);
int cmd_negotiate(ctl *c, int argc, char **argv);
int cmd_tags(ctl *c, int argc, char **argv);
int cmd_reset(ctl *c, int argc, char **argv);
int cmd_sense(ctl *c, int argc, char **argv);
int cmd_trace(ctl *c, int argc, char **argv);
int cmd_bench(ctl *c, int argc, char **argv);
int cmd_cmd(ctl *c, int argc, char **argv);
int cmd_reportluns(ctl *c, int argc, char **argv);
int cmd_modepage(ctl *c, int argc, char **argv);
int cmd_start(ctl *c, int argc, char **argv);
int cmd_stop(ctl *c, int argc, char **argv);
int cmd_eject(ctl *c, int argc, char **argv);
int cmd_load(ctl *c, int argc, char **argv);
int cmd_rescan(ctl *c, int argc, char **argv);
int cmd_requests(ctl *c, int argc, char **argv);
int cmd_verify(ctl *c, int argc, char **argv);
int cmd_script(ctl *c, int argc, char **argv);
int cmd_hmp(ctl *c, int argc, char **argv);
int cmd_help(ctl *c, int argc, char **argv);
int cmd_vpd(ctl *c, int argc, char **argv);
/* A standard INQUIRY and VPD pages, decoded (vpd.c; inquiry calls them). */
int ctl_std_inquiry(ctl *c, uint8_t t, uint8_t l, bool hex);
int ctl_vpd_inquiry(ctl *c, uint8_t t, uint8_t l, uint8_t page, bool hex);
/* Whether commands to t:l really go tagged: the target's current agreement
 * and the LU's INQUIRY CmdQue; why not in *why. */
bool ctl_lu_tagged(ctl *c, uint8_t t, uint8_t l, const char **why);
/* Commands of the form "NAME PATH" with nothing else: parse, open, need the device. */
int ctl_one_path(ctl *c, int argc, char **argv, uint8_t *t, uint8_t *l);
/* Hex bytes from argv ("12 00 00 00 24 00" or "120000002400"). Returns the count or -1 (message printed). */
int ctl_parse_hex(ctl *c, int argc, char **argv, uint8_t *out, size_t cap);
/* Run a subcommand by name (trace uses it); -1 if the name is unknown. */
int ctl_dispatch(ctl *c, const char *name, int argc, char **argv);

/* "0x0C 50.0 ns offset 16 wide 40.0 MB/s", or "asynchronous narrow". */
void ctl_fmt_xfer(const pcam_xfer_settings *x, char *buf, size_t cap);

/* Capacity of a LU through READ CAPACITY (10, then 16 if needed). */
int ctl_capacity(ctl *c, uint8_t target, uint8_t lun, uint64_t *blocks, uint32_t *block_size);

#endif /* PCAMCTL_CTL_H */
