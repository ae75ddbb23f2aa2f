/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * Logical-unit models for the simulated bus: the SCSI command sets of a
 * direct-access disk and a CD-ROM-like removable device, and the timing of
 * their mechanism. Pure command execution: no bus, no phases, no messages.
 * The simulated target (sim_target.c) owns the task set and the protocol and
 * calls these to execute each command.
 *
 * Installed with pcam_sim.h, which includes it: the API reference documents
 * the types here (Doxygen comments); the functions are for the simulator's
 * own target model and tests, documented in plain comments.
 */
#ifndef PCAM_SIM_LU_H
#define PCAM_SIM_LU_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "pcam/pcam_types.h"

/** What a simulated logical unit is. */
typedef enum pcam_simlu_kind {
    PCAM_SIMLU_ABSENT = 0, /**< No LU: INQUIRY says qualifier 3 / type 1Fh. */
    PCAM_SIMLU_DISK = 1,   /**< SBC direct access. */
    PCAM_SIMLU_CDROM = 2   /**< MMC-like removable, read-only. */
} pcam_simlu_kind;

/** Mechanism model of a disk (all times in ns). */
typedef struct pcam_simlu_timing {
    uint64_t overhead_ns;       /**< Per command, controller overhead. */
    uint64_t seek_min_ns;       /**< Track-to-track seek. */
    uint64_t seek_max_ns;       /**< Full-stroke seek. */
    uint64_t rotation_ns;       /**< One revolution (average latency is half). */
    uint32_t media_kbps;        /**< Media transfer rate, KB/s (1 KB = 1000 B). */
    uint32_t cache_blocks;      /**< Read-ahead: a read that continues the last one skips seek+rotation. */
} pcam_simlu_timing;

/** One simulated logical unit: its identity, medium, mechanism and pending conditions. */
typedef struct pcam_simlu {
    pcam_simlu_kind kind;       /**< Disk, CD-ROM or absent. */
    uint8_t *store;             /**< Media, blocks * block_size bytes (NULL: no medium). */
    uint64_t blocks;            /**< Blocks on the medium. */
    uint32_t block_size;        /**< Bytes per block. */
    char vendor[9];             /**< INQUIRY vendor identification. */
    char product[17];           /**< INQUIRY product identification. */
    char revision[5];           /**< INQUIRY product revision level. */
    char serial[21];            /**< Unit serial number (VPD 80h); "" for none. */
    bool cmdque;                /**< INQUIRY CmdQue bit. */
    uint8_t version;            /**< INQUIRY version (5 = SPC-3: REPORT LUNS is used by scans). */
    pcam_simlu_timing timing;   /**< Mechanism model. */
    uint64_t head_lba;          /**< Where the mechanism is. */
    uint64_t last_end_lba;      /**< For the read-ahead cache. */
    /* pending conditions */
    bool ua_pending;            /**< UNIT ATTENTION to report on the next command (not INQUIRY/REPORT LUNS/REQUEST SENSE). */
    uint8_t ua_asc;             /**< Its ASC (29h power on, reset, or BDR). */
    uint8_t ua_ascq;            /**< Its ASCQ. */
    uint64_t not_ready_until_ns;/**< NOT READY 04/01 before this time. */
    uint64_t medium_error_lba[8]; /**< LBAs that fail with MEDIUM ERROR 11/00. */
    uint8_t medium_errors;      /**< Entries used in medium_error_lba. */
    uint8_t sense[18];          /**< Sense for the next REQUEST SENSE (fixed format). */
    bool sense_valid;           /**< sense holds a condition not yet read. */
    bool stopped;               /**< START STOP UNIT stopped it (NOT READY 04/02). */
    uint8_t mode_caching[20];   /**< Caching page (08h) current values. */
    uint8_t mode_disconnect[16];/**< Disconnect-reconnect page (02h) current values. */
    uint32_t luns_on_target;    /**< For REPORT LUNS: a bitmask of LUNs 0-31 present (set by the target). */
    uint8_t *ejected_store;     /**< CD-ROM: medium in the open tray after an eject, reloaded by START STOP UNIT LOEJ+START. */
    bool prevent_removal;       /**< CD-ROM: PREVENT ALLOW MEDIUM REMOVAL prevents eject (5/53/02). */
} pcam_simlu;

