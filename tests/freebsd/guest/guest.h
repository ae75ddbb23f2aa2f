/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What the guest's /sbin/init (init.c) shares with its other parts
 * (reload.c, abort.c): FreeBSD's system call numbers and flags, the raw system call,
 * the console output and the data buffer. No libc: nothing here may assume
 * one.
 */
#ifndef PCAM_FBSD_GUEST_H
#define PCAM_FBSD_GUEST_H

/* FreeBSD amd64 system call numbers (sys/sys/syscall.h). */
enum {
    SYS_exit = 1, SYS_write = 4, SYS_open = 5, SYS_close = 6, SYS_sync = 36, SYS_ioctl = 54,
    SYS_reboot = 55, SYS_clock_gettime = 232, SYS_kenv = 390, SYS_pread = 475, SYS_pwrite = 476,
    SYS___sysctlbyname = 570, SYS_nanosleep = 240, SYS_fork = 2, SYS_wait4 = 7,
    SYS_kldload = 304, SYS_kldunload = 305, SYS_kldfind = 306
};
#define CLOCK_MONOTONIC 4
#define O_RDONLY 0
#define O_RDWR 2
#define RB_POWEROFF 0x4000
#define DIOCGMEDIASIZE 0x40086481ul /* _IOR('d', 129, off_t) */

/* A system call; a negative result is -errno. */
long sc6(long n, long a1, long a2, long a3, long a4, long a5, long a6);
long sc(long n, long a1, long a2, long a3, long a4);
void *memset(void *d, int c, unsigned long n);
void *memcpy(void *d, const void *s, unsigned long n);
void put(const char *s);
void put_num(unsigned long v);
void put_long(long v);
void nap(unsigned long ms);
/* -1 when len bytes of buf read at block lba are the host's pattern (or
 * the guest's, guest != 0), else the offset of the first wrong byte. */
long check(unsigned long lba, unsigned long len, int guest);
extern unsigned char buf[192 * 1024];
extern int fails;

/* reload.c: kldunload refused while a disk is open, then ten unload/load
 * cycles with I/O between them; leaves pcam.ko loaded. */
void reload(void);
/* abort.c: XPT_ABORT of a read held on daN (SCSI target `target`) by
 * pcamabort.ko, with the host's throttle. */
void abort_held(int unit, int target);

#endif
