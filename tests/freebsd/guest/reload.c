/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Detach and reload of pcam.ko, the first part of the crash dump boots
 * (loader.conf: pcamtest.mode="dump"), whose root file system is a memory
 * disk (md0, an msdosfs image the loader preloaded as md_image), so that
 * nothing of the kernel's own needs pcam's disks. pcam.ko (preloaded) has
 * da0 (target 0) and da1 (target 1), both with the host pattern.
 *  0. Waits for CAM's first scan to find da0 and da1 (the root did not).
 *  1. da0 held open: kldunload must fail with EBUSY (pcam's detach refuses,
 *     one console line) and the held da0 still reads.
 *  2. Closed: kldunload succeeds; /dev/da0 and /dev/da1 go, and
 *     hw.intrnames no longer names pcam0 (the interrupt handler is gone).
 *  3. Ten times: kldload /pcam.ko (a copy on the root), wait for da0 and
 *     da1, read both and write and read back da0 (the host checks the
 *     image), then unload as in 2. The host counts the attach lines: the
 *     same disks at the same numbers every time.
 *  4. kldload once more for the dump that follows.
 * Prints PCAMTEST reload lines; must never touch da1's blocks beyond
 * reading them (the dump check wants the host pattern there).
 */
#include "guest.h"
#include "pattern.h"

#define EBUSY 16
#define ENOENT 2
#define CYCLES 10

static long open_da(int unit)
{
    char path[] = "/dev/daN";
    path[7] = (char)('0' + unit);
    return sc(SYS_open, (long)path, O_RDWR, 0, 0);
}

static void line(const char *what, long v)
{
    put("PCAMTEST reload ");
    put(what);
    put(" ");
    put_long(v);
    put("\n");
}

/* 1 while an interrupt counter is named for pcam0 (hw.intrnames: the
 * names one after another, each NUL-padded), 0 if none, -errno. */
static long intr_pcam(void)
{
    static char names[1 << 20]; /* amd64 names every MSI vector it could have: tens of KiB */
    unsigned long len = sizeof names;
    long r = sc6(SYS___sysctlbyname, (long)"hw.intrnames", 12, (long)names, (long)&len, 0, 0);
    if (r != 0)
        return r;
    for (unsigned long i = 0; i + 5 <= len; i++)
        if (names[i] == 'p' && names[i + 1] == 'c' && names[i + 2] == 'a' && names[i + 3] == 'm' &&
            names[i + 4] == '0')
            return 1;
    return 0;
}

/* Wired pages (vm.stats.vm.v_wire_count): pcam's DMA area is wired
 * contiguous memory, so a leak per cycle shows here. */
static long wired(void)
{
    unsigned v = 0;
    unsigned long len = sizeof v;
    long r = sc6(SYS___sysctlbyname, (long)"vm.stats.vm.v_wire_count", 24, (long)&v, (long)&len, 0, 0);
    return r != 0 ? r : (long)v;
}

/* Until both daN open (CAM's scan after a load), at most 30 s: the ms it
 * took, or -1. */
static long wait_disks(void)
{
    for (long ms = 0; ms < 30000; ms += 100) {
        long a = open_da(0), b = open_da(1);
        if (a >= 0)
            sc(SYS_close, a, 0, 0, 0);
        if (b >= 0)
            sc(SYS_close, b, 0, 0, 0);
        if (a >= 0 && b >= 0)
            return ms;
        nap(100);
    }
    return -1;
}

/* Until both daN are gone (ENOENT), at most 10 s: 0, or the last open's
 * result. */
static long wait_gone2(void)
{
    long a = 0, b = 0;
    for (int i = 0; i < 100; i++) {
        a = open_da(0), b = open_da(1);
        if (a >= 0)
            sc(SYS_close, a, 0, 0, 0);
        if (b >= 0)
            sc(SYS_close, b, 0, 0, 0);
        if (a == -ENOENT && b == -ENOENT)
            return 0;
        nap(100);
    }
    return a != -ENOENT ? a : b;
}