/** One command, as the target hands it to the LU. */
typedef struct pcam_simlu_cmd {
    const uint8_t *cdb;         /**< The CDB. */
    uint8_t cdb_len;            /**< Its length. */
    uint8_t *buf;               /**< Data buffer, cap bytes. */
    uint32_t cap;               /**< Size of buf. */
    /* filled by pcam_simlu_prepare */
    pcam_dir dir;               /**< Filled by pcam_simlu_prepare(): NONE, IN or OUT. */
    uint32_t xfer_len;          /**< Filled: bytes the target moves in the data phase. */
    uint8_t status;             /**< Filled: SCSI status (0 GOOD, 2 CHECK CONDITION). */
    bool media;                 /**< Filled: touches the media, so seek and rotation apply. */
    uint64_t lba;               /**< Filled: first block of a media command. */
    uint32_t blocks;            /**< Filled: its block count. */
} pcam_simlu_cmd;

/* Make lu an absent LU (qualifier 3). */
void pcam_simlu_init_absent(pcam_simlu *lu);
/* A disk with its media in `store` (blocks * block_size bytes, owned by the
 * caller; block_size 0 means 512). Revision "1.00", version 5, CmdQue on,
 * UNIT ATTENTION 29/00 pending, luns_on_target = LUN 0 only, WCE and RCD off. */
void pcam_simlu_init_disk(pcam_simlu *lu, uint8_t *store, uint64_t blocks, uint32_t block_size,
                          const char *vendor, const char *product, const char *serial);
/* A CD-ROM; store NULL means no medium (NOT READY 3A/00). 2048-byte blocks,
 * RMB, no serial number, CmdQue off (drives of the period did not queue),
 * UNIT ATTENTION 29/00 pending. */
void pcam_simlu_init_cdrom(pcam_simlu *lu, uint8_t *store, uint64_t blocks,
                           const char *vendor, const char *product);
/* Give an LU (a CD-ROM has none after init) the serial number of VPD 80h
 * and of 83h's T10 vendor ID designator; NULL or "" clears it. */
void pcam_simlu_set_serial(pcam_simlu *lu, const char *serial);
/* Default mechanism of a 1995 7,200 rpm disk (constants in sim_lu.c, model in sim_lu_timing.c). */
void pcam_simlu_default_timing(pcam_simlu_timing *t);

/* Decode and check a command; for data-in commands fill cmd->buf with the
 * data (xfer_len bytes, clipped to the allocation length and to cap); for a
 * failing command set status 2 and remember the sense. Does not change the
 * media. `now` is simulated time (NOT READY windows). Returns 0
 * (PCAM_ERR_NULL for a NULL lu or cmd).
 * Details the target can rely on:
 * - status 2 always comes with dir NONE and xfer_len 0 (no data phase);
 * - dir is NONE whenever xfer_len is 0 (allocation length 0, 0 blocks);
 * - allocation-length commands (INQUIRY, MODE SENSE, ...) are clipped to cap,
 *   but READ/WRITE/VERIFY data and a MODE SELECT list longer than cap are
 *   refused whole with ILLEGAL REQUEST 24/00, never cut (size cap for the
 *   largest transfer the target accepts);
 * - a READ or VERIFY that hits a medium error fails with 3/11/00 (INFORMATION
 *   = the failing LBA) but keeps media true with blocks counting up to and
 *   including the failing block, so pcam_simlu_service charges the trip;
 * - the sense of a failed command stays pending until REQUEST SENSE reads it
 *   or a later failure replaces it (a GOOD command does not clear it), so
 *   other queued tasks cannot lose it before autosense.
 * Order of checks: absent LU (25/00), UNIT ATTENTION (not for INQUIRY,
 * REPORT LUNS, REQUEST SENSE), unknown opcode (20/00), CDB length or
 * NACA/LINK in the control byte (24/00), NOT READY (3A/00 no medium, 04/01
 * becoming ready, 04/02 stopped; only for commands that need the medium),
 * then the command's own fields. */
