/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * XPT_ABORT of a held request (pcam.ko's I/O boots, between the hold and
 * the hot-plug parts): the test module pcamabort.ko (abortmod.c) sends it,
 * because only kernel code can name a held CCB. The guest prints "ready",
 * the host throttles the 40 MiB disk's drive (target 2) and the guest asks
 * the module to read twice from that target and abort the held second
 * read; it prints the module's statuses, then "end" (the host lifts the
 * throttle) and reads 64 KiB elsewhere on the disk, checking the host
 * pattern.
 */
#include "guest.h"

static long sysctl_str(const char *name, unsigned long namelen, char *out, unsigned long len)
{
    long r = sc6(SYS___sysctlbyname, (long)name, (long)namelen, (long)out, (long)&len, 0, 0);
    if (r == 0 && len > 0)
        out[len - 1] = '\0';
    return r;
}

void abort_held(int unit, int target)
{
    char path[] = "/dev/daN", res[96];
    long fd, r;
    path[7] = (char)('0' + unit);
    put("PCAMTEST abort ready\n");
    nap(3000);
    r = sc6(SYS___sysctlbyname, (long)"debug.pcamabort.run", 19, 0, 0, (long)&target, sizeof target);
    put("PCAMTEST abort run ");
    put_long(r);
    put("\n");
    if (sysctl_str("debug.pcamabort.result", 22, res, sizeof res) == 0) {
        put("PCAMTEST abort ");
        put(res);
        put("\n");
    }
    put("PCAMTEST abort end\n");
    nap(2000); /* the host lifts the throttle */
    fd = sc(SYS_open, (long)path, O_RDONLY, 0, 0);
    /* Elsewhere than the aborted read (block 64): its data arriving late
     * would show here as the wrong blocks. */
    r = fd >= 0 ? sc(SYS_pread, fd, (long)buf, 65536, 1024 * 512) : fd;
    put("PCAMTEST abort after-read ");
    put_long(r == 65536 && check(1024, 65536, 0) < 0 ? 0 : (r < 0 ? r : 1));
    put("\n");
    if (fd >= 0)
        sc(SYS_close, fd, 0, 0, 0);
}
