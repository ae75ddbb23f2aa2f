/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * wnaspi32.ini's reader (aspi/win32/w32_ini.c) and meaning (w32_config.c),
 * built for the host as the DLL builds them: the example file of
 * docs/aspi.md verbatim and in every encoding Notepad writes, each syntax
 * rule, each refusal's message, the file= path grammar and how paths
 * resolve against the ini file's folder.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "w32_config.h"
#include "w32_ini.h"

#define DIR "C:\\app\\"

static char g_err[600];
static w32_config g_cfg;

/* The file as stored, decoded and parsed: 0 or -1 (message in g_err). */
static int load(const void *raw, size_t len)
{
    static char text[W32_INI_MAX_FILE + 1];
    g_err[0] = '\0';
    memset(&g_cfg, 0, sizeof g_cfg);
    if (w32_ini_decode(raw, len, text, sizeof text, g_err, sizeof g_err) != 0)
        return -1;
    return w32_config_ini(text, DIR, &g_cfg, g_err, sizeof g_err);
}

static int load_str(const char *s)
{
    return load(s, strlen(s));
}

/* Refused, with a message holding each of the given pieces. */
static void refused(const char *ini, const char *want1, const char *want2)
{
    assert_int_equal(load_str(ini), -1);
    if (strstr(g_err, want1) == NULL || (want2 != NULL && strstr(g_err, want2) == NULL))
        fail_msg("message \"%s\" lacks \"%s\"%s%s", g_err, want1, want2 != NULL ? " / " : "",
                 want2 != NULL ? want2 : "");
}

static size_t read_doc_ini(unsigned char *buf, size_t cap)
{
    FILE *f = fopen(PCAM_DOC_INI, "rb");
    assert_non_null(f);
    size_t n = fread(buf, 1, cap, f);
    fclose(f);
    assert_true(n > 0 && n < cap);
    return n;
}

/* What docs/aspi.md's example says, field by field. */
static void check_example(void)
{
    const simspec *s = &g_cfg.spec;
    assert_true(g_cfg.has_topology);
    assert_string_equal(g_cfg.log, DIR "wnaspi32.log");
    assert_int_equal(s->width, 8);
    assert_int_equal(s->initiator, 7);
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++) {
        bool present = id == 1 || id == 2 || id == 3 || id == 6;
        assert_int_equal(s->t[id].kind != SPEC_NONE, present);
    }
    assert_int_equal(s->t[1].kind, SPEC_DISK);
    assert_int_equal(s->t[1].bytes, 2u << 20);
    assert_string_equal(s->t[1].vendor, "INIFILE");
    assert_string_equal(s->t[1].product, "FROMINI");
    assert_int_equal(s->t[2].luns, 3);
    assert_int_equal(s->t[2].bytes, 1u << 20);
    assert_string_equal(s->t[2].file, "");
    assert_string_equal(s->t[3].file, DIR "disk3.img");
    assert_false(s->t[3].tc.ua_power_on);
    assert_true(s->t[2].tc.ua_power_on);
    assert_int_equal(s->t[6].kind, SPEC_CD);
    assert_int_equal(s->t[6].bytes, 8u << 20);
}

static void test_doc_example(void **state)
{
    (void)state;
    static unsigned char raw[W32_INI_MAX_FILE];
    size_t n = read_doc_ini(raw, sizeof raw);
    assert_int_equal(load(raw, n), 0);
    check_example();
}

/* The same file as Notepad saves it: CR LF, with a UTF-8 mark; CR alone. */
static void test_crlf_bom_cr(void **state)
{
    (void)state;
    static unsigned char raw[W32_INI_MAX_FILE], conv[2 * W32_INI_MAX_FILE];
    size_t n = read_doc_ini(raw, sizeof raw), m = 0;
    conv[m++] = 0xEF;
    conv[m++] = 0xBB;
    conv[m++] = 0xBF;
    for (size_t i = 0; i < n; i++) {
        if (raw[i] == '\n')
            conv[m++] = '\r';
        conv[m++] = raw[i];
    }
    assert_int_equal(load(conv, m), 0);
    check_example();
    m = 0;
    for (size_t i = 0; i < n; i++)
        conv[m++] = raw[i] == '\n' ? '\r' : raw[i];
    assert_int_equal(load(conv, m), 0);
    check_example();
}

