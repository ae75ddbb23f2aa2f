/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Task sets and the mechanism of the simulated targets.
 *
 * Each LU has one mechanism that works on one task at a time, for the time
 * pcam_simlu_service() gives. It picks the next task (SAM-2 task attributes):
 * - a task whose connection holds the bus waiting for it (no disconnect);
 * - HEAD OF QUEUE tasks, oldest first, ahead of everything;
 * - an ORDERED task is a barrier: tasks older than it may still run, no
 *   younger task starts while it is in the set, and it starts only when
 *   every older task has left the set (status sent);
 * - otherwise shortest seek first (pcam_simlu_seek_cost from the head's
 *   position), oldest first on ties. This is what lets an old command far
 *   from the head starve behind a stream of nearby ones, as real drives did.
 * Untagged tasks count as SIMPLE.
 *
 * Media effects happen when the mechanism finishes a task, in service
 * order: a WRITE is applied then, a READ's data is (re)copied then, so data
 * follows the order the target really executed.
 */
#include <stdlib.h>
#include <string.h>

#include "sim_internal.h"

sim_task *simk_new(sim_target *t, uint8_t lun)
{
    sim_task *k = calloc(1, sizeof *k), **pp;

    if (k == NULL)
        return NULL;
    k->lun = lun;
    k->seq = ++t->seq;
    k->state = TK_CONNECTED;
    for (pp = &t->tasks; *pp != NULL; pp = &(*pp)->next)
        ;
    *pp = k;
    return k;
}

void simk_free(sim_target *t, sim_task *k)
{
    sim_task **pp;
    unsigned i;

    for (pp = &t->tasks; *pp != NULL; pp = &(*pp)->next) {
        if (*pp == k) {
            *pp = k->next;
            break;
        }
    }
    for (i = 0; i < PCAM_SIM_LUNS; i++)
        if (t->mech[i].cur == k)
            t->mech[i].cur = NULL;
    if (t->conn.task == k)
        t->conn.task = NULL;
    free(k->buf);
    free(k);
}

void simk_drop(pcam_sim *s, sim_target *t, sim_task *k, pcam_sim_task_note why)
{
    uint8_t lun = k->lun;

    if (k->in_set && why == PCAM_SIM_TN_ABORTED)
        t->stats.aborted_tasks++;
    sim_trace_task(s, t, k, why);
    simk_free(t, k);
    /* The mechanism may be free now, or an ORDERED barrier lifted. */
    simk_kick(s, t, lun);
}

void simk_drop_lu(pcam_sim *s, sim_target *t, uint8_t lun)
{
    sim_task *k = t->tasks, *next;

    t->mech[lun].cur = NULL;
    while (k != NULL) {
        next = k->next;
        if (k->lun == lun) {
            if (k->in_set)
                t->stats.aborted_tasks++;
            sim_trace_task(s, t, k, PCAM_SIM_TN_ABORTED);
            simk_free(t, k);
        }
        k = next;
    }
}

void simk_drop_all(pcam_sim *s, sim_target *t)
{
    unsigned i;

    for (i = 0; i < PCAM_SIM_LUNS; i++)
        simk_drop_lu(s, t, (uint8_t)i);
}

unsigned simk_count(const sim_target *t, uint8_t lun)
{
    const sim_task *k;
    unsigned n = 0;

    for (k = t->tasks; k != NULL; k = k->next)
        if (k->in_set && k->lun == lun)
            n++;
    return n;
}

sim_task *simk_find_tag(sim_target *t, uint8_t lun, uint8_t tag)
{
    sim_task *k;

    for (k = t->tasks; k != NULL; k = k->next)
        if (k->in_set && k->lun == lun && k->tagged && k->tag == tag)
            return k;
    return NULL;
}

sim_task *simk_find_untagged(sim_target *t, uint8_t lun)
{
    sim_task *k;

    for (k = t->tasks; k != NULL; k = k->next)
        if (k->in_set && k->lun == lun && !k->tagged)
            return k;
    return NULL;
}

bool simk_mech_busy(const sim_target *t, uint8_t lun)
{
    return t->mech[lun].cur != NULL;
}

bool simk_others_waiting(const sim_target *t, uint8_t lun, const sim_task *self)
{
    const sim_task *k;

    for (k = t->tasks; k != NULL; k = k->next)
        if (k != self && k->lun == lun && k->state == TK_QUEUED)
            return true;
    return false;
}

void simk_enqueue(pcam_sim *s, sim_target *t, sim_task *k)
{
    k->state = TK_QUEUED;
    sim_trace_task(s, t, k, PCAM_SIM_TN_QUEUED);
}