/* 64 KiB of both disks checked against the host pattern, 64 KiB of the
 * guest pattern written to da0 and read back: 1 if all went right. */
static int io(void)
{
    long fd0 = open_da(0), fd1 = open_da(1), r;
    int ok = fd0 >= 0 && fd1 >= 0;
    if (ok) {
        r = sc(SYS_pread, fd1, (long)buf, 65536, 0);
        ok = r == 65536 && check(0, 65536, 0) < 0;
    }
    if (ok) {
        r = sc(SYS_pread, fd0, (long)buf, 65536, 512 * 8);
        ok = r == 65536 && check(8, 65536, 0) < 0;
    }
    if (ok) {
        for (unsigned long o = 0; o < PAT_WRITE_BLOCKS * 512ul; o++)
            buf[o] = pat_guest(PAT_WRITE_LBA + o / 512, (unsigned)(o % 512));
        ok = sc(SYS_pwrite, fd0, (long)buf, PAT_WRITE_BLOCKS * 512l, PAT_WRITE_LBA * 512l) ==
             PAT_WRITE_BLOCKS * 512l;
        memset(buf, 0, PAT_WRITE_BLOCKS * 512ul);
        ok = ok && sc(SYS_pread, fd0, (long)buf, PAT_WRITE_BLOCKS * 512l, PAT_WRITE_LBA * 512l) ==
                       PAT_WRITE_BLOCKS * 512l &&
             check(PAT_WRITE_LBA, PAT_WRITE_BLOCKS * 512ul, 1) < 0;
    }
    if (fd0 >= 0)
        sc(SYS_close, fd0, 0, 0, 0);
    if (fd1 >= 0)
        sc(SYS_close, fd1, 0, 0, 0);
    return ok;
}

/* kldunload of a closed pcam: 1 if it went, its disks and its interrupt
 * with it. */
static int unload(long fid)
{
    long r = sc(SYS_kldunload, fid, 0, 0, 0), g = r == 0 ? wait_gone2() : r, i = intr_pcam();
    if (r != 0 || g != 0 || i != 0) {
        line("unload", r);
        line("unload-gone", g);
        line("unload-intr", i);
        fails++;
        return 0;
    }
    return 1;
}

void reload(void)
{
    long fid = sc(SYS_kldfind, (long)"pcam.ko", 0, 0, 0), held, r;
    /* The kernel mounted md0 without waiting for CAM's first scan (the
     * root device was there): wait for the disks first. */
    line("boot-disks", wait_disks() >= 0 ? 0 : -1);
    line("preloaded-intr", intr_pcam());
    held = open_da(0);
    r = sc(SYS_kldunload, fid, 0, 0, 0);
    line("unload-open", r);
    if (r != -EBUSY)
        fails++;
    if (r == 0) /* nothing to hold any more: the rest cannot run */
        return;
    r = sc(SYS_pread, held, (long)buf, 4096, 512 * 8);
    line("held-read", r == 4096 && check(8, 4096, 0) < 0 ? 0 : (r < 0 ? r : 1));
    sc(SYS_close, held, 0, 0, 0);
    if (!unload(fid))
        return;
    line("unload-closed", 0);
    line("wired-after-unload", wired());
    for (int c = 1; c <= CYCLES + 1; c++) {
        long ms;
        fid = sc(SYS_kldload, (long)"/pcam.ko", 0, 0, 0);
        ms = fid > 0 ? wait_disks() : -1;
        if (fid <= 0 || ms < 0 || intr_pcam() != 1) {
            line("load", fid);
            line("load-disks-ms", ms);
            line("load-intr", intr_pcam());
            fails++;
            return;
        }
        if (c > CYCLES) /* loaded for the dump */
            break;
        if (!io()) {
            line("io-cycle", c);
            fails++;
            return;
        }
        if (!unload(fid))
            return;
        put("PCAMTEST reload cycle ");
        put_num((unsigned long)c);
        put(" ok, disks after ");
        put_num((unsigned long)ms);
        put(" ms, wired ");
        put_long(wired());
        put("\n");
    }
    line("loaded-again", 0);
}