static size_t to_utf16(const unsigned char *in, size_t n, unsigned char *out, int be)
{
    size_t m = 0;
    out[m++] = be ? 0xFE : 0xFF;
    out[m++] = be ? 0xFF : 0xFE;
    for (size_t i = 0; i < n; i++) {
        out[m++] = be ? 0 : in[i];
        out[m++] = be ? in[i] : 0;
    }
    return m;
}

static void test_utf16(void **state)
{
    (void)state;
    static unsigned char raw[W32_INI_MAX_FILE], conv[2 * W32_INI_MAX_FILE + 2];
    size_t n = read_doc_ini(raw, sizeof raw);
    assert_int_equal(load(conv, to_utf16(raw, n, conv, 0)), 0);
    check_example();
    assert_int_equal(load(conv, to_utf16(raw, n, conv, 1)), 0);
    check_example();
    /* A character beyond ASCII (U+00E9) on line 3: refused, saying why. */
    unsigned char bad[] = {0xFF, 0xFE, '[', 0, 't', 0, ']', 0, '\r', 0, '\n', 0, ';', 0, '\n', 0, ';', 0, 0xE9, 0};
    assert_int_equal(load(bad, sizeof bad), -1);
    assert_non_null(strstr(g_err, "line 3: the file is UTF-16"));
    assert_non_null(strstr(g_err, "U+00E9"));
    assert_non_null(strstr(g_err, "save it as ANSI or UTF-8"));
    /* Cut short, or without its mark. */
    assert_int_equal(load(bad, sizeof bad - 1), -1);
    assert_non_null(strstr(g_err, "odd number of bytes"));
    assert_int_equal(load(conv + 2, 40), -1);
    assert_non_null(strstr(g_err, "UTF-16 without a byte-order mark"));
}

static void test_not_text(void **state)
{
    (void)state;
    static unsigned char big[W32_INI_MAX_FILE + 1];
    memset(big, ';', sizeof big);
    assert_int_equal(load(big, sizeof big), -1);
    assert_non_null(strstr(g_err, "more than the 65536"));
    const char nul[] = "[topology]\n0 = disk\n\0\n";
    assert_int_equal(load(nul, sizeof nul - 1), -1);
    assert_non_null(strstr(g_err, "line 3: a NUL byte"));
    refused("[topology]\n0 = disk:\x01M\n", "line 2: a control character (code 1)", NULL);
}

static void test_syntax(void **state)
{
    (void)state;
    /* Blanks, tabs, case, comments of both kinds, empty sections. */
    assert_int_equal(load_str("\t; comment\n# comment\n\n  [ TopoLogy ]  ; c\n\tBUS\t=\tnarrow\t# c\n"
                              "0=disk:1M:vendor=A#B;C\n  [wnaspi32]\n"),
                     0);
    assert_true(g_cfg.has_topology);
    assert_int_equal(g_cfg.spec.width, 8);
    assert_string_equal(g_cfg.spec.t[0].vendor, "A#B;C"); /* no blank before: not a comment */
    assert_string_equal(g_cfg.log, "");
    /* No [topology]: a file may set the log only. */
    assert_int_equal(load_str("[wnaspi32]\nlog = \"logs\\a ;b.log\" ; here\n"), 0);
    assert_false(g_cfg.has_topology);
    assert_string_equal(g_cfg.log, DIR "logs\\a ;b.log");
    assert_int_equal(load_str("[wnaspi32]\nlog = off\n"), 0);
    assert_string_equal(g_cfg.log, "");
    assert_int_equal(load_str(""), 0);
    refused("[topology\n", "line 1: a section header without its ']'", NULL);
    refused("[topology] x\n", "line 1: text after the section header's ']'", NULL);
    refused("\n[ ]\n", "line 2: an empty section name", NULL);
    refused("[devices]\n", "line 1: unknown section [devices]", "[wnaspi32] and [topology]");
    refused("[wnaspi32]\n = x\n", "line 2: '=' without a key", NULL);
    refused("[wnaspi32]\nlogfile = x\n", "line 2: unknown key 'logfile' in [wnaspi32]", NULL);
    refused("[wnaspi32]\nlog = a\nlog = b\n", "line 3: log is given twice (first on line 2)", NULL);
    refused("[topology]\n0 = disk:1M:file=\"C:\\x.img\n", "line 2: a '\"' without its closing one", NULL);
    refused("log = x\n", "line 1: 'log' comes before any [section]", NULL);
}

