/* Shared between the engine's files: states and the helpers they call. */
#ifndef PCAM_ENGINE_INTERNAL_H
#define PCAM_ENGINE_INTERNAL_H

#include "pcam_core.h"
#include "pcam/pcam_msg.h"

/* bus->state */
enum { ES_IDLE = 0, ES_SELECTING, ES_CONNECTED, ES_RESETTING, ES_DEAD };
/* bus->action: the chip action whose event is owed */
enum { ACT_NONE = 0, ACT_SELECT, ACT_XFER, ACT_MSGOUT, ACT_MSGIN, ACT_ACCEPT, ACT_RESET };
/* bus->expect_free: why the next bus free is expected */
enum { EF_NONE = 0, EF_COMPLETE, EF_DISCONNECT, EF_ABORT };
/* bus->sel_kind */
enum { SK_IO = 0, SK_MGMT, SK_ABORT };
/* bus->xfer_kind */
enum { XK_DATA = 0, XK_SENSE, XK_COMMAND, XK_STATUS, XK_BUCKET };
/* bus->engine_flags */
enum {
    EGF_AWAIT_TAG = 1u << 0    /* reselected, nexus known once the tag message arrives */
};
/* INITIATOR DETECTED ERRORs per command before a parity error is left to a retry. */
#define PCAM_IDE_LIMIT 3u
/* bus->recovery: the escalation step in progress */
enum { RS_NONE = 0, RS_ABORT, RS_BDR, RS_BDR_SENT, RS_BUS_RESET, RS_CHIP_RESET };

/* engine.c */
void pcam_eng_on_phase(pcam_bus *bus, pcam_phase phase);
void pcam_eng_on_bus_free(pcam_bus *bus);
void pcam_eng_finish_io(pcam_bus *bus, pcam_ccb *ccb);
void pcam_eng_requeue(pcam_bus *bus, pcam_ccb *ccb);
void pcam_eng_retire(pcam_bus *bus, pcam_ccb *ccb, uint32_t status);
void pcam_eng_abandon_nexus(pcam_bus *bus, uint8_t msg);
void pcam_eng_fail_chip(pcam_bus *bus);
void pcam_eng_lost_select(pcam_bus *bus);

/* msgin.c */
void pcam_eng_msg_byte(pcam_bus *bus, const pcam_hal_event *ev);
void pcam_eng_reselected(pcam_bus *bus, const pcam_hal_event *ev);
void pcam_eng_msgout_done(pcam_bus *bus, const pcam_hal_event *ev);
/* `count` bytes of the queued message-out were taken: note what was said
 * (so the bus free an abort or reset causes is expected) and clear it. */
void pcam_eng_msgout_taken(pcam_bus *bus, uint32_t count);
void pcam_eng_queue_msgout(pcam_bus *bus, const uint8_t *msg, uint8_t len);

/* recovery.c */
bool pcam_eng_start_recovery_io(pcam_bus *bus);
void pcam_eng_bus_reset_seen(pcam_bus *bus);
void pcam_eng_recovery_success(pcam_bus *bus, uint8_t msg_sent, uint8_t target, uint8_t lun,
                               pcam_ccb *victim);
void pcam_eng_select(pcam_bus *bus, pcam_ccb *ccb, uint8_t kind, uint8_t extra_msg);
void pcam_eng_escalate(pcam_bus *bus);
void pcam_eng_request_abort(pcam_bus *bus, pcam_ccb *victim);

static inline void pcam_eng_set_action(pcam_bus *bus, uint8_t act, int rc)
{
    bus->action = act;
    if (rc < 0)
        pcam_eng_fail_chip(bus);
}

#endif /* PCAM_ENGINE_INTERNAL_H */
