/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * What wnaspi32.dll knows before it starts a bus: which wnaspi32.ini it
 * read (beside the program first, then beside the DLL), what it says
 * (w32_config.c), and the messages of the initialisation, which go to the
 * debugger always, to stderr when they are errors (after the
 * initialisation only when the log is on), and to the log file
 * when the ini names one or when ASPI could not start (docs/aspi.md).
 *
 * The lines of one initialisation are kept in memory until it ends: only
 * then is it known whether a log is wanted and where, and a failure must
 * leave the whole story in the log, not just its last line.
 */
#include "w32_host.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "w32_config.h"
#include "w32_ini.h"

#define LOG_KEEP 16384u        /* initialisation lines kept for the log */
#define LOG_MAX (64u * 1024u)  /* a longer log starts again: "small" */

static char g_exe_dir[W32_PATH];
static char g_ini[W32_PATH];      /* the ini read, "" = none */
static char g_ini_dir[W32_PATH];
static w32_config g_cfg;
static char g_log[W32_PATH];      /* the log in use after initialisation, "" = none */
static char g_keep[LOG_KEEP];
static size_t g_kept;
static bool g_keeping = true;
static bool g_started;            /* the initialisation has ended */

static void folder_of(const char *path, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", path);
    char *slash = strrchr(dir, '\\');
    if (slash == NULL)
        slash = strrchr(dir, '/');
    if (slash != NULL)
        slash[1] = '\0';
    else
        dir[0] = '\0';
}

/* One line of the log: time, process, message, CR LF. */
static int log_line(char *out, size_t cap, const char *msg)
{
    SYSTEMTIME t;
    GetLocalTime(&t);
    return snprintf(out, cap, "%04u-%02u-%02u %02u:%02u:%02u [%lu] %s\r\n", t.wYear, t.wMonth, t.wDay, t.wHour,
                    t.wMinute, t.wSecond, (unsigned long)GetCurrentProcessId(), msg);
}

static bool append_file(const char *path, const char *text, size_t len)
{
    HANDLE f = CreateFileA(path, FILE_APPEND_DATA, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_ALWAYS,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE)
        return false;
    LARGE_INTEGER size;
    if (GetFileSizeEx(f, &size) && size.QuadPart > (LONGLONG)LOG_MAX) {
        CloseHandle(f);
        f = CreateFileA(path, GENERIC_WRITE, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, CREATE_ALWAYS,
                        FILE_ATTRIBUTE_NORMAL, NULL);
        if (f == INVALID_HANDLE_VALUE)
            return false;
    }
    DWORD done = 0;
    BOOL ok = WriteFile(f, text, (DWORD)len, &done, NULL);
    CloseHandle(f);
    return ok && done == len;
}

static void emit(bool error, const char *msg)
{
    char line[700];
    /* The program's stderr is the program's: an error of the initialisation
     * goes there (ASPI may not come up), a later one only with a log on. */
    if (error && (!g_started || g_log[0] != '\0')) {
        fprintf(stderr, "wnaspi32 (pcam): %s\n", msg);
        fflush(stderr);
    }
    snprintf(line, sizeof line, "wnaspi32 (pcam): %s\n", msg);
    OutputDebugStringA(line);
    int n = log_line(line, sizeof line, msg);
    if (n < 0)
        return;
    size_t len = (size_t)n < sizeof line ? (size_t)n : sizeof line - 1;
    if (g_keeping) {
        if (g_kept + len < sizeof g_keep) {
            memcpy(g_keep + g_kept, line, len);
            g_kept += len;
        }
    } else if (g_log[0] != '\0') {
        append_file(g_log, line, len);
    }
}

void w32_log(const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    emit(true, msg);
}

void w32_note(const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    emit(false, msg);
}

/* The whole file, decoded (w32_ini_decode); malloc'd, or NULL with err. */
static char *read_text(const char *path, char *err, size_t cap)
{
    HANDLE f = CreateFileA(path, GENERIC_READ, FILE_SHARE_READ | FILE_SHARE_WRITE, NULL, OPEN_EXISTING,
                           FILE_ATTRIBUTE_NORMAL, NULL);
    if (f == INVALID_HANDLE_VALUE) {
        snprintf(err, cap, "cannot open %s (error %lu)", path, (unsigned long)GetLastError());
        return NULL;
    }
    LARGE_INTEGER size;
    if (!GetFileSizeEx(f, &size) || size.QuadPart > (LONGLONG)W32_INI_MAX_FILE) {
        CloseHandle(f);
        snprintf(err, cap, "%s is larger than %u bytes: not a wnaspi32.ini", path, W32_INI_MAX_FILE);
        return NULL;
    }
    size_t len = (size_t)size.QuadPart;
    unsigned char *raw = malloc(len + 1);
    char *text = malloc(len + 1);
    DWORD got = 0;
    if (raw == NULL || text == NULL || !ReadFile(f, raw, (DWORD)len, &got, NULL) || got != len) {
        snprintf(err, cap, "cannot read %s (error %lu)", path, (unsigned long)GetLastError());
        free(text);
        text = NULL;
    } else {
        char why[300];
        if (w32_ini_decode(raw, len, text, len + 1, why, sizeof why) != 0) {
            snprintf(err, cap, "%s: %s", path, why);
            free(text);
            text = NULL;
        }
    }
    free(raw);
    CloseHandle(f);
    return text;
}