/* The one-line format earlier versions read is refused line by line. */
static void test_old_format(void **state)
{
    (void)state;
    refused("# old\nbus:narrow\n1:disk:2M\n", "line 2: 'bus:narrow' is not a [section], a key = value", NULL);
    /* Issue 41 defect 5: the whole line is shown, and what to write instead. */
    refused("1:disk:2M:vendor=X\n", "line 1: '1:disk:2M:vendor=X' is a device line of the one-line format",
            "under [topology] as 1 = disk:2M:vendor=X");
    refused("bus:narrow\n", "line 1: 'bus:narrow' is not a [section]", "devices go under [topology]");
    /* A device under [wnaspi32]: where it belongs is said. */
    refused("[wnaspi32]\n0 = disk:1M\n", "line 2: unknown key '0' in [wnaspi32] (it has log;",
            "devices and bus go under [topology]");
    refused("[wnaspi32]\nbus = narrow\n", "line 2: unknown key 'bus' in [wnaspi32]", "go under [topology]");
}

/* Issue 41 defect 4: a comment must not silently swallow part of a path,
 * and an empty [topology] is an empty bus, not the default devices. */
static void test_comment_in_path(void **state)
{
    (void)state;
    refused("[topology]\n0 = disk:64K:file=C:\\pcam\\my disk #0.img:vendor=X\n",
            "line 2: target 0: a comment ('#0.img:vendor=X') right after the unquoted path of file= "
            "('C:\\pcam\\my disk')",
            "quote the path");
    refused("[wnaspi32]\nlog = C:\\my logs ;1.log\n",
            "line 2: a comment (';1.log') right after the unquoted path of log= ('C:\\my logs')", "quote the path");
    assert_int_equal(load_str("[wnaspi32]\nlog = off ; no log\n"), 0); /* off is no path */
    assert_string_equal(g_cfg.log, "");
    /* Quoted, or a comment after other options: taken. */
    assert_int_equal(load_str("[topology]\n0 = disk:64K:file=\"C:\\pcam\\my disk #0.img\":vendor=X ; ok\n"
                              "1 = disk:64K:noua # ok\n"),
                     0);
    assert_string_equal(g_cfg.spec.t[0].file, "C:\\pcam\\my disk #0.img");
    assert_string_equal(g_cfg.spec.t[0].vendor, "X");
    /* An empty [topology]: a bus with no device. */
    assert_int_equal(load_str("[topology]\n; nothing yet\n"), 0);
    assert_true(g_cfg.has_topology);
    for (unsigned id = 0; id < PCAM_SIM_MAX_IDS; id++)
        assert_int_equal(g_cfg.spec.t[id].kind, SPEC_NONE);
    assert_int_equal(g_cfg.spec.width, 16);
    /* No [topology] at all: the default (has_topology false). */
    assert_int_equal(load_str("[wnaspi32]\n"), 0);
    assert_false(g_cfg.has_topology);
}

/* A broken file's log= still names the log (it comes first). */
static void test_log_kept_on_error(void **state)
{
    (void)state;
    refused("[wnaspi32]\nlog = C:\\logs\\aspi.log\n[topology]\n1 = disk:2X\n", "line 4: '1:disk:2X': bad size",
            NULL);
    assert_true(g_cfg.log_given);
    assert_string_equal(g_cfg.log, "C:\\logs\\aspi.log");
}

