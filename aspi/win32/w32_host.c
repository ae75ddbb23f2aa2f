/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The Win32 host of the ASPI layer inside wnaspi32.dll: what
 * include/pcam/pcam_aspi.h asks of an embedder, in Win32 terms.
 *  - locks: a CRITICAL_SECTION per adapter (the bus lock) and one for the
 *    manager's buffer table; waiting threads sleep on a CONDITION_VARIABLE;
 *  - a service thread per adapter runs the bus (its back-end's step) and is
 *    the only thread that calls posting routines, as real ASPI managers do
 *    (may_deliver answers true there alone);
 *  - SRB_EVENT_NOTIFY: SetEvent on the manager's own duplicate of the
 *    client's HANDLE, taken when the request is accepted;
 *  - GetASPI32Buffer: VirtualAlloc (page-aligned, zeroed);
 *  - first-call initialisation (InitOnceExecuteOnce) behind every export,
 *    never in DllMain, where the loader lock forbids starting threads and
 *    waiting for them. The module pins itself once initialised: clients
 *    that FreeLibrary it cannot unload code a service thread still runs.
 * The exports themselves are the portable layer's (aspi/aspi_cmd.c,
 * aspi_manager.c); the .def file names these wrappers under the ASPI names.
 * Never a policy of its own: statuses all come from the layer.
 */
#include "w32_host.h"

#include <stdio.h>
#include <string.h>

#include "wnaspi32.h"

static HMODULE g_module;
static INIT_ONCE g_once = INIT_ONCE_STATIC_INIT;
static CRITICAL_SECTION g_cs;
static w32_adapter g_ad[PCAM_ASPI_MAX_ADAPTERS];
static unsigned g_nad;
static char g_dir[MAX_PATH];
static char g_path[MAX_PATH];

const char *w32_dll_dir(void)
{
    return g_dir;
}

const char *w32_dll_path(void)
{
    return g_path;
}

uint64_t w32_real_ns(void)
{
    static LARGE_INTEGER freq;
    LARGE_INTEGER now;
    if (freq.QuadPart == 0)
        QueryPerformanceFrequency(&freq);
    QueryPerformanceCounter(&now);
    uint64_t t = (uint64_t)now.QuadPart, f = (uint64_t)freq.QuadPart;
    return (t / f) * 1000000000ull + (t % f) * 1000000000ull / f;
}

/* ---- manager-wide services ---- */

static void g_lock(void *ctx)
{
    (void)ctx;
    EnterCriticalSection(&g_cs);
}

static void g_unlock(void *ctx)
{
    (void)ctx;
    LeaveCriticalSection(&g_cs);
}

static void *buf_alloc(void *ctx, size_t len, size_t align)
{
    (void)ctx;
    (void)align; /* VirtualAlloc hands out whole pages (64 KiB granules) */
    return VirtualAlloc(NULL, len, MEM_COMMIT | MEM_RESERVE, PAGE_READWRITE);
}

static void buf_free(void *ctx, void *p, size_t len)
{
    (void)ctx;
    (void)len;
    VirtualFree(p, 0, MEM_RELEASE);
}

/* The manager's own handle to the client's event, taken as the request is
 * accepted: the client may close its handle the moment it sees the status
 * final, before the service thread signals, and a handle number it gets
 * again must never be signalled for an earlier request. */
static void *hold_event(void *ctx, void *event)
{
    (void)ctx;
    HANDLE own = NULL, self = GetCurrentProcess();
    if (!DuplicateHandle(self, (HANDLE)event, self, &own, EVENT_MODIFY_STATE, FALSE, 0)) {
        w32_log("SRB_EVENT_NOTIFY handle %p is not a handle (error %lu): the request runs, nothing is "
                "signalled", event, (unsigned long)GetLastError());
        return NULL;
    }
    return own;
}

static void signal_event(void *ctx, void *event)
{
    (void)ctx;
    if (!SetEvent((HANDLE)event))
        w32_log("SetEvent(%p) failed (error %lu): the SRB_EVENT_NOTIFY handle is not an event",
                event, (unsigned long)GetLastError());
    CloseHandle((HANDLE)event);
}

/* ---- adapter services ---- */

static void op_lock(void *ctx)
{
    w32_adapter *a = ctx;
    EnterCriticalSection(&a->cs);
}