static bool exists(const char *path)
{
    DWORD a = GetFileAttributesA(path);
    return a != INVALID_FILE_ATTRIBUTES && (a & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

int w32_setup_read(char *err, size_t cap)
{
    char exe[W32_PATH], beside_exe[W32_PATH + 16], beside_dll[W32_PATH + 16];
    DWORD n = GetModuleFileNameA(NULL, exe, sizeof exe);
    if (n == 0 || n >= sizeof exe)
        exe[0] = '\0';
    folder_of(exe, g_exe_dir, sizeof g_exe_dir);
    w32_note("wnaspi32.dll %s (pcam, ASPI 4.60) loaded by %s", w32_dll_path(), exe);
    snprintf(beside_exe, sizeof beside_exe, "%swnaspi32.ini", g_exe_dir);
    snprintf(beside_dll, sizeof beside_dll, "%swnaspi32.ini", w32_dll_dir());
    const char *where;
    if (g_exe_dir[0] != '\0' && exists(beside_exe)) {
        where = "beside the program";
        snprintf(g_ini, sizeof g_ini, "%s", beside_exe);
    } else if (w32_dll_dir()[0] != '\0' && exists(beside_dll)) {
        where = "beside the DLL";
        snprintf(g_ini, sizeof g_ini, "%s", beside_dll);
    } else {
        if (_stricmp(g_exe_dir, w32_dll_dir()) == 0)
            w32_note("no wnaspi32.ini beside the program and the DLL (%s): default settings", beside_exe);
        else
            w32_note("no wnaspi32.ini beside the program (%s) or the DLL (%s): default settings", beside_exe,
                     beside_dll);
        return 0;
    }
    folder_of(g_ini, g_ini_dir, sizeof g_ini_dir);
    w32_note("settings: %s (%s; looked for beside the program first, then beside the DLL)", g_ini, where);
    char why[400];
    char *text = read_text(g_ini, why, sizeof why);
    if (text == NULL) {
        snprintf(err, cap, "%s", why);
        return -1;
    }
    int rc = w32_config_ini(text, g_ini_dir, &g_cfg, why, sizeof why);
    free(text);
    if (rc != 0) {
        /* PCAM_ASPI_SIM replaces the topology only: the file's other
         * settings (its log) still come from it, so a broken one is refused
         * with the variable set too (docs/aspi.md), and the message says so. */
        char env[8];
        DWORD en = GetEnvironmentVariableA("PCAM_ASPI_SIM", env, sizeof env);
        snprintf(err, cap, "%s: %s%s", g_ini, why,
                 en != 0 ? " (PCAM_ASPI_SIM is set, but it replaces only the topology: a broken wnaspi32.ini "
                           "is refused all the same; mend it or move it away)"
                         : "");
        return -1;
    }
    return 0;
}

const w32_config *w32_setup_config(void)
{
    return &g_cfg;
}

int w32_setup_topology_file(const char *path, simspec *spec, char *err, size_t cap)
{
    char full[W32_PATH], dir[W32_PATH], why[400];
    DWORD n = GetFullPathNameA(path, sizeof full, full, NULL);
    if (n == 0 || n >= sizeof full) {
        snprintf(err, cap, "cannot find the full path of %s", path);
        return -1;
    }
    folder_of(full, dir, sizeof dir);
    char *text = read_text(full, why, sizeof why);
    if (text == NULL) {
        snprintf(err, cap, "%s", why);
        return -1;
    }
    static w32_config c; /* holds a simspec: large */
    int rc = w32_config_ini(text, dir, &c, why, sizeof why);
    free(text);
    if (rc == 0 && !c.has_topology) {
        snprintf(why, sizeof why, "no [topology] section");
        rc = -1;
    }
    if (rc != 0) {
        snprintf(err, cap, "%s: %s", full, why);
        return -1;
    }
    *spec = c.spec;
    return 0;
}

/* Where a failure's log goes when the ini names none: beside the ini (or
 * the program), else the user's temporary folder (System32 is not
 * writable for most users). */
static bool open_default_log(void)
{
    char tmp[W32_PATH];
    snprintf(g_log, sizeof g_log, "%swnaspi32.log", g_ini[0] != '\0' ? g_ini_dir : g_exe_dir);
    if (append_file(g_log, "", 0))
        return true;
    DWORD n = GetTempPathA(sizeof tmp, tmp);
    if (n != 0 && n < sizeof tmp) {
        snprintf(g_log, sizeof g_log, "%swnaspi32.log", tmp);
        if (append_file(g_log, "", 0))
            return true;
    }
    g_log[0] = '\0';
    return false;
}

void w32_setup_done(bool failed)
{
    if (g_cfg.log[0] != '\0')
        w32_note("log: %s (the ini's log=)", g_cfg.log);
    g_keeping = false;
    if (g_cfg.log[0] != '\0') {
        snprintf(g_log, sizeof g_log, "%s", g_cfg.log);
        if (!append_file(g_log, g_keep, g_kept)) {
            DWORD e = GetLastError();
            g_log[0] = '\0'; /* before saying so: the message must not try it again */
            w32_log("cannot write the log file %s (error %lu)", g_cfg.log, (unsigned long)e);
        }
    }
    if (failed && g_log[0] == '\0') {
        if (open_default_log())
            append_file(g_log, g_keep, g_kept);
    }
    if (failed) {
        if (g_log[0] != '\0')
            w32_log("ASPI is not available (SS_FAILED_INIT); the reasons are in %s", g_log);
        else
            w32_log("ASPI is not available (SS_FAILED_INIT); no log file could be written");
    }
    g_kept = 0;
    g_started = true;
}
