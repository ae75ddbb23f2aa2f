/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * /sbin/init of the FreeBSD guest test (freebsd-vm.io.*): a static FreeBSD
 * amd64 program of our own with no libc, only raw system calls, so that the
 * guest needs no FreeBSD userland. The kernel runs it from the FAT root it
 * mounted through pcam (da0). For every other disk da1..da7 it finds, it
 *  - asks the size (DIOCGMEDIASIZE) and prints it,
 *  - reads blocks 0, 1 and the last one, 4 KiB at block 8 and 192 KiB at
 *    block 100 (more than pcam's 64 KiB maxio: physio splits it) and
 *    checks them against the host pattern (pattern.h),
 *  - writes PAT_WRITE_BLOCKS blocks of the guest pattern at PAT_WRITE_LBA
 *    and reads them back,
 *  - reads 4 KiB at block PAT_FAULT_LBA and writes it back unchanged,
 *    printing each return value (the host injects a MEDIUM ERROR there on
 *    one disk and expects EIO for that one operation only);
 * on a disk over 2 TiB (sparse) only around block 2^32 instead: 32 KiB of
 * the host pattern from PAT_BIG_BASE, the guest's write and read-back at
 * PAT_BIG_BASE + PAT_WRITE_LBA (CAM must use READ/WRITE(16) there);
 * prints one PCAMTEST line per result. Then, on the first data disk not
 * over 2 TiB, the seed's 1999
 * disklate method: 2,000 re-reads of 4 KiB and of 8 KiB at offset 0, and
 * 2,000 random 4 KiB reads at depth 1, timed with CLOCK_MONOTONIC, in 3
 * interleaved rounds (the host takes each kind's fastest round, the one
 * least disturbed by the other work on a shared TCG host, and derives
 * command overhead and rate from it). Then it resets the bus through
 * /dev/xpt0 and reads that disk again (reset_bus), and sends bad input
 * through its pass(4) device (pass_bad_input). It syncs
 * and powers the VM off. The host asserts the lines and checks the images
 * after QEMU exits. pcamtest.mode "dump", "soak" and "bench" (icbench(),
 * the deterministic benchmark) run only their own part.
 */
#include "guest.h"
#include "pattern.h"

/* syscall: number in rax, arguments in rdi, rsi, rdx, r10, r8, r9; the
 * carry flag says the result in rax is an errno. Returned here as -errno. */
long sc6(long n, long a1, long a2, long a3, long a4, long a5, long a6)
{
    register long r10 __asm__("r10") = a4;
    register long r8 __asm__("r8") = a5;
    register long r9 __asm__("r9") = a6;
    unsigned char cf;
    __asm__ volatile("syscall\n\tsetc %1"
                     : "+a"(n), "=r"(cf), "+D"(a1), "+S"(a2), "+d"(a3), "+r"(r10), "+r"(r8), "+r"(r9)
                     :
                     : "rcx", "r11", "memory", "cc");
    return cf ? -n : n;
}

long sc(long n, long a1, long a2, long a3, long a4)
{
    return sc6(n, a1, a2, a3, a4, 0, 0);
}

/* The compiler may emit calls to these even in a freestanding program. */
void *memset(void *d, int c, unsigned long n)
{
    unsigned char *p = d;
    while (n-- != 0)
        *p++ = (unsigned char)c;
    return d;
}
void *memcpy(void *d, const void *s, unsigned long n)
{
    unsigned char *p = d;
    const unsigned char *q = s;
    while (n-- != 0)
        *p++ = *q++;
    return d;
}

static int con = -1;

static unsigned long slen(const char *s)
{
    unsigned long n = 0;
    while (s[n] != '\0')
        n++;
    return n;
}

/* Console output a line at a time: one write() per line, so that the
 * kernel's own console messages (CAM's, printed between two writes) cannot
 * split a PCAMTEST line the host looks for. */
void put(const char *s)
{
    static char line[512];
    static unsigned long n;
    unsigned long len = slen(s);
    for (unsigned long i = 0; i < len; i++) {
        line[n++] = s[i];
        if (s[i] == '\n' || n == sizeof line) {
            sc(SYS_write, con, (long)line, (long)n, 0);
            n = 0;
        }
    }
}

void put_num(unsigned long v)
{
    char b[24];
    int i = (int)sizeof b - 1;
    b[i] = '\0';
    do {
        b[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    put(b + i);
}

unsigned char buf[192 * 1024] __attribute__((aligned(4096)));
int fails;
static int small_unit; /* the first data disk not over 2 TiB: disklate's */

/* One result line: "PCAMTEST daN WHAT ok|FAIL ...". */
static void result(int unit, const char *what, int ok, long detail)
{
    put("PCAMTEST da");
    put_num((unsigned long)unit);
    put(" ");
    put(what);
    put(ok ? " ok" : " FAIL ");
    if (!ok) {
        if (detail < 0) {
            put("errno ");
            put_num((unsigned long)-detail);
        } else {
            put("at byte ");
            put_num((unsigned long)detail);
        }
        fails++;
    }
    put("\n");
}

/* Compare len bytes read at block lba with a pattern; -1 = all match,
 * else the offset of the first difference. */
long check(unsigned long lba, unsigned long len, int guest)
{
    for (unsigned long o = 0; o < len; o++) {
        unsigned long n = lba + o / 512;
        unsigned j = (unsigned)(o % 512);
        if (buf[o] != (guest ? pat_guest(n, j) : pat_host(n, j)))
            return (long)o;
    }
    return -1;
}

static void read_check(int unit, int fd, const char *what, unsigned long lba, unsigned long len, int guest)
{
    long r = sc(SYS_pread, fd, (long)buf, (long)len, (long)(lba * 512));
    long bad = r == (long)len ? check(lba, len, guest) : -1;
    result(unit, what, r == (long)len && bad < 0, r != (long)len ? (r < 0 ? r : 0) : bad);
}

/* Returns 0 when there is no such disk. */
static int test_disk(int unit)
{
    char path[] = "/dev/daN";
    long size = 0, fd, r;
    path[7] = (char)('0' + unit);
    fd = sc(SYS_open, (long)path, O_RDWR, 0, 0);
    if (fd < 0)
        return 0;
    r = sc(SYS_ioctl, fd, (long)DIOCGMEDIASIZE, (long)&size, 0);
    put("PCAMTEST da");
    put_num((unsigned long)unit);
    put(" size ");
    put_num(r == 0 ? (unsigned long)size : 0);
    put("\n");
    if (r != 0 || size < (long)(PAT_WRITE_LBA + PAT_WRITE_BLOCKS) * 512) {
        result(unit, "size", 0, r);
        sc(SYS_close, fd, 0, 0, 0);
        return 1;
    }
    if ((unsigned long)size > PAT_BIG_BASE * 512ul) {
        read_check(unit, fd, "read-2t", PAT_BIG_BASE, PAT_BIG_BLOCKS * 512ul, 0);
        for (unsigned long o = 0; o < PAT_WRITE_BLOCKS * 512ul; o++)
            buf[o] = pat_guest(PAT_BIG_BASE + PAT_WRITE_LBA + o / 512, (unsigned)(o % 512));
        r = sc(SYS_pwrite, fd, (long)buf, PAT_WRITE_BLOCKS * 512l, (long)((PAT_BIG_BASE + PAT_WRITE_LBA) * 512ul));
        result(unit, "write-2t", r == PAT_WRITE_BLOCKS * 512l, r < 0 ? r : 0);
        memset(buf, 0, sizeof buf);
        read_check(unit, fd, "readback-2t", PAT_BIG_BASE + PAT_WRITE_LBA, PAT_WRITE_BLOCKS * 512ul, 1);
        sc(SYS_close, fd, 0, 0, 0);
        return 1;
    }
    if (small_unit == 0)
        small_unit = unit;
    read_check(unit, fd, "read-block0", 0, 512, 0);
    read_check(unit, fd, "read-block1", 1, 512, 0);
    read_check(unit, fd, "read-last", (unsigned long)size / 512 - 1, 512, 0);
    read_check(unit, fd, "read-4k", 8, 4096, 0);
    read_check(unit, fd, "read-192k", 100, sizeof buf, 0);
    for (unsigned long o = 0; o < PAT_WRITE_BLOCKS * 512ul; o++)
        buf[o] = pat_guest(PAT_WRITE_LBA + o / 512, (unsigned)(o % 512));
    r = sc(SYS_pwrite, fd, (long)buf, PAT_WRITE_BLOCKS * 512l, PAT_WRITE_LBA * 512l);
    result(unit, "write-64k", r == PAT_WRITE_BLOCKS * 512l, r < 0 ? r : 0);
    memset(buf, 0, sizeof buf);
    read_check(unit, fd, "readback-64k", PAT_WRITE_LBA, PAT_WRITE_BLOCKS * 512ul, 1);
    for (int w = 0; w < 2; w++) {
        for (unsigned o = 0; o < 4096; o++)
            buf[o] = pat_host(PAT_FAULT_LBA + o / 512, o % 512);
        r = sc(w ? SYS_pwrite : SYS_pread, fd, (long)buf, 4096, PAT_FAULT_LBA * 512l);
        put("PCAMTEST da");
        put_num((unsigned long)unit);
        put(w ? " fault-write " : " fault-read ");
        if (r < 0)
            put("-");
        put_num((unsigned long)(r < 0 ? -r : r));
        put("\n");
    }
    sc(SYS_close, fd, 0, 0, 0);
    return 1;
}

/* CAM's CCB as FreeBSD 13.2 amd64 lays it out: the size of union ccb and
 * the struct ccb_hdr offsets used here, read with offsetof from the
 * sysroot's cam/cam_ccb.h and cam/cam.h (kmod-sdk, compiled with the
 * kernel's flags); the constants from the same headers. */
#define CCB_SIZE 1248
enum { CCB_PRIO = 0x00, CCB_FUNC = 0x50, CCB_STATUS = 0x54, CCB_PATH = 0x60, CCB_TARGET = 0x64, CCB_LUN = 0x68 };
#define CAMIOCOMMAND 0xc4e01a02ul /* _IOWR(CAM_VERSION 0x1a, 2, union ccb) */
#define XPT_RESET_BUS 0x411u /* 0x11 | XPT_FC_XPT_ONLY (0x400) */
#define XPT_SCAN_BUS 0x708u  /* 0x08 | XPT_FC_QUEUED (0x100) | XPT_FC_USER_CCB (0x200) | XPT_FC_XPT_ONLY */
#define CAM_PRIORITY_NORMAL 0x480u
#define CAM_STATUS_MASK 0x3fu
#define CAM_TARGET_WILDCARD 0xffffffffu /* ((target_id_t)~0), target_id_t is u_int */
/* CAM_LUN_WILDCARD is (~(u_int)0) while lun_id_t is 64 bits: the wildcard
 * LUN is 0x00000000ffffffff, not all ones. */
#define CAM_LUN_WILDCARD 0xfffffffful

static unsigned char ccb[CCB_SIZE] __attribute__((aligned(16)));

static void ccb_put(unsigned off, unsigned long v, unsigned bytes)
{
    for (unsigned i = 0; i < bytes; i++)
        ccb[off + i] = (unsigned char)(v >> (8 * i));
}

static unsigned long ccb_get(unsigned off, unsigned bytes)
{
    unsigned long v = 0;
    for (unsigned i = bytes; i-- != 0;)
        v = v << 8 | ccb[off + i];
    return v;
}

/* A signed number. */
void put_long(long v)
{
    if (v < 0)
        put("-");
    put_num((unsigned long)(v < 0 ? -v : v));
}

/* A bus-wide CCB (XPT_RESET_BUS, XPT_SCAN_BUS) for bus 0, all targets and
 * the given LUN, through /dev/xpt0's CAMIOCOMMAND; the status stays in ccb[]. */
static long xpt_bus_ccb(long fd, unsigned func, unsigned long lun)
{
    memset(ccb, 0, sizeof ccb);
    ccb_put(CCB_PRIO, CAM_PRIORITY_NORMAL, 4);
    ccb_put(CCB_FUNC, func, 4);
    ccb_put(CCB_PATH, 0, 4);
    ccb_put(CCB_TARGET, CAM_TARGET_WILDCARD, 4);
    ccb_put(CCB_LUN, lun, 8);
    return sc(SYS_ioctl, fd, (long)CAMIOCOMMAND, (long)ccb, 0);
}

/* XPT_RESET_BUS on bus 0 through /dev/xpt0's CAMIOCOMMAND, as camcontrol
 * reset does: first with the LUN written as 64-bit all ones (what the
 * first attempt did; xptdoioctl compares target_lun with
 * CAM_LUN_WILDCARD and refuses it: EINVAL), then with the wildcard as CAM
 * defines it. Prints "PCAMTEST reset-bus-lun64 <ioctl result>" and
 * "PCAMTEST reset-bus <ioctl result> status <CAM status>", rescans the bus
 * (XPT_SCAN_BUS, "PCAMTEST scan-bus ..."), then reads and checks
 * da<small_unit> again ("after-reset"). */
static void reset_bus(void)
{
    long fd = sc(SYS_open, (long)"/dev/xpt0", O_RDWR, 0, 0), r;
    if (fd < 0) {
        result(0, "xpt0-open", 0, fd);
        return;
    }
    for (int pass = 0; pass < 2; pass++) {
        r = xpt_bus_ccb(fd, XPT_RESET_BUS, pass == 0 ? ~0ul : CAM_LUN_WILDCARD);
        put(pass == 0 ? "PCAMTEST reset-bus-lun64 " : "PCAMTEST reset-bus ");
        put_long(r);
        if (pass == 1) {
            put(" status ");
            put_num(ccb_get(CCB_STATUS, 4) & CAM_STATUS_MASK);
            if (r != 0 || (ccb_get(CCB_STATUS, 4) & CAM_STATUS_MASK) != 1)
                fails++;
        }
        put("\n");
    }
    /* A rescan, as camcontrol rescan sends it: CAM probes every ID through
     * pcam again and must find the same disks (no new attach line). */
    r = xpt_bus_ccb(fd, XPT_SCAN_BUS, CAM_LUN_WILDCARD);
    put("PCAMTEST scan-bus ");
    put_long(r);
    put(" status ");
    put_num(ccb_get(CCB_STATUS, 4) & CAM_STATUS_MASK);
    put("\n");
    if (r != 0 || (ccb_get(CCB_STATUS, 4) & CAM_STATUS_MASK) != 1)
        fails++;
    sc(SYS_close, fd, 0, 0, 0);
    if (small_unit != 0) {
        char path[] = "/dev/daN";
        path[7] = (char)('0' + small_unit);
        fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
        if (fd < 0) {
            result(small_unit, "after-reset", 0, fd);
            return;
        }
        read_check(small_unit, fd, "after-reset", 0, 8192, 0);
        read_check(small_unit, fd, "after-reset-192k", 100, sizeof buf, 0);
        sc(SYS_close, fd, 0, 0, 0);
    }
}

/* struct ccb_scsiio and struct ccb_getdevlist offsets, and the constants,
 * from the same headers (cam/cam_ccb.h, cam/scsi/scsi_pass.h). */
enum {
    CCB_FLAGS = 0x70, CCB_TIMEOUT = 0xb0, CSIO_DATA_PTR = 0xd8, CSIO_DXFER_LEN = 0xe0, CSIO_SENSE_LEN = 0x1e0,
    CSIO_CDB_LEN = 0x1e1, CSIO_CDB = 0x1f0, CGDL_NAME = 0xc8, CGDL_UNIT = 0xd8
};
#define CAMGETPASSTHRU 0xc4e01a03ul /* _IOWR(CAM_VERSION 0x1a, 3, union ccb) */
#define XPT_SCSI_IO 0x901u           /* 0x01 | XPT_FC_DEV_QUEUED (0x800 | XPT_FC_QUEUED 0x100) */
#define XPT_RESET_DEV 0x912u         /* 0x12 | XPT_FC_DEV_QUEUED */
#define XPT_EN_LUN 0x30u             /* target mode's enable LUN: no flags */
#define CAM_DIR_IN 0x40u
#define CAM_DIR_NONE 0xc0u

/* Send the CCB built in ccb[] through the pass(4) device fd. Prints
 * "PCAMTEST pass <what> <ioctl result> status <CAM status>" and returns
 * that status (0 when the ioctl failed). */
static unsigned pass_send(long fd, const char *what)
{
    long r = sc(SYS_ioctl, fd, (long)CAMIOCOMMAND, (long)ccb, 0);
    unsigned st = r == 0 ? (unsigned)(ccb_get(CCB_STATUS, 4) & CAM_STATUS_MASK) : 0;
    put("PCAMTEST pass ");
    put(what);
    put(" ");
    put_long(r);
    put(" status ");
    put_num(st);
    put("\n");
    return st;
}

/* A CCB of function func with no data, as far as the header. */
static void pass_hdr(unsigned func)
{
    memset(ccb, 0, sizeof ccb);
    ccb_put(CCB_PRIO, CAM_PRIORITY_NORMAL, 4);
    ccb_put(CCB_FUNC, func, 4);
    ccb_put(CCB_FLAGS, CAM_DIR_NONE, 4);
    ccb_put(CCB_TIMEOUT, 10000, 4);
}

/* One XPT_SCSI_IO through the pass(4) device fd: READ(10) of blocks at
 * block 0 with cdb_len and dxfer_len as given (CAM_DIR_IN with data, else
 * CAM_DIR_NONE; with ptr_no_len, CAM_DIR_IN with a data pointer and a
 * dxfer_len of 0). */
static unsigned pass_io(long fd, const char *what, unsigned blocks, unsigned cdb_len, unsigned long len, int ptr_no_len)
{
    pass_hdr(XPT_SCSI_IO);
    ccb_put(CCB_FLAGS, len != 0 || ptr_no_len ? CAM_DIR_IN : CAM_DIR_NONE, 4);
    ccb_put(CSIO_DATA_PTR, len != 0 || ptr_no_len ? (unsigned long)buf : 0, 8);
    ccb_put(CSIO_DXFER_LEN, len, 4);
    ccb_put(CSIO_SENSE_LEN, 32, 1);
    ccb_put(CSIO_CDB_LEN, cdb_len, 1);
    ccb[CSIO_CDB] = 0x28; /* READ(10), LBA 0 */
    ccb[CSIO_CDB + 7] = (unsigned char)(blocks >> 8);
    ccb[CSIO_CDB + 8] = (unsigned char)blocks;
    return pass_send(fd, what);
}

/* Bad input through pass(4): the pass device of da<small_unit> (found with
 * CAMGETPASSTHRU on /dev/xpt0), then CAMIOCOMMAND with a good READ(10)
 * (data checked), a CDB of 17 bytes (more than the SIM takes), a
 * zero-length transfer (READ(10) of 0 blocks, CAM_DIR_NONE), a transfer of
 * 129 blocks (one past the 64 KiB maxio pcam announces), CAM_DIR_IN with
 * a data pointer and no length, XPT_EN_LUN (a function pcam lacks), a good
 * READ(10) again, XPT_RESET_DEV and a good READ(10) after it. The host
 * asserts each line. */
static void pass_bad_input(void)
{
    char path[] = "/dev/passNN";
    long fd = sc(SYS_open, (long)"/dev/xpt0", O_RDWR, 0, 0), r;
    unsigned long unit;
    if (fd < 0 || small_unit == 0) {
        result(small_unit, "pass-xpt0", 0, fd);
        return;
    }
    memset(ccb, 0, sizeof ccb);
    memcpy(ccb + CGDL_NAME, "da", 3);
    ccb_put(CGDL_UNIT, (unsigned long)small_unit, 4);
    r = sc(SYS_ioctl, fd, (long)CAMGETPASSTHRU, (long)ccb, 0);
    sc(SYS_close, fd, 0, 0, 0);
    unit = ccb_get(CGDL_UNIT, 4);
    if (r != 0 || ccb[CGDL_NAME] != 'p' || unit > 99) {
        result(small_unit, "pass-getpassthru", 0, r);
        return;
    }
    path[9] = (char)(unit >= 10 ? '0' + unit / 10 : '0' + unit);
    path[10] = (char)(unit >= 10 ? '0' + unit % 10 : '\0');
    put("PCAMTEST pass da");
    put_num((unsigned long)small_unit);
    put(" is ");
    put(path + 5);
    put("\n");
    fd = sc(SYS_open, (long)path, O_RDWR, 0, 0);
    if (fd < 0) {
        result(small_unit, "pass-open", 0, fd);
        return;
    }
    memset(buf, 0, 512);
    if (pass_io(fd, "read", 1, 10, 512, 0) != 1 || check(0, 512, 0) >= 0)
        fails++;
    pass_io(fd, "cdb17", 1, 17, 512, 0);
    pass_io(fd, "zero-length", 0, 10, 0, 0);
    pass_io(fd, "oversize", 129, 10, 129 * 512, 0);
    pass_io(fd, "ptr-no-length", 1, 10, 0, 1);
    pass_hdr(XPT_EN_LUN); /* target mode: a function this SIM lacks */
    pass_send(fd, "en-lun");
    memset(buf, 0, 512);
    if (pass_io(fd, "read-again", 1, 10, 512, 0) != 1 || check(0, 512, 0) >= 0)
        fails++;
    /* A device reset through the same pass device, then a read again. */
    pass_hdr(XPT_RESET_DEV);
    pass_send(fd, "reset-dev");
    memset(buf, 0, 512);
    if (pass_io(fd, "read-after-reset-dev", 1, 10, 512, 0) != 1 || check(0, 512, 0) >= 0)
        fails++;
    sc(SYS_close, fd, 0, 0, 0);
}

static unsigned long now_ns(void)
{
    long ts[2] = {0, 0}; /* struct timespec: tv_sec, tv_nsec */
    sc(SYS_clock_gettime, CLOCK_MONOTONIC, (long)ts, 0, 0);
    return (unsigned long)ts[0] * 1000000000ul + (unsigned long)ts[1];
}

/* count reads of len bytes at offset 0 (or, random != 0, at 4 KiB-aligned
 * offsets from an LCG over the first 16 MiB); returns ns for all of them,
 * 0 if any read failed. */
static unsigned long timed_reads(long fd, unsigned long count, unsigned long len, int random)
{
    unsigned long x = 12345, t0 = now_ns();
    for (unsigned long i = 0; i < count; i++) {
        long off = 0;
        if (random) {
            x = x * 6364136223846793005ul + 1442695040888963407ul;
            off = (long)((x >> 33) % 4096ul) * 4096l;
        }
        if (sc(SYS_pread, fd, (long)buf, (long)len, off) != (long)len)
            return 0;
    }
    return now_ns() - t0;
}

/* ---- the deterministic benchmark (loader.conf: pcamtest.mode="bench") ---- */

/* The idle threads' run time so far, ns: struct kinfo_proc's ki_runtime
 * (u64 microseconds at byte 328 of the 1,088 on amd64, sys/sys/user.h) of
 * the process whose ki_comm (byte 447) is "idle" (one vCPU, one idle
 * thread), found once by kern.proc.pid.N over the first PIDs. 0 if none. */
static unsigned long idle_ns(void)
{
    static unsigned char kp[1088];
    static int pid = -1;
    for (int p = pid < 0 ? 0 : pid; p < (pid < 0 ? 64 : pid + 1); p++) {
        int mib[4] = {1, 14, 1, p}; /* CTL_KERN, KERN_PROC, KERN_PROC_PID */
        unsigned long len = sizeof kp, us = 0;
        if (sc6(202 /* SYS___sysctl */, (long)mib, 4, (long)kp, (long)&len, 0, 0) < 0 || len != sizeof kp ||
            kp[447] != 'i' || kp[448] != 'd' || kp[449] != 'l' || kp[450] != 'e' || kp[451] != 0)
            continue;
        pid = p;
        for (int i = 7; i >= 0; i--)
            us = us << 8 | kp[328 + i];
        return us * 1000ul;
    }
    return 0;
}

static long sysctl_int(const char *name, int v);

/* Under QEMU's -icount shift=0 (boot.sh MODE bench) a guest ns of busy vCPU
 * is one guest instruction: the time the idle thread did not run, per
 * read, is the instructions the kernel, the driver and this loop spend on
 * one. "PCAMTEST icount <what> n <count> busy_ns <b> elapsed_ns <e>", on
 * the null-co disk at da1, whose reads the host completes 1 ms later (the
 * vCPU idles before every completion, so every read takes the same path). */
static void icbench(void)
{
    static const struct { const char *what; unsigned long len; int random; } runs[] = {
        {"reread4096", 4096, 0}, {"reread8192", 8192, 0}, {"rand1", 4096, 1}};
    long fd = sc(SYS_open, (long)"/dev/da1", O_RDONLY, 0, 0);
    /* The idle thread halts at once instead of spinning on PAUSE (which
     * under icount advances the clock by one instruction per TCG exit, so
     * a wait would cost minutes of host time per guest second), and the
     * power-off does not wait 5 s of guest time for disk caches. */
    sysctl_int("kern.sched.idlespins", 0);
    sysctl_int("kern.shutdown.poweroff_delay", 0);
    if (fd < 0) {
        result(1, "icount-open", 0, fd);
        return;
    }
    timed_reads(fd, 100, 4096, 0); /* warm-up */
    for (unsigned i = 0; i < sizeof runs / sizeof runs[0]; i++) {
        unsigned long i0 = idle_ns(), ns = timed_reads(fd, 2000, runs[i].len, runs[i].random), i1 = idle_ns();
        put("PCAMTEST icount ");
        put(runs[i].what);
        put(" n 2000 busy_ns ");
        put_num(ns - (i1 - i0));
        put(" elapsed_ns ");
        put_num(ns);
        put(i0 && ns ? "\n" : " failed\n");
        if (i0 == 0 || ns == 0)
            fails++;
    }
    sc(SYS_close, fd, 0, 0, 0);
}

/* "PCAMTEST disklate <what> <count> <ns>" lines for the host, one per
 * kind and round. */
static void disklate(void)
{
    static const struct { const char *what; unsigned long len; int random; } runs[] = {
        {"reread-4k", 4096, 0}, {"reread-8k", 8192, 0}, {"random-4k", 4096, 1}};
    char path[] = "/dev/daN";
    long fd;
    path[7] = (char)('0' + small_unit);
    fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
    if (small_unit == 0 || fd < 0) {
        result(small_unit, "disklate-open", 0, fd);
        return;
    }
    for (unsigned k = 0; k < 3 * sizeof runs / sizeof runs[0]; k++) {
        unsigned i = k % (unsigned)(sizeof runs / sizeof runs[0]);
        unsigned long ns = timed_reads(fd, 2000, runs[i].len, runs[i].random);
        put("PCAMTEST disklate ");
        put(runs[i].what);
        put(" 2000 ");
        put_num(ns);
        put("\n");
        if (ns == 0)
            fails++;
    }
    /* The re-read data is still the disk's block 0. */
    read_check(small_unit, fd, "disklate-data", 0, 8192, 0);
    sc(SYS_close, fd, 0, 0, 0);
}

/* ---- hot removal and addition (loader.conf: pcamtest.hotplug="1") ---- */

void nap(unsigned long ms)
{
    long ts[2] = {(long)(ms / 1000), (long)(ms % 1000) * 1000000};
    sc(SYS_nanosleep, (long)ts, 0, 0, 0);
}

/* The first daN (1..9) with a size in [lo, hi], or 0. */
static int find_unit(unsigned long lo, unsigned long hi)
{
    for (int unit = 1; unit <= 9; unit++) {
        char path[] = "/dev/daN";
        long size = 0, fd, r;
        path[7] = (char)('0' + unit);
        fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
        if (fd < 0)
            continue;
        r = sc(SYS_ioctl, fd, (long)DIOCGMEDIASIZE, (long)&size, 0);
        sc(SYS_close, fd, 0, 0, 0);
        if (r == 0 && (unsigned long)size >= lo && (unsigned long)size <= hi)
            return unit;
    }
    return 0;
}

static void say_unit(const char *what, int unit, const char *rest)
{
    put("PCAMTEST ");
    put(what);
    put(" da");
    put_num((unsigned long)unit);
    put(rest);
}

/* After a disk went: CAM must take its daN away (open fails) within 60 s. */
static void wait_gone(const char *what, int unit)
{
    char path[] = "/dev/daN";
    path[7] = (char)('0' + unit);
    for (int i = 0; i < 600; i++) {
        long fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
        if (fd < 0) {
            say_unit(what, unit, " gone ");
            put_long(fd);
            put("\n");
            return;
        }
        sc(SYS_close, fd, 0, 0, 0);
        nap(100);
    }
    say_unit(what, unit, " still there after 60 s\n");
    fails++;
}

/* Reads of len bytes at block 0 (every gap_ms), or sequential 64 KiB reads
 * below the fault block, until one fails (at most about 120 s). Prints
 * "PCAMTEST <what> daN reads <good ones> then <error>". */
static void read_until_error(const char *what, int unit, unsigned long gap_ms)
{
    char path[] = "/dev/daN";
    unsigned long good = 0, t0 = 0, lba = 0;
    long fd, r = 0;
    path[7] = (char)('0' + unit);
    fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
    if (fd < 0) {
        result(unit, what, 0, fd);
        return;
    }
    t0 = now_ns();
    while (now_ns() - t0 < 120000000000ul) {
        r = sc(SYS_pread, fd, (long)buf, gap_ms != 0 ? 512 : 65536, (long)(lba * 512));
        if (r < 0)
            break;
        good++;
        if (gap_ms != 0) {
            nap(gap_ms);
        } else {
            lba += 128;
            if (lba + 128 > PAT_FAULT_LBA)
                lba = 0;
        }
    }
    sc(SYS_close, fd, 0, 0, 0);
    say_unit(what, unit, " reads ");
    put_num(good);
    put(" then ");
    put_long(r);
    put("\n");
    if (r >= 0)
        fails++;
}

/* A request held by the target past its CAM timeout: the host throttles
 * the 40 MiB disk's drive (block_set_io_throttle) when it sees the "ready"
 * line, so that a 4 KiB read after a first one takes longer than da(4)'s timeout, and lifts
 * the throttle once the console shows CAM's "Command timeout". pcam's core
 * ends the held read by its recovery (ABORT TASK, and on a target deaf to
 * it BUS DEVICE RESET and a bus reset); CAM retries, and the read returns
 * the host pattern. Prints "PCAMTEST hold daN read <result> ms <time>". */
static void hold(void)
{
    int unit = find_unit(40ul << 20, 40ul << 20);
    char path[] = "/dev/daN";
    unsigned long t0;
    long fd, r;
    if (unit == 0) {
        result(0, "hold-disk", 0, 0);
        return;
    }
    path[7] = (char)('0' + unit);
    fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
    if (fd < 0) {
        result(unit, "hold-open", 0, fd);
        return;
    }
    say_unit("hold", unit, " ready\n");
    nap(3000);
    /* QEMU's throttle lets a request through while its bucket is not full:
     * this one fills it, the next one waits. */
    sc(SYS_pread, fd, (long)buf, 4096, 0);
    t0 = now_ns();
    r = sc(SYS_pread, fd, (long)buf, 4096, 64 * 512);
    say_unit("hold", unit, " read ");
    put_long(r);
    put(" ms ");
    put_num((now_ns() - t0) / 1000000);
    put("\n");
    result(unit, "hold-data", r == 4096 && check(64, 4096, 0) < 0, r < 0 ? r : 0);
    sc(SYS_close, fd, 0, 0, 0);
}

/* The host (boot.sh) answers each "ready" line through QEMU's monitor:
 * device_del of the 3 TiB disk (target 3) while idle, of the 40 MiB disk
 * (target 2) a second into a run of reads, then device_add of a 32 MiB
 * disk at target 5, which the guest finds with XPT_SCAN_BUS and tests like
 * the others. */
static void hotplug(void)
{
    int idle = find_unit(PAT_BIG_BASE * 512ul, ~0ul), io = find_unit(40ul << 20, 40ul << 20), unit = 0, scans = 0;
    long fd;
    if (idle == 0 || io == 0) {
        result(0, "hotplug-disks", 0, 0);
        return;
    }
    say_unit("hot-del-idle", idle, " ready\n");
    read_until_error("hot-del-idle", idle, 500);
    wait_gone("hot-del-idle", idle);
    say_unit("hot-del-io", io, " ready\n");
    read_until_error("hot-del-io", io, 0);
    wait_gone("hot-del-io", io);
    put("PCAMTEST hot-add ready\n");
    nap(3000);
    fd = sc(SYS_open, (long)"/dev/xpt0", O_RDWR, 0, 0);
    while (fd >= 0 && unit == 0 && scans < 20) {
        long r = xpt_bus_ccb(fd, XPT_SCAN_BUS, CAM_LUN_WILDCARD);
        scans++;
        if (r != 0 || (ccb_get(CCB_STATUS, 4) & CAM_STATUS_MASK) != 1)
            break;
        unit = find_unit(32ul << 20, 32ul << 20);
        if (unit == 0)
            nap(1000);
    }
    if (fd >= 0)
        sc(SYS_close, fd, 0, 0, 0);
    if (unit == 0) {
        result(0, "hot-add", 0, fd);
        return;
    }
    say_unit("hot-add", unit, " after scans ");
    put_num((unsigned long)scans);
    put("\n");
    test_disk(unit);
}

/* ---- sustained load (loader.conf: pcamtest.mode="soak", pcamtest.soak_s) ---- */

/* One line built in a buffer and written at once, so that the workers'
 * lines do not interleave on the console. */
static char lbuf[256];
static unsigned llen;
static void lput(const char *s)
{
    while (*s != '\0' && llen < sizeof lbuf - 1)
        lbuf[llen++] = *s++;
}
static void lnum(unsigned long v)
{
    char d[24];
    int n = 0;
    do
        d[n++] = (char)('0' + v % 10);
    while ((v /= 10) != 0);
    while (n > 0 && llen < sizeof lbuf - 1)
        lbuf[llen++] = d[--n];
}
static void lflush(void)
{
    lbuf[llen++] = '\n';
    sc(SYS_write, con, (long)lbuf, (long)llen, 0);
    llen = 0;
}

/* FreeBSD's fork: rax holds a pid in both processes, rdx is 1 in the child. */
static long fork_child(int *is_child)
{
    long n = SYS_fork, d = 0;
    unsigned char cf;
    __asm__ volatile("syscall\n\tsetc %1" : "+a"(n), "=r"(cf), "+d"(d) : : "rcx", "r11", "memory", "cc", "rdi", "rsi",
                     "r8", "r9", "r10");
    *is_child = !cf && d != 0;
    return cf ? -n : n;
}

#define SOAK_BLOCKS 131072u /* each soak disk: 64 MiB */
#define SOAK_CHUNK 16u      /* blocks per chunk; worker w owns the chunks with index % SOAK_WORKERS == w */
#define SOAK_WORKERS 2u     /* per disk: with two disks, up to 4 commands queued at once (tags) */

static void soak_fill(unsigned char *p, unsigned unit, unsigned long lba, unsigned gen)
{
    for (unsigned j = 0; j < 512; j++)
        p[j] = pat_soak(unit, lba, gen, j);
}

static unsigned short soak_gen[SOAK_BLOCKS]; /* 0: still the host pattern; the child's own copy */

/* Sectors of buf (n from lba) that are not what this worker last wrote there. */
static unsigned long soak_wrong(unsigned unit, unsigned long lba, unsigned n)
{
    static unsigned char want[512];
    unsigned long bad = 0;
    for (unsigned s = 0; s < n; s++) {
        unsigned long b = lba + s;
        int diff = 0;
        if (soak_gen[b] != 0)
            soak_fill(want, unit, b, soak_gen[b]);
        for (unsigned j = 0; j < 512 && !diff; j++)
            diff = buf[s * 512 + j] != (soak_gen[b] != 0 ? want[j] : pat_host(b, j));
        bad += (unsigned long)diff;
    }
    return bad;
}

/* One worker: random reads and writes of 1..SOAK_CHUNK blocks inside its
 * own chunks of daN for `secs`, every read checked, then one read of every
 * chunk it owns. Prints its counters and exits. */
static void soak_worker(unsigned unit, unsigned w, unsigned long secs)
{
    char path[] = "/dev/daN";
    unsigned long x = 0x9E3779B97F4A7C15ul ^ (unit * 1000003ul + w), t0 = now_ns();
    unsigned long reads = 0, writes = 0, sin = 0, sout = 0, bad = 0, ioerr = 0;
    long fd;
    path[7] = (char)('0' + unit);
    fd = sc(SYS_open, (long)path, O_RDWR, 0, 0);
    for (int pass = 0; fd >= 0 && pass < 2; pass++) {
        unsigned long c = w;
        while (pass == 0 ? now_ns() - t0 < secs * 1000000000ul : c < SOAK_BLOCKS / SOAK_CHUNK) {
            unsigned long lba, n;
            int wr;
            long r;
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            if (pass == 0) {
                c = (x >> 8) % (SOAK_BLOCKS / SOAK_CHUNK / SOAK_WORKERS) * SOAK_WORKERS + w;
                lba = c * SOAK_CHUNK + (x >> 40) % SOAK_CHUNK;
                n = 1 + (x >> 50) % (SOAK_CHUNK - (lba - c * SOAK_CHUNK));
                wr = (int)(x & 1);
            } else {
                lba = c * SOAK_CHUNK, n = SOAK_CHUNK, wr = 0;
                c += SOAK_WORKERS;
            }
            if (wr) {
                for (unsigned s = 0; s < n; s++) {
                    unsigned short g = (unsigned short)(soak_gen[lba + s] + 1 == 0 ? 1 : soak_gen[lba + s] + 1);
                    soak_fill(buf + s * 512, unit, lba + s, g);
                    soak_gen[lba + s] = g;
                }
                r = sc(SYS_pwrite, fd, (long)buf, (long)(n * 512), (long)(lba * 512));
                writes++, sout += n;
            } else {
                r = sc(SYS_pread, fd, (long)buf, (long)(n * 512), (long)(lba * 512));
                reads++, sin += n;
                if (r == (long)(n * 512))
                    bad += soak_wrong(unit, lba, (unsigned)n);
            }
            ioerr += (unsigned long)(r != (long)(n * 512));
        }
    }
    lput("PCAMTEST soak da"), lnum(unit), lput(" w"), lnum(w);
    lput(" reads "), lnum(reads), lput(" writes "), lnum(writes), lput(" sectors-in "), lnum(sin);
    lput(" sectors-out "), lnum(sout), lput(" wrong "), lnum(bad), lput(" ioerr "), lnum(ioerr + (fd < 0));
    lflush();
    sc(SYS_exit, 0, 0, 0, 0);
}

/* SOAK_WORKERS workers on each of da1 and da2, for `secs`; the parent waits. */
static void soak(unsigned long secs)
{
    long pids[2 * SOAK_WORKERS];
    unsigned n = 0;
    lput("PCAMTEST soak start "), lnum(secs), lput(" s"), lflush();
    for (unsigned unit = 1; unit <= 2; unit++)
        for (unsigned w = 0; w < SOAK_WORKERS; w++) {
            int child;
            long pid = fork_child(&child);
            if (pid >= 0 && child)
                soak_worker(unit, w, secs);
            if (pid > 0)
                pids[n++] = pid;
            else
                fails++;
        }
    for (unsigned i = 0; i < n; i++) {
        int st = 0;
        sc(SYS_wait4, pids[i], (long)&st, 0, 0);
    }
    lput("PCAMTEST soak end, workers "), lnum(n), lflush();
}

/* ---- the crash dump boot (loader.conf: pcamtest.mode="dump") ---- */

#define KENV_GET 0
/* _IOW('d', 145, struct diocskerneldump_arg): 152 bytes on amd64 (sys/disk.h). */
#define DIOCSKERNELDUMP 0x80986491ul
#define KDA_SIZE 152
#define KDA_APPEND 252 /* UINT8_MAX - 3: after any dump device already set */

static long sysctl_int(const char *name, int v)
{
    return sc6(SYS___sysctlbyname, (long)name, (long)slen(name), 0, 0, (long)&v, sizeof v);
}

/* What dumpon(8) does for a disk (kda_index KDA_APPEND, no compression or
 * encryption) on da1, then a panic from debug.kdb.panic with the debugger
 * off: the kernel writes its minidump through pcam's poll routine and
 * resets. The host checks the image (imgcheck dump). */
static void dump_boot(void)
{
    static unsigned char kda[KDA_SIZE] __attribute__((aligned(8)));
    long fd = sc(SYS_open, (long)"/dev/da1", O_RDONLY, 0, 0), r;
    if (fd < 0) {
        result(1, "dump-open", 0, fd);
        return;
    }
    memset(kda, 0, sizeof kda);
    kda[0] = KDA_APPEND;
    r = sc(SYS_ioctl, fd, (long)DIOCSKERNELDUMP, (long)kda, 0);
    put("PCAMTEST dumpon da1 ");
    put_long(r);
    put("\n");
    if (r != 0)
        return;
    r = sysctl_int("debug.debugger_on_panic", 0);
    put("PCAMTEST debugger_on_panic 0: ");
    put_long(r);
    put("\nPCAMTEST panic now\n");
    r = sysctl_int("debug.kdb.panic", 1);
    result(1, "panic", 0, r); /* only if the kernel did not panic */
}

void pcam_init_main(void);
void pcam_init_main(void)
{
    char mode[16];
    con = (int)sc(SYS_open, (long)"/dev/console", O_RDWR, 0, 0);
    if (sc(SYS_kenv, KENV_GET, (long)"pcamtest.mode", (long)mode, sizeof mode) == 5 && mode[0] == 'd' &&
        mode[1] == 'u' && mode[2] == 'm' && mode[3] == 'p' && mode[4] == '\0') {
        put("PCAMTEST start dump\n");
        reload();
        dump_boot();
        put("PCAMTEST done, failures 1\n");
        sc(SYS_reboot, RB_POWEROFF, 0, 0, 0);
        for (;;)
            ;
    }
    if (sc(SYS_kenv, KENV_GET, (long)"pcamtest.mode", (long)mode, sizeof mode) == 5 && mode[0] == 's' &&
        mode[1] == 'o' && mode[2] == 'a' && mode[3] == 'k') {
        unsigned long secs = 0;
        long n = sc(SYS_kenv, KENV_GET, (long)"pcamtest.soak_s", (long)mode, sizeof mode);
        for (long i = 0; i + 1 < n && mode[i] >= '0' && mode[i] <= '9'; i++)
            secs = secs * 10 + (unsigned long)(mode[i] - '0');
        soak(secs);
        put("PCAMTEST done, failures ");
        put_num((unsigned long)fails);
        put("\n");
        sc(SYS_sync, 0, 0, 0, 0);
        sc(SYS_reboot, RB_POWEROFF, 0, 0, 0);
        for (;;)
            ;
    }
    if (sc(SYS_kenv, KENV_GET, (long)"pcamtest.mode", (long)mode, sizeof mode) == 6 && mode[0] == 'b' &&
        mode[1] == 'e' && mode[2] == 'n' && mode[3] == 'c' && mode[4] == 'h') {
        icbench();
        put("PCAMTEST done, failures ");
        put_num((unsigned long)fails);
        put("\n");
        sc(SYS_reboot, RB_POWEROFF, 0, 0, 0);
        for (;;)
            ;
    }
    unsigned tested = 0;
    put("PCAMTEST start\n");
    for (int unit = 1; unit <= 7; unit++)
        if (test_disk(unit))
            tested |= 1u << unit;
    disklate();
    reset_bus();
    /* A disk the rescan found (QEMU's AM53C974 LUN 1, osshim/freebsd/README.md)
     * gets the same tests. */
    for (int unit = 1; unit <= 7; unit++)
        if ((tested & 1u << unit) == 0)
            test_disk(unit);
    pass_bad_input();
    if (sc(SYS_kenv, KENV_GET, (long)"pcamtest.hotplug", (long)mode, sizeof mode) == 2 && mode[0] == '1') {
        hold();
        abort_held(find_unit(40ul << 20, 40ul << 20), 2);
        hotplug();
    }
    put("PCAMTEST done, failures ");
    put_num((unsigned long)fails);
    put("\n");
    sc(SYS_sync, 0, 0, 0, 0);
    sc(SYS_reboot, RB_POWEROFF, 0, 0, 0);
    sc(SYS_exit, 0, 0, 0, 0);
    for (;;)
        ;
}

/* Entry: align the stack as the ABI wants for a call, run, never return. */
__asm__(".globl _start\n"
        "_start:\n"
        "\tandq $-16, %rsp\n"
        "\tcall pcam_init_main\n"
        "\tud2\n");