static void op_unlock(void *ctx)
{
    w32_adapter *a = ctx;
    LeaveCriticalSection(&a->cs);
}

static bool on_service(const w32_adapter *a)
{
    return a->thread != NULL && GetCurrentThreadId() == a->thread_id;
}

/* A client thread sleeps until the service thread changed something (the
 * bound only guards against a lost wake). The service thread itself (a
 * posting routine that waits) runs the bus here. */
static void op_wait(void *ctx)
{
    w32_adapter *a = ctx;
    DWORD ms = INFINITE;
    if (a->thread != NULL && !on_service(a)) {
        SleepConditionVariableCS(&a->cv, &a->cs, 1000);
        return;
    }
    if (a->be->step(a, &ms))
        return;
    SleepConditionVariableCS(&a->cv, &a->cs, ms == INFINITE || ms > 20 ? 20 : ms);
}

static void op_wake(void *ctx)
{
    w32_adapter *a = ctx;
    WakeAllConditionVariable(&a->cv);
}

static bool op_may_deliver(void *ctx)
{
    const w32_adapter *a = ctx;
    return a->thread == NULL || on_service(a);
}

static const pcam_aspi_adapter_ops adapter_ops = {
    op_lock, op_unlock, op_wait, op_wake, op_wake, NULL, op_may_deliver,
};

static DWORD WINAPI service(LPVOID arg)
{
    w32_adapter *a = arg;
    EnterCriticalSection(&a->cs);
    while (a->stop == 0) {
        DWORD ms = INFINITE;
        /* Completions a client thread queued are this thread's to run. */
        if (a->be->step(a, &ms) || a->ad.nq_head != NULL) {
            LeaveCriticalSection(&a->cs);
            pcam_aspi_deliver(&a->ad);
            EnterCriticalSection(&a->cs);
            continue;
        }
        SleepConditionVariableCS(&a->cv, &a->cs, ms);
    }
    LeaveCriticalSection(&a->cs);
    return 0;
}

int w32_attach(const w32_backend *be, void *be_ctx, pcam_bus *bus, char *err, size_t cap)
{
    if (g_nad >= PCAM_ASPI_MAX_ADAPTERS) {
        snprintf(err, cap, "more than %u adapters", (unsigned)PCAM_ASPI_MAX_ADAPTERS);
        return -1;
    }
    w32_adapter *a = &g_ad[g_nad];
    memset(a, 0, sizeof *a);
    a->be = be;
    a->be_ctx = be_ctx;
    a->bus = bus;
    InitializeCriticalSection(&a->cs);
    InitializeConditionVariable(&a->cv);
    pcam_err rc = pcam_aspi_add_adapter(&a->ad, bus, &adapter_ops, a, a->reqs, W32_REQS, NULL);
    if (rc != PCAM_OK) {
        snprintf(err, cap, "cannot register the adapter: %s", pcam_strerror(rc));
        DeleteCriticalSection(&a->cs);
        return -1;
    }
    g_nad++;
    /* The thread id must be known before the thread runs anything. */
    EnterCriticalSection(&a->cs);
    a->thread = CreateThread(NULL, 0, service, a, 0, &a->thread_id);
    LeaveCriticalSection(&a->cs);
    if (a->thread == NULL) {
        snprintf(err, cap, "cannot start the service thread (error %lu)", (unsigned long)GetLastError());
        return -1;
    }
    return 0;
}

/* ---- first-call initialisation ---- */

static const w32_backend *pick_backend(void)
{
    char name[32];
    DWORD n = GetEnvironmentVariableA("PCAM_ASPI_BACKEND", name, sizeof name);
    if (n == 0 || (n < sizeof name && strcmp(name, "sim") == 0))
        return &w32_sim_backend;
    /* The seam for a chip driven from Windows: a second w32_backend. None
     * exists yet, and pretending one does would be worse than saying so. */
    w32_log("PCAM_ASPI_BACKEND=%s: no such back-end on Windows (only \"sim\"); ASPI stays "
            "uninitialised", n < sizeof name ? name : "(too long)");
    return NULL;
}

static void stop_adapters(void)
{
    for (unsigned i = 0; i < g_nad; i++) {
        w32_adapter *a = &g_ad[i];
        if (a->thread == NULL)
            continue;
        EnterCriticalSection(&a->cs);
        a->stop = 1;
        WakeAllConditionVariable(&a->cv);
        LeaveCriticalSection(&a->cs);
        WaitForSingleObject(a->thread, INFINITE);
        CloseHandle(a->thread);
        a->thread = NULL;
    }
}