static void test_absurd(void **state)
{
    (void)state;
    static char line[3000];
    memset(line, 'x', sizeof line - 1);
    line[sizeof line - 1] = '\0';
    memcpy(line, "[topology]\n0 = ", 15);
    refused(line, "line 2 is longer than 1023 characters", NULL);
    /* Every ID twice would outgrow nothing: the second is refused. */
    refused("[topology]\n3 = disk\n\n3 = cd\n", "line 4: target 3 is given twice (first on line 2)", NULL);
    refused("[topology]\nbus = narrow\nbus = wide\n", "line 3: bus is given twice", NULL);
    refused("[topology]\n16 = disk\n", "line 2: target ID 16 is outside 0..15", NULL);
    refused("[topology]\n123 = disk\n", "line 2: '123' is neither bus nor a target ID", NULL);
    refused("[topology]\nx = disk\n", "line 2: 'x' is neither bus nor a target ID", NULL);
    refused("[topology]\n1 = disk:1M,2:disk\n", "line 2: target 1: a ',' in the option '1M,2'", NULL);
    refused("[topology]\nbus = narrow,2:disk\n", "line 2: bus = narrow,2:disk: a ','", NULL);
    refused("[topology]\nbus = slow\n", "line 2: bus option 'slow'", NULL);
    refused("[topology]\n7 = disk\n", "[topology]: target 7 is the initiator's ID", NULL);
    refused("[topology]\n9 = disk\nbus = narrow\n", "[topology]: target 9 does not fit on a narrow bus", NULL);
    refused("[topology]\nbus = id=9:narrow\n0 = disk\n", "line 2: the initiator's ID 9 does not fit on a narrow bus", NULL);
    /* A bus without devices is pcamctl's grammar too: an empty bus. */
    assert_int_equal(load_str("[topology]\nbus = wide\n"), 0);
    assert_true(g_cfg.has_topology);
}

static void test_file_paths(void **state)
{
    (void)state;
    assert_int_equal(load_str("[topology]\n"
                              "0 = disk:1M:file=C:\\images\\d0.img:noua\n"
                              "1 = disk:1M:file=\\\\server\\share\\d1.img:bs=4096\n"
                              "2 = disk:1M:file=\"D:\\my images\\d #2.img\":noua\n"
                              "3 = disk:1M:file=\\\\?\\C:\\d3.img\n"
                              "4 = disk:1M:file=sub\\d4.img\n"
                              "5 = disk:1M:file=\\d5.img\n"
                              "6 = disk:1M:file=c:/fwd/d6.img\n"),
                     0);
    const simspec *s = &g_cfg.spec;
    assert_string_equal(s->t[0].file, "C:\\images\\d0.img");
    assert_false(s->t[0].tc.ua_power_on);
    assert_string_equal(s->t[1].file, "\\\\server\\share\\d1.img");
    assert_int_equal(s->t[1].block_size, 4096);
    assert_string_equal(s->t[2].file, "D:\\my images\\d #2.img");
    assert_false(s->t[2].tc.ua_power_on);
    assert_string_equal(s->t[3].file, "\\\\?\\C:\\d3.img");
    assert_string_equal(s->t[4].file, DIR "sub\\d4.img");
    assert_string_equal(s->t[5].file, "C:\\d5.img");
    assert_string_equal(s->t[6].file, "c:/fwd/d6.img");
    /* A one-letter name reads as a drive; quoted, it is a name. */
    assert_int_equal(load_str("[topology]\n0 = disk:1M:file=\"a\":noua\n"), 0);
    assert_string_equal(g_cfg.spec.t[0].file, DIR "a");
    assert_false(g_cfg.spec.t[0].tc.ua_power_on);
    refused("[topology]\n0 = disk:file=a:noua\n", "file=a:...: a drive letter", NULL);
    refused("[topology]\n0 = disk:file=C:d0.img\n", "line 2: target 0: file=C:...: a drive letter without a '\\'",
            NULL);
    refused("[topology]\n0 = cd:file=d.img\n", "line 2: target 0: file= is for a disk", NULL);
    refused("[topology]\n0 = disk:luns=2:file=d.img\n", "line 2: target 0: file= needs a single LUN", NULL);
    refused("[topology]\n0 = disk:file=aa:file=b\n", "file= is given twice", NULL);
    refused("[topology]\n0 = disk:file=\n", "line 2: target 0: file= needs a path", NULL);
    refused("[topology]\n0 = disk:file=\"a\"b\n", "text after file=\"...\"", NULL);
    refused("[topology]\n0 = disk:vendor=\"a\":file=b\n", "a '\"' in the option 'vendor=\"a\"'", NULL);
}