int pcam_simlu_prepare(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint64_t now);
/* After the data-out bytes are in cmd->buf: apply them (WRITE, MODE SELECT,
 * VERIFY with BYTCHK=1 compares: 0E/1D/00 on a mismatch). May turn status
 * into CHECK CONDITION (e.g. a bad mode page). A command that is not a GOOD
 * data-out command is left alone (returns 0). Returns PCAM_ERR_RANGE, and
 * touches nothing, if cmd no longer agrees with itself (lba/blocks outside
 * the medium, xfer_len not blocks * block_size or above cap); PCAM_ERR_NULL. */
int pcam_simlu_finish_out(pcam_simlu *lu, pcam_simlu_cmd *cmd);
/* Mechanism time for a prepared command from the current head position,
 * and move the head. 0 for commands that do not touch the media. The model
 * and its figures are documented at the top of sim_lu_timing.c. */
uint64_t pcam_simlu_service(pcam_simlu *lu, const pcam_simlu_cmd *cmd);
/* Seek distance cost without moving, for shortest-seek-first ordering. */
uint64_t pcam_simlu_seek_cost(const pcam_simlu *lu, uint64_t lba);

/* Conditions the target (or a test) raises. */
/* A pending 29/00 (power on) is not replaced by a later 29/xx: it already says everything was reset. */
void pcam_simlu_unit_attention(pcam_simlu *lu, uint8_t asc, uint8_t ascq);
void pcam_simlu_not_ready_until(pcam_simlu *lu, uint64_t until_ns);
/* Returns 0; PCAM_ERR_NOSPACE when all 8 slots are used, PCAM_ERR_RANGE beyond the medium, PCAM_ERR_NULL. */
int pcam_simlu_add_medium_error(pcam_simlu *lu, uint64_t lba);
/* Fail `cmd` with CHECK CONDITION and fixed-format sense key/ASC/ASCQ (no
 * data phase); the sense waits for REQUEST SENSE. For a target that wants to
 * reject a command itself. */
void pcam_simlu_fail(pcam_simlu *lu, pcam_simlu_cmd *cmd, uint8_t key, uint8_t asc, uint8_t ascq);

/* CD-ROM medium: insert (store != NULL; raises UNIT ATTENTION 28/00) or
 * remove (store NULL: NOT READY 3A/00 from then on). */
void pcam_simlu_cdrom_load(pcam_simlu *lu, uint8_t *store, uint64_t blocks);
/* Default mechanism of a 1995 quad-speed CD-ROM drive (documented in sim_lu_cdrom.c). */
void pcam_simlu_cdrom_timing(pcam_simlu_timing *t);

/* Shared by the sim_lu*.c files only (not for the target). */
void pcam_simlu_data_in(pcam_simlu_cmd *cmd, const uint8_t *data, uint32_t len, uint32_t alloc);
bool pcam_simlu_cdrom_command(pcam_simlu *lu, pcam_simlu_cmd *cmd);
void pcam_simlu_copy_id(char *dst, size_t cap, const char *src);
void pcam_simlu_mode_defaults(pcam_simlu *lu);
void pcam_simlu_mode_sense(pcam_simlu *lu, pcam_simlu_cmd *cmd);
void pcam_simlu_mode_select(pcam_simlu *lu, pcam_simlu_cmd *cmd);
void pcam_simlu_mode_select_data(pcam_simlu *lu, pcam_simlu_cmd *cmd);

#endif /* PCAM_SIM_LU_H */
