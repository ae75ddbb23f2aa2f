/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Fuzz target for pcamctl's INQUIRY VPD decoders (examples/pcamctl/vpd.c:
 * pages 00h, 80h, 83h, 86h, 89h, B0h, B1h, B2h and any other as hex), the
 * device's bytes pcamctl prints: the input is the page, given to `pcamctl
 * vpd HEX...`'s entry point as if typed (this harness's ctl_parse_hex hands
 * it the bytes), decoded as text or, when the first input byte is odd, as
 * --json, the second byte onwards being the page. The decoded text goes to
 * /dev/null; the sanitizers watch every read of the page.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ctl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const uint8_t *g_data;
static size_t g_size;

/* cmd_vpd's source of bytes: the fuzz input instead of the command line. */
int ctl_parse_hex(ctl *c, int argc, char **argv, uint8_t *out, size_t cap)
{
    (void)c;
    (void)argc;
    (void)argv;
    size_t n = g_size < cap ? g_size : cap;
    memcpy(out, g_data, n);
    return (int)n;
}

/* What vpd.c and out.c need of the rest of pcamctl, on paths that talk to
 * a bus or a command table: never reached from cmd_vpd (abort if so). */
const char *ctl_exit_kind(int rc)
{
    (void)rc;
    return "fuzz";
}
void ctl_io_init(ctl_io *io, uint8_t target, uint8_t lun, const uint8_t *cdb, int cdb_len, pcam_dir dir,
                 void *data, uint32_t len)
{
    (void)io, (void)target, (void)lun, (void)cdb, (void)cdb_len, (void)dir, (void)data, (void)len;
    abort();
}
uint32_t ctl_io_run(ctl *c, ctl_io *io)
{
    (void)c, (void)io;
    abort();
}
int ctl_io_fail(ctl *c, const char *what, const ctl_io *io)
{
    (void)c, (void)what, (void)io;
    abort();
}
bool ctl_lu_tagged(ctl *c, uint8_t t, uint8_t l, const char **why)
{
    (void)c, (void)t, (void)l, (void)why;
    abort();
}
const ctl_cmd *ctl_find_cmd(const char *name)
{
    (void)name;
    return NULL;
}
pcam_bus *ctl_bus(ctl *c)
{
    (void)c;
    abort();
}
void ctl_fmt_xfer(const pcam_xfer_settings *x, char *buf, size_t cap)
{
    (void)x, (void)buf, (void)cap;
    abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* stdout only: stderr carries libFuzzer's and the sanitizers' reports. */
    static bool quiet;
    if (!quiet)
        quiet = freopen("/dev/null", "w", stdout) != NULL;
    if (size < 1)
        return 0;
    ctl c;
    memset(&c, 0, sizeof c);
    c.json = (data[0] & 1) != 0;
    c.quiet = true; /* refusals are return codes here, not lines on stderr */
    g_data = data + 1;
    g_size = size - 1;
    char arg0[] = "vpd";
    char *argv[] = {arg0, NULL};
    /* As pcamctl's main does after each command: the JSON documents go
     * out and the buffer empties (without it, it grew across inputs until
     * libFuzzer's 2 GiB malloc limit: the marathon's first oom). */
    int rc = cmd_vpd(&c, 1, argv);
    ctl_json_finish(&c, rc, 0);
    fflush(stdout);
    return 0;
}
