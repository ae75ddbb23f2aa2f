/* SPDX-License-Identifier: BSD-2-Clause */
/* Shared fixture of the ASPI tests (see aspi_test.h). */
#define _POSIX_C_SOURCE 200809L
#include "aspi_test.h"

#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int fix_setup(aspi_simhost *h, const pcam_sim_config *sc, bool threaded, size_t nreqs)
{
    return fix_setup_ex(h, sc, NULL, threaded, nreqs, false);
}

int fix_setup_ex(aspi_simhost *h, const pcam_sim_config *sc, const pcam_aspi_host *hs,
                 bool threaded, size_t nreqs, bool post_on_service)
{
    pcam_aspi_host host;
    pcam_sim_config cfg;
    if (sc != NULL) {
        cfg = *sc;
    } else {
        pcam_sim_config_defaults(&cfg);
        cfg.width = 8;
    }
    if (hs != NULL)
        host = *hs;
    else
        aspi_simhost_services(&host);
    if (pcam_aspi_init(&host) != PCAM_OK)
        return -1;
    if (aspi_simhost_init(h, &cfg, NULL) != 0)
        return -2;
    if (aspi_simhost_add_disk(h, 0, 0, DISK_BLOCKS, NULL) == NULL ||
        aspi_simhost_add_disk(h, 2, 0, DISK_BLOCKS, NULL) == NULL)
        return -3;
    if (pcam_sim_add_target(h->sim, 4, NULL) != 0)
        return -4;
    pcam_simlu_init_cdrom(pcam_sim_lu(h->sim, 4, 0), NULL, 0, "PCAMSIM", "CDROM");
    if (aspi_simhost_scan(h) != 0)
        return -5;
    h->post_on_service = post_on_service;
    /* The core's scan clears each LU's power-on UNIT ATTENTION (issue 16);
     * these cases meet it as the target's first error, so it is raised
     * again, as a freshly powered-on device would have it. */
    static const uint8_t ids[3] = {0, 2, 4};
    for (unsigned i = 0; i < 3; i++) {
        pcam_simlu *lu = pcam_sim_lu(h->sim, ids[i], 0);
        lu->ua_pending = true;
        lu->ua_asc = 0x29;
        lu->ua_ascq = 0x00;
    }
    if (aspi_simhost_attach(h, nreqs, threaded) != 0)
        return -6;
    fix_post_reset();
    return 0;
}

void fix_teardown(aspi_simhost *h)
{
    aspi_simhost_fini(h);
    pcam_aspi_shutdown();
}

/* ---- posting recorder ---- */

#define POST_SLOTS 1024
static pthread_mutex_t post_lock = PTHREAD_MUTEX_INITIALIZER;
static const void *post_srb[POST_SLOTS];
static unsigned post_n[POST_SLOTS];
static unsigned post_total;

void ASPI_CDECL fix_post(void *srb)
{
    pthread_mutex_lock(&post_lock);
    post_total++;
    for (unsigned i = 0; i < POST_SLOTS; i++) {
        if (post_srb[i] == srb || post_srb[i] == NULL) {
            post_srb[i] = srb;
            post_n[i]++;
            break;
        }
    }
    pthread_mutex_unlock(&post_lock);
}

unsigned fix_post_count(const void *srb)
{
    unsigned n = 0;
    pthread_mutex_lock(&post_lock);
    for (unsigned i = 0; i < POST_SLOTS && post_srb[i] != NULL; i++)
        if (post_srb[i] == srb)
            n = post_n[i];
    pthread_mutex_unlock(&post_lock);
    return n;
}

unsigned fix_post_total(void)
{
    pthread_mutex_lock(&post_lock);
    unsigned n = post_total;
    pthread_mutex_unlock(&post_lock);
    return n;
}

void fix_post_reset(void)
{
    pthread_mutex_lock(&post_lock);
    memset(post_srb, 0, sizeof post_srb);
    memset(post_n, 0, sizeof post_n);
    post_total = 0;
    pthread_mutex_unlock(&post_lock);
}

void fix_set_proc(LPVOID *field, void(ASPI_CDECL *fn)(void *))
{
    LPVOID p;
    memcpy(&p, &fn, sizeof p);
    memcpy(field, &p, sizeof p);
}

void fix_exec(SRB_ExecSCSICmd *s, BYTE ha, BYTE target, BYTE lun, BYTE flags, void *buf,
              DWORD len, const BYTE *cdb, BYTE cdb_len, BYTE sense_len)
{
    memset(s, 0, sizeof *s);
    s->SRB_Cmd = SC_EXEC_SCSI_CMD;
    s->SRB_HaId = ha;
    s->SRB_Flags = flags;
    s->SRB_Target = target;
    s->SRB_Lun = lun;
    s->SRB_BufLen = len;
    s->SRB_BufPointer = buf;
    s->SRB_SenseLen = sense_len;
    s->SRB_CDBLen = cdb_len;
    memcpy(s->CDBByte, cdb, cdb_len);
    if ((flags & SRB_POSTING) != 0)
        fix_set_proc(&s->SRB_PostProc, fix_post);
}

BYTE fix_status(const SRB_ExecSCSICmd *s)
{
    return __atomic_load_n(&s->SRB_Status, __ATOMIC_ACQUIRE);
}

BYTE fix_wait(aspi_simhost *h, BYTE *status)
{
    if (!h->threaded) {
        aspi_simhost_drain(h, 10000000);
        return __atomic_load_n(status, __ATOMIC_ACQUIRE);
    }
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        BYTE st = __atomic_load_n(status, __ATOMIC_ACQUIRE);
        if (st != SS_PENDING)
            return st;
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 60)
            return 0xFF;
        sched_yield();
    }
}

bool fix_idle(aspi_simhost *h)
{
    if (!h->threaded)
        return aspi_simhost_drain(h, 10000000);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    while (pcam_aspi_in_flight(&h->ad) != 0) {
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (t.tv_sec - t0.tv_sec > 60)
            return false;
        sched_yield();
    }
    return true;
}

bool fix_memcheck(void)
{
    return getenv("PCAM_UNDER_MEMCHECK") != NULL;
}