static BOOL CALLBACK init_once(PINIT_ONCE once, PVOID param, PVOID *context)
{
    (void)once;
    (void)param;
    (void)context;
    pcam_aspi_host host;
    memset(&host, 0, sizeof host);
    InitializeCriticalSection(&g_cs);
    host.lock = g_lock;
    host.unlock = g_unlock;
    host.buf_alloc = buf_alloc;
    host.buf_free = buf_free;
    host.signal_event = signal_event;
    host.hold_event = hold_event;
    if (pcam_aspi_init(&host) != PCAM_OK)
        return TRUE;

    DWORD n = g_module != NULL ? GetModuleFileNameA(g_module, g_dir, sizeof g_dir) : 0;
    if (n == 0 || n >= sizeof g_dir)
        g_dir[0] = '\0';
    memcpy(g_path, g_dir, sizeof g_path);
    char *slash = strrchr(g_dir, '\\');
    if (slash != NULL)
        slash[1] = '\0';
    else
        g_dir[0] = '\0';

    char err[600];
    err[0] = '\0';
    const w32_backend *be = NULL;
    if (w32_setup_read(err, sizeof err) == 0)
        be = pick_backend();
    if (be == NULL || be->open(err, sizeof err) != 0) {
        if (err[0] != '\0')
            w32_log("%s; ASPI stays uninitialised", err);
        stop_adapters();
        pcam_aspi_shutdown(); /* GetASPI32SupportInfo: SS_FAILED_INIT */
        w32_setup_done(true);
        return TRUE;
    }
    w32_setup_done(false);
    /* Service threads run this module's code from now on. */
    HMODULE pin;
    if (g_module != NULL)
        GetModuleHandleExA(GET_MODULE_HANDLE_EX_FLAG_FROM_ADDRESS | GET_MODULE_HANDLE_EX_FLAG_PIN,
                           (LPCSTR)(const void *)&g_once, &pin);
    return TRUE;
}

static void ensure_init(void)
{
    InitOnceExecuteOnce(&g_once, init_once, NULL, NULL);
}

/* ---- the exports (named by wnaspi32.def) ---- */

DWORD ASPI_CDECL w32_GetASPI32SupportInfo(void);
DWORD ASPI_CDECL w32_SendASPI32Command(LPSRB srb);
DWORD ASPI_CDECL w32_GetASPI32DLLVersion(void);
BOOL ASPI_CDECL w32_TranslateASPI32Address(PDWORD path, PDWORD devnode);
BOOL ASPI_CDECL w32_GetASPI32Buffer(PASPI32BUFF buf);
BOOL ASPI_CDECL w32_FreeASPI32Buffer(PASPI32BUFF buf);

DWORD ASPI_CDECL w32_GetASPI32SupportInfo(void)
{
    ensure_init();
    return GetASPI32SupportInfo();
}

DWORD ASPI_CDECL w32_SendASPI32Command(LPSRB srb)
{
    ensure_init();
    return SendASPI32Command(srb);
}

DWORD ASPI_CDECL w32_GetASPI32DLLVersion(void)
{
    ensure_init();
    return GetASPI32DLLVersion();
}

BOOL ASPI_CDECL w32_TranslateASPI32Address(PDWORD path, PDWORD devnode)
{
    ensure_init();
    return TranslateASPI32Address(path, devnode);
}

BOOL ASPI_CDECL w32_GetASPI32Buffer(PASPI32BUFF buf)
{
    ensure_init();
    return GetASPI32Buffer(buf);
}

BOOL ASPI_CDECL w32_FreeASPI32Buffer(PASPI32BUFF buf)
{
    ensure_init();
    return FreeASPI32Buffer(buf);
}

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved);

BOOL WINAPI DllMain(HINSTANCE inst, DWORD reason, LPVOID reserved)
{
    (void)reserved;
    if (reason == DLL_PROCESS_ATTACH) {
        g_module = inst;
        DisableThreadLibraryCalls(inst);
    }
    /* No teardown at detach: once initialised the module is pinned, and at
     * process exit Windows has already ended the service threads. */
    return TRUE;
}