static void test_resolve(void **state)
{
    (void)state;
    char out[W32_PATH], err[300];
    static const struct {
        const char *dir, *path, *want;
    } ok[] = {
        {"C:\\app\\", "C:\\x\\y.img", "C:\\x\\y.img"},
        {"C:\\app\\", "d.img", "C:\\app\\d.img"},
        {"C:\\app\\", "..\\d.img", "C:\\app\\..\\d.img"},
        {"D:\\app\\", "\\d.img", "D:\\d.img"},
        {"\\\\srv\\share\\app\\", "\\d.img", "\\\\srv\\share\\d.img"},
        {"\\\\srv\\share\\app\\", "d.img", "\\\\srv\\share\\app\\d.img"},
        {"C:\\app\\", "\\\\srv\\s\\d.img", "\\\\srv\\s\\d.img"},
        {"", "d.img", "d.img"},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        assert_int_equal(w32_path_resolve(ok[i].dir, ok[i].path, out, sizeof out, err, sizeof err), 0);
        assert_string_equal(out, ok[i].want);
    }
    static char longdir[300];
    memset(longdir, 'a', 250);
    longdir[250] = '\\';
    assert_int_equal(w32_path_resolve(longdir, "0123456789.img", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "a path longer than 259 characters"));
    assert_int_equal(w32_path_resolve("C:\\", "C:d.img", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "'C:d.img' is relative to the current folder of drive C:"));
    assert_int_equal(w32_path_resolve("C:\\", "", out, sizeof out, err, sizeof err), -1);
    assert_non_null(strstr(err, "an empty path"));
}

/* PCAM_ASPI_SIM's one-line form: pcamctl's items, the same file=. */
static void test_one_line(void **state)
{
    (void)state;
    simspec s;
    char err[400];
    assert_int_equal(w32_config_topology("bus:narrow, 0:disk:1M:file=C:\\i\\d.img:noua ,"
                                         "1:disk:1M:file=\"x,y.img\",3:cd:empty",
                                         "", &s, err, sizeof err),
                     0);
    assert_int_equal(s.width, 8);
    assert_string_equal(s.t[0].file, "C:\\i\\d.img");
    assert_false(s.t[0].tc.ua_power_on);
    assert_string_equal(s.t[1].file, "x,y.img");
    assert_int_equal(s.t[3].bytes, 0);
    assert_int_equal(w32_config_topology("0:disk,7:disk", "", &s, err, sizeof err), -1);
    assert_string_equal(err, "target 7 is the initiator's ID");
    assert_int_equal(w32_config_topology("0:disk,0:cd", "", &s, err, sizeof err), -1);
    assert_string_equal(err, "target 0 is given twice (first on item 1)");
    assert_int_equal(w32_config_topology("disk", "", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "expected ID:KIND"));
    assert_int_equal(w32_config_topology(" , ", "", &s, err, sizeof err), -1);
    assert_non_null(strstr(err, "empty topology"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_doc_example), cmocka_unit_test(test_crlf_bom_cr),
        cmocka_unit_test(test_utf16),       cmocka_unit_test(test_not_text),
        cmocka_unit_test(test_syntax),      cmocka_unit_test(test_old_format),
        cmocka_unit_test(test_log_kept_on_error), cmocka_unit_test(test_absurd),
        cmocka_unit_test(test_file_paths),  cmocka_unit_test(test_resolve),
        cmocka_unit_test(test_one_line),    cmocka_unit_test(test_comment_in_path),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
