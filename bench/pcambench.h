/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The benchmark as a function, so pcamctl's "bench" subcommand runs the
 * same code as the pcambench program (compiled with PCAMBENCH_NO_MAIN).
 */
#ifndef PCAMBENCH_H
#define PCAMBENCH_H

#include <stdbool.h>
#include <stdint.h>

/* Parse pcambench's options from argv[1..argc-1], run, print the figures.
 * name is the program name for messages. Returns the exit status: 0, 1 if
 * a command failed or the bus could not be built, 2 for bad options. */
int pcambench_main(int argc, char **argv, const char *name);

/* The --qemu mode (pcambench_qemu.c): random reads over a QEMU controller,
 * the chip a parameter (--chip; --qemu-sym is --chip lsi53c895a).
 * pcambench_main() hands over to it when --qemu or --qemu-sym is given. */
int pcambench_qemu_main(int argc, char **argv, const char *name);

/* The disks' mechanism (--disk): hal/sim's 1995 disk and CD-ROM timings,
 * and two variants of the disk (pcambench.c set_timing). */
enum pcambench_disk {
    PCAMBENCH_DISK_ULTRA2 = 0, /* the 1995 disk streaming 25 MB/s off the media (the default) */
    PCAMBENCH_DISK_1995,       /* hal/sim's disk as it is (pcam_simlu_default_timing) */
    PCAMBENCH_DISK_FAST,       /* short seeks and rotation: the bus is the bottleneck */
    PCAMBENCH_DISK_CDROM,      /* hal/sim's quad-speed CD-ROM (pcam_simlu_cdrom_timing) */
    PCAMBENCH_DISK_COUNT
};
const char *pcambench_disk_name(enum pcambench_disk d);
/* The model named s, or -1. */
int pcambench_disk_parse(const char *s);

/* One run of the fairness sweep: the mixed workload (4-32 KiB random
 * reads, tagged) on `targets` identical disks. Zero for age_ms, starve_ms
 * or timeout_ms keeps the core's default (pcam_bus_config_defaults). */
typedef struct pcambench_cell {
    unsigned targets, depth;
    bool wide, dt, aging;
    uint8_t period;
    enum pcambench_disk disk;
    uint64_t seed;
    double seconds;
    uint32_t disk_mb;
    uint32_t age_ms, starve_ms, timeout_ms;
} pcambench_cell;

/* What the sweep reads of a run. */
typedef struct pcambench_fair {
    double min_max_share;    /* fewest completions of a target / most */
    uint64_t worst_wait_ns;  /* longest wait of a command (completed or still outstanding) */
    double mean_wait_ns;     /* outstanding / throughput (Little's law) */
    uint32_t timeout_ms;     /* the command timeout the run had */
    uint64_t commands, errors, timeouts;
    double sim_s;
} pcambench_fair;

/* Run one cell quietly. Returns 0, or 1 when the bus could not be built. */
int pcambench_fair_run(const pcambench_cell *c, pcambench_fair *out);

/* The --sweep mode (pcambench_sweep.c): the fairness sweep over disk
 * models, bus widths and speeds, target counts, depths and seeds. */
int pcambench_sweep_main(int argc, char **argv, const char *name);

#endif /* PCAMBENCH_H */