static bool is_hoq(const sim_task *k)
{
    return k->tagged && k->tag_type == PCAM_MSG_HEAD_OF_QUEUE_TAG;
}

/* Shortest seek first among queued tasks of `lun` older than `before` (0: any). */
static sim_task *sstf(const sim_target *t, uint8_t lun, uint64_t before)
{
    const pcam_simlu *lu = &t->lu[lun];
    sim_task *k, *best = NULL;
    uint64_t best_cost = 0, cost;

    for (k = t->tasks; k != NULL; k = k->next) {
        if (k->lun != lun || k->state != TK_QUEUED || is_hoq(k) || (before != 0 && k->seq >= before))
            continue;
        cost = pcam_simlu_seek_cost(lu, k->cmd.lba);
        if (best == NULL || cost < best_cost || (cost == best_cost && k->seq < best->seq)) {
            best = k;
            best_cost = cost;
        }
    }
    return best;
}

static sim_task *pick(const sim_target *t, uint8_t lun)
{
    sim_task *k, *best = NULL, *barrier = NULL;

    for (k = t->tasks; k != NULL; k = k->next)
        if (k->lun == lun && k->state == TK_QUEUED && k->hold && (best == NULL || k->seq < best->seq))
            best = k;
    if (best != NULL)
        return best;
    for (k = t->tasks; k != NULL; k = k->next)
        if (k->lun == lun && k->state == TK_QUEUED && is_hoq(k) && (best == NULL || k->seq < best->seq))
            best = k;
    if (best != NULL)
        return best;
    for (k = t->tasks; k != NULL; k = k->next)
        if (k->in_set && k->lun == lun && k->tagged && k->tag_type == PCAM_MSG_ORDERED_TAG &&
            (barrier == NULL || k->seq < barrier->seq))
            barrier = k;
    if (barrier == NULL)
        return sstf(t, lun, 0);
    best = sstf(t, lun, barrier->seq);
    if (best != NULL)
        return best;
    if (barrier->state != TK_QUEUED)
        return NULL;
    for (k = t->tasks; k != NULL; k = k->next)
        if (k->in_set && k->lun == lun && k->seq < barrier->seq)
            return NULL;
    return barrier;
}

void simk_kick(pcam_sim *s, sim_target *t, uint8_t lun)
{
    sim_mech *m = &t->mech[lun];
    sim_task *k;

    if (m->cur != NULL)
        return;
    k = pick(t, lun);
    if (k == NULL)
        return;
    m->cur = k;
    k->state = TK_SERVICE;
    m->done_at = s->now + pcam_simlu_service(&t->lu[lun], &k->cmd);
    sim_trace_task(s, t, k, PCAM_SIM_TN_START);
}

uint64_t simk_next_time(const sim_target *t)
{
    uint64_t best = SIM_NEVER;
    unsigned i;

    for (i = 0; i < PCAM_SIM_LUNS; i++)
        if (t->mech[i].cur != NULL && t->mech[i].done_at < best)
            best = t->mech[i].done_at;
    return best;
}

void simk_finish_media(sim_target *t, sim_task *k)
{
    pcam_simlu *lu = &t->lu[k->lun];
    uint64_t bytes;

    if (k->cmd.dir == PCAM_DIR_OUT) {
        (void)pcam_simlu_finish_out(lu, &k->cmd);
        k->status = k->cmd.status;
        return;
    }
    if (k->cmd.dir != PCAM_DIR_IN || lu->store == NULL || k->buf == NULL)
        return;
    bytes = (uint64_t)k->cmd.blocks * lu->block_size;
    if (bytes == k->cmd.xfer_len && bytes <= k->cap && k->cmd.lba < lu->blocks &&
        k->cmd.blocks <= lu->blocks - k->cmd.lba)
        memcpy(k->buf, lu->store + (size_t)k->cmd.lba * lu->block_size, (size_t)bytes);
}

void simk_advance(pcam_sim *s, sim_target *t, uint64_t now)
{
    unsigned lun;

    for (lun = 0; lun < PCAM_SIM_LUNS; lun++) {
        sim_mech *m = &t->mech[lun];
        sim_task *k = m->cur;

        if (k == NULL || m->done_at > now)
            continue;
        m->cur = NULL;
        simk_finish_media(t, k);
        if (k->hold && t->conn.active && t->conn.task == k) {
            simt_mech_done_held(s, t, k);
        } else {
            k->hold = false;
            k->state = TK_READY;
            k->ready_at = now;
            sim_trace_task(s, t, k, PCAM_SIM_TN_READY);
        }
        simk_kick(s, t, lun);
    }
}
