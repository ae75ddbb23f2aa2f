/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * script: subcommands from a file or stdin, one per line, all on one bus,
 * so a fault, a reset and what follows can be reproduced in one QEMU (or
 * one simulated bus) without writing C.
 *
 *   # a comment
 *   devlist
 *   read 0 --lba 0 --count 8 -o a.bin
 *   ! read 0 --lba 1000 --count 1 -o b.bin    '!' expects the command to fail
 *   !42 tur 4                                 '!N' expects exit status N
 *   reset bus
 *
 * Words split at blanks; '...' and "..." quote. `--json` on a line applies
 * to that line. A bare '!' expects a failure of the command on the bus or
 * in the device (an exit status ctl_exit_is_scsi() accepts); '!N' expects
 * exactly N. A usage error, a file error or "no device" never meets a bare
 * '!', and a usage error never meets any: a typo must not pass as the
 * failure a test wanted. The script's exit status is that of the first
 * line that did not do what it was expected to (46 for an expectation not
 * met), else 0. Commands that build their own bus (trace, bench on QEMU,
 * script) are refused here: a script never opens a second bus.
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ctl.h"

#define LINE_MAX_LEN 4096
#define WORDS_MAX 128

/* Split a line into words in place; -1 on an unterminated quote. */
static int split(char *s, char **w, int cap)
{
    int n = 0;
    while (*s != '\0') {
        while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
            s++;
        if (*s == '\0' || *s == '#')
            break;
        if (n == cap)
            return -1;
        char *out = s;
        w[n++] = out;
        while (*s != '\0' && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
            if (*s == '\'' || *s == '"') {
                char q = *s++;
                while (*s != '\0' && *s != q)
                    *out++ = *s++;
                if (*s != q)
                    return -1;
                s++;
            } else {
                *out++ = *s++;
            }
        }
        if (*s != '\0')
            s++;
        *out = '\0';
    }
    return n;
}

int cmd_script(ctl *c, int argc, char **argv)
{
    if (argc > 1)
        return ctl_usage(c, "takes at most one FILE");
    if (c->script)
        return ctl_usage(c, "a script cannot run a script");
    const char *path = argc == 1 ? argv[0] : "-";
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (f == NULL)
        return ctl_err(c, CTL_EFILE, "cannot open the script %s", path);
    bool tty = f == stdin && isatty(0);
    bool json = c->json;
    static char line[LINE_MAX_LEN];
    char *w[WORDS_MAX];
    int status = 0;
    unsigned lineno = 0;
    c->script = true;
    c->stdin_script = f == stdin;
    for (;;) {
        if (tty) {
            fputs("pcamctl> ", stderr);
            fflush(stderr);
        }
        if (fgets(line, sizeof line, f) == NULL)
            break;
        lineno++;
        int n = split(line, w, WORDS_MAX);
        if (n < 0) {
            ctl_err(c, CTL_EUSAGE, "script line %u: an unclosed quote or more than %d words", lineno, WORDS_MAX);
            if (status == 0)
                status = CTL_EUSAGE;
            continue;
        }
        if (n == 0)
            continue;
        /* '!' or '!N', alone or glued to the command ("!tur 4"). */
        bool expect_fail = false;
        int expect_rc = -1; /* -1: any failure of the command itself */
        if (w[0][0] == '!') {
            const char *p = w[0] + 1;
            expect_fail = true;
            if (*p >= '0' && *p <= '9') {
                expect_rc = 0;
                for (; *p >= '0' && *p <= '9' && expect_rc < 1000; p++)
                    expect_rc = expect_rc * 10 + (*p - '0');
            }
            bool bad = (expect_rc >= 0 && *p != '\0') || expect_rc == 0 || expect_rc > 255 ||
                       expect_rc == CTL_EUSAGE;
            if (*p != '\0') {
                w[0] = (char *)p;
            } else {
                memmove(w, w + 1, (size_t)(n - 1) * sizeof *w);
                n--;
            }
            if (bad || n == 0) {
                c->cmd = "script";
                ctl_err(c, CTL_EUSAGE, "script line %u: %s", lineno,
                        n == 0 ? "'!' without a command"
                        : expect_rc == CTL_EUSAGE ? "'!1' expects a usage error, which is never an expected failure"
                                                  : "'!N' wants N from 2 to 255 and a blank before the command");
                if (status == 0 && !tty)
                    status = CTL_EUSAGE;
                continue;
            }
        }
        int k = 0;
        c->json = json;
        for (int i = 0; i < n; i++) {
            if (strcmp(w[i], "--json") == 0)
                c->json = true;
            else
                w[k++] = w[i];
        }
        n = k;
        if (strcmp(w[0], "quit") == 0 || strcmp(w[0], "exit") == 0)
            break;
        int rc;
        unsigned docs = j_docs();
        c->last_err[0] = '\0';
        c->json_cmd = NULL;
        if (strcmp(w[0], "trace") == 0 || strcmp(w[0], "script") == 0 ||
            (strcmp(w[0], "bench") == 0 && !ctl_is_sim(c))) {
            c->cmd = "script";
            rc = ctl_err(c, CTL_EUSAGE, "line %u: '%s' builds its own bus; run it outside a script", lineno, w[0]);
        } else {
            rc = ctl_dispatch(c, w[0], n - 1, w + 1);
            if (rc < 0) {
                c->cmd = "script";
                rc = ctl_err(c, CTL_EUSAGE, "line %u: unknown command '%s'", lineno, w[0]);
            }
        }
        ctl_json_finish(c, rc, docs);
        /* Output lost is a failure of the line that wrote it. */
        if (fflush(stdout) != 0 && !c->stdout_failed) {
            c->cmd = "script";
            int e = ctl_err(c, CTL_EFILE, "line %u: writing standard output failed: %s", lineno, strerror(errno));
            c->stdout_failed = true;
            if (rc == 0)
                rc = e;
        }
        if (expect_fail && rc == 0) {
            c->cmd = "script";
            ctl_err(c, CTL_EEXPECT, "line %u: '%s' was expected to fail and did not", lineno, w[0]);
            rc = CTL_EEXPECT;
        } else if (expect_fail && expect_rc >= 0 && rc != expect_rc) {
            c->cmd = "script";
            ctl_err(c, CTL_EEXPECT, "line %u: '%s' was expected to exit %d (%s) and exited %d (%s)", lineno, w[0],
                    expect_rc, ctl_exit_kind(expect_rc), rc, ctl_exit_kind(rc));
            rc = CTL_EEXPECT;
        } else if (expect_fail && rc == CTL_EUSAGE) {
            c->cmd = "script";
            ctl_err(c, CTL_EEXPECT, "line %u: '%s' is a usage error, never an expected failure", lineno, w[0]);
            rc = CTL_EEXPECT;
        } else if (expect_fail && expect_rc < 0 && !ctl_exit_is_scsi(rc)) {
            c->cmd = "script";
            ctl_err(c, CTL_EEXPECT,
                    "line %u: '%s' exited %d (%s), which is not a failure of the command on the bus; "
                    "write '!%d' if that is the failure wanted",
                    lineno, w[0], rc, ctl_exit_kind(rc), rc);
            rc = CTL_EEXPECT;
        } else if (expect_fail) {
            rc = 0;
        } else if (rc != 0 && !tty) {
            fprintf(stderr, "pcamctl: script line %u exited %d\n", lineno, rc);
        }
        if (status == 0 && !tty)
            status = rc;
    }
    if (tty)
        fputc('\n', stderr);
    if (f != stdin)
        fclose(f);
    c->json = json;
    c->cmd = "script";
    c->json_cmd = "script";
    return status;
}
