/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The FreeBSD shim's translator against the order in which CAM calls a SIM
 * (label freebsd): the status table against cam.h's values, path inquiry,
 * the xpt bus scan of scsi_xpt.c (INQUIRY, transport set-up, REPORT LUNS or
 * sequential LUNs, TEST UNIT READY for negotiation, then da(4)/cd(4)'s READ
 * CAPACITY), camcontrol negotiate, geometry, malformed requests, and the
 * 16-byte CDBs of a disk over 2 TiB. Every expectation is CAM's (the values
 * of cam.h and cam_ccb.h, the fields a peripheral reads) or the simulated
 * media's, never the translator's.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fbsd_simfx.h"

#define XPT_SCSI_IO PCAM_FBSD_XPT_SCSI_IO

/* cam.h's values, written out from FreeBSD's header independently of pcam_fbsd_cam.h. */
static void status_table(void **state)
{
    static const struct { uint32_t pcam, cam; } want[] = {
        {PCAM_REQ_INPROG, 0x00}, {PCAM_REQ_CMP, 0x01}, {PCAM_REQ_ABORTED, 0x02},
        {PCAM_REQ_CMP_ERR, 0x04}, {PCAM_BUSY, 0x05}, {PCAM_REQ_INVALID, 0x06},
        {PCAM_PATH_INVALID, 0x07}, {PCAM_DEV_NOT_THERE, 0x08}, {PCAM_SEL_TIMEOUT, 0x0A},
        {PCAM_CMD_TIMEOUT, 0x0B}, {PCAM_SCSI_STATUS_ERROR, 0x0C}, {PCAM_MSG_REJECT_REC, 0x0D},
        {PCAM_SCSI_BUS_RESET, 0x0E}, {PCAM_UNCOR_PARITY, 0x0F}, {PCAM_AUTOSENSE_FAIL, 0x10},
        {PCAM_NO_HBA, 0x11}, {PCAM_DATA_RUN_ERR, 0x12}, {PCAM_UNEXP_BUSFREE, 0x13},
        {PCAM_SEQUENCE_FAIL, 0x14}, {PCAM_BDR_SENT, 0x17}, {PCAM_REQ_TOO_BIG, 0x1A},
        {PCAM_REQUEUE_REQ, 0x1B}, {PCAM_RESRC_UNAVAIL, 0x34}, {PCAM_FUNC_NOTAVAIL, 0x3A},
    };
    (void)state;
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        assert_int_equal(pcam_fbsd_status(want[i].pcam), want[i].cam);
        /* flag bits never change the code */
        assert_int_equal(pcam_fbsd_status(want[i].pcam | PCAM_DEV_QFRZN | PCAM_AUTOSNS_VALID), want[i].cam);
    }
    assert_int_equal(pcam_fbsd_status(0x3F), 0x04); /* unknown: CAM_REQ_CMP_ERR */
    assert_int_equal(pcam_fbsd_async_code(PCAM_AC_BUS_RESET), 0x001);
    assert_int_equal(pcam_fbsd_async_code(PCAM_AC_SENT_BDR), 0x010);
    assert_int_equal(pcam_fbsd_async_code(PCAM_AC_FOUND_DEVICE), 0x080);
    assert_int_equal(pcam_fbsd_async_code(PCAM_AC_LOST_DEVICE), 0x100);
    assert_int_equal(pcam_fbsd_async_code(PCAM_AC_TRANSFER_NEG), 0x200);
    assert_int_equal(pcam_fbsd_async_code(PCAM_AC_UNIT_ATTENTION), 0);
}

static void path_inquiry(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    cm_req q;
    cm_func(&q, PCAM_FBSD_XPT_PATH_INQ, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP); /* no freeze: not device-queued */
    const pcam_fbsd_cpi *c = &q.r.cc.u.cpi;
    /* hal/sim's defaults: SYNC|WIDE|DT|TAGS|PARITY, 16 IDs, initiator 7, 16 MiB */
    assert_int_equal(c->hba_inquiry, 0x10 | 0x20 | 0x02);
    assert_int_equal(c->max_target, 15);
    assert_int_equal(c->max_lun, 7);
    assert_int_equal(c->initiator_id, 7);
    assert_int_equal(c->protocol, 2);          /* PROTO_SCSI */
    assert_int_equal(c->protocol_version, 2);  /* SCSI_REV_2 */
    assert_int_equal(c->transport, 2);         /* XPORT_SPI */
    assert_int_equal(c->transport_version, 3); /* DT capable: SPI-3 */
    assert_int_equal(c->spi_ppr_options, 0x02);
    assert_int_equal(c->base_transfer_speed, 3300);
    assert_int_equal(c->maxio, 65536);         /* the ident's limit is below the chip's */
    assert_string_equal(c->sim_vid, "FreeBSD");
    assert_string_equal(c->dev_name, "pcam");
    assert_int_equal(c->hba_vendor, 0x1022);
    assert_int_equal(c->hba_device, 0x2020);
    fx_free(f);

    /* A narrow chip without tags or sync: none of the capability bits, 8 IDs. */
    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.width = 8;
    sc.cap_flags = PCAM_HAL_CAP_PARITY;
    f = fx_new(&sc, NULL);
    cm_func(&q, PCAM_FBSD_XPT_PATH_INQ, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.cpi.hba_inquiry, 0);
    assert_int_equal(q.r.cc.u.cpi.max_target, 7);
    assert_int_equal(q.r.cc.u.cpi.transport_version, 2);
    fx_free(f);
}

/* INQUIRY as scsi_xpt.c's probe sends it: 36 bytes in, full sense, 60 s, untagged. */
static uint32_t probe_inquiry(fbsd_fx *f, uint32_t t, uint32_t l, uint8_t *inq, cm_req *q)
{
    uint8_t cdb[6];
    cm_cdb_inquiry(cdb, 36);
    cm_csio(q, t, l, cdb, 6, PCAM_FBSD_CAM_DIR_IN, inq, 36, PCAM_FBSD_MSG_SIMPLE_Q_TAG, 60000);
    return cm_sync(&f->m, q, 70000);
}

/* scsi_devise_transport(): current settings read, tags and disconnection enabled. */
static void devise_transport(fbsd_fx *f, uint32_t t)
{
    cm_req q;
    cm_func(&q, PCAM_FBSD_XPT_GET_TRAN_SETTINGS, t, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.cts.transport, 2);
    assert_int_equal(q.r.cc.u.cts.spi_valid, 0x1F);
    assert_int_equal(q.r.cc.u.cts.scsi_valid, 0x01);
    cm_func(&q, PCAM_FBSD_XPT_SET_TRAN_SETTINGS, t, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    q.r.cc.u.cts.scsi_valid = PCAM_FBSD_CTS_SCSI_VALID_TQ;
    q.r.cc.u.cts.scsi_flags = PCAM_FBSD_CTS_SCSI_FLAGS_TAG_ENB;
    q.r.cc.u.cts.spi_valid = PCAM_FBSD_CTS_SPI_VALID_DISC;
    q.r.cc.u.cts.spi_flags = PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
}

static uint32_t tur(fbsd_fx *f, uint32_t t, uint32_t l, cm_req *q)
{
    uint8_t cdb[6] = {0};
    cm_csio(q, t, l, cdb, 6, PCAM_FBSD_CAM_DIR_NONE | PCAM_FBSD_CAM_TAG_ACTION_VALID, NULL, 0,
            PCAM_FBSD_MSG_SIMPLE_Q_TAG, 60000);
    return cm_sync(&f->m, q, 70000);
}

/*
 * The whole xpt scan of a bus, in scsi_xpt.c's order, then da(4)'s and
 * cd(4)'s first command. Disks at 0 (LUNs 0 and 2, SPC-3: REPORT LUNS) and
 * 3 (SCSI-2: LUNs probed in sequence), a CD-ROM at 5; every other ID is
 * empty and must answer CAM_SEL_TIMEOUT with the device queue frozen.
 */
static void bus_scan(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 0, 0, 4096, true);
    fx_disk(f, 0, 2, 2048, false);
    pcam_sim_lu(f->r.sim, 0, 0)->luns_on_target = 0x5;
    pcam_sim_lu(f->r.sim, 0, 2)->luns_on_target = 0x5;
    fx_disk(f, 3, 0, 1024, false);
    pcam_sim_lu(f->r.sim, 3, 0)->version = 2;
    pcam_sim_lu(f->r.sim, 3, 0)->cmdque = false;
    static uint8_t cd_store[64 * 2048];
    assert_int_equal(pcam_sim_add_target(f->r.sim, 5, NULL), 0);
    pcam_simlu_init_cdrom(pcam_sim_lu(f->r.sim, 5, 0), cd_store, 64, "PCAMSIM", "CDROM");
    pcam_sim_lu(f->r.sim, 5, 0)->ua_pending = false;

    cm_req q;
    cm_func(&q, PCAM_FBSD_XPT_PATH_INQ, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    uint32_t max_target = q.r.cc.u.cpi.max_target, max_lun = q.r.cc.u.cpi.max_lun;
    unsigned found = 0, seltos = 0;
    uint32_t found_at[8][2];
    for (uint32_t t = 0; t <= max_target; t++) {
        uint8_t inq[36];
        if (t == q.r.cc.u.cpi.initiator_id)
            continue;
        cm_req in;
        uint32_t st = probe_inquiry(f, t, 0, inq, &in);
        if ((st & PCAM_FBSD_CAM_STATUS_MASK) == PCAM_FBSD_CAM_SEL_TIMEOUT) {
            assert_true((st & PCAM_FBSD_CAM_DEV_QFRZN) != 0);
            seltos++;
            continue;
        }
        assert_int_equal(st, PCAM_FBSD_CAM_REQ_CMP);
        assert_int_equal(in.r.cc.u.csio.resid, 0);
        assert_int_equal(inq[0] >> 5, 0); /* peripheral qualifier: connected */
        found_at[found][0] = t;
        found_at[found++][1] = 0;
        devise_transport(f, t);
        uint32_t luns_bits = 1;
        if ((inq[2] & 0x07) >= 5) {
            uint8_t cdb[12], rl[64];
            cm_cdb_report_luns(cdb, sizeof rl);
            cm_csio(&in, t, 0, cdb, 12, PCAM_FBSD_CAM_DIR_IN, rl, sizeof rl, 0, 60000);
            assert_int_equal(cm_sync(&f->m, &in, 70000), PCAM_FBSD_CAM_REQ_CMP);
            uint32_t n = ((uint32_t)rl[0] << 24 | (uint32_t)rl[1] << 16 | (uint32_t)rl[2] << 8 | rl[3]) / 8;
            assert_int_equal(in.r.cc.u.csio.resid, sizeof rl - 8 - 8 * n);
            for (uint32_t i = 0; i < n; i++)
                luns_bits |= 1u << rl[8 + 8 * i + 1];
        } else {
            /* Sequential LUNs until one is not there. */
            for (uint32_t l = 1; l <= max_lun; l++) {
                st = probe_inquiry(f, t, l, inq, &in);
                if (st != PCAM_FBSD_CAM_REQ_CMP || (inq[0] >> 5) != 0)
                    break;
                luns_bits |= 1u << l;
            }
        }
        for (uint32_t l = 1; l <= max_lun; l++) {
            if ((luns_bits & (1u << l)) == 0)
                continue;
            assert_int_equal(probe_inquiry(f, t, l, inq, &in), PCAM_FBSD_CAM_REQ_CMP);
            assert_int_equal(inq[0] >> 5, 0);
            found_at[found][0] = t;
            found_at[found++][1] = l;
        }
        /* PROBE_TUR_FOR_NEGOTIATION: the power-on UNIT ATTENTION arrives here,
         * sensed and frozen; the peripheral retries it. */
        st = tur(f, t, 0, &in);
        if (t == 0) {
            assert_int_equal(st, PCAM_FBSD_CAM_SCSI_STATUS_ERROR | PCAM_FBSD_CAM_AUTOSNS_VALID |
                                     PCAM_FBSD_CAM_DEV_QFRZN);
            assert_int_equal(in.r.cc.u.csio.scsi_status, 0x02);
            assert_int_equal(in.r.cc.u.csio.sense_data[2] & 0x0F, 0x06);
            assert_int_equal(in.r.cc.u.csio.sense_data[12], 0x29);
            st = tur(f, t, 0, &in);
        }
        assert_int_equal(st, PCAM_FBSD_CAM_REQ_CMP);
    }
    assert_int_equal(found, 4);
    assert_int_equal(found_at[1][0], 0);
    assert_int_equal(found_at[1][1], 2);
    assert_int_equal(found_at[2][0], 3);
    assert_int_equal(found_at[3][0], 5);
    assert_int_equal(seltos, 15 - 3);
    assert_int_equal(f->m.freezes, f->m.releases);

    /* The wide, synchronous agreement the TUR negotiated was announced. */
    const cm_event *e = cm_event_find(&f->m, PCAM_FBSD_AC_TRANSFER_NEG, 0);
    assert_non_null(e);
    assert_int_equal(e->target, 0);
    assert_true(e->has_cts);
    unsigned neg0 = 0;
    for (unsigned i = 0; i < f->m.nev; i++) {
        const cm_event *x = &f->m.ev[i];
        if (x->code == PCAM_FBSD_AC_TRANSFER_NEG && x->target == 0)
            e = x, neg0++;
    }
    assert_true(neg0 >= 1);
    assert_int_equal(e->cts.sync_period, 0x0C); /* the target's fastest; the chip's is 0x09 */
    assert_int_equal(e->cts.sync_offset, 16);
    assert_int_equal(e->cts.bus_width, PCAM_FBSD_MSG_EXT_WDTR_BUS_16_BIT);
    assert_int_equal(e->lun, PCAM_FBSD_CAM_LUN_WILDCARD);

    /* da(4)'s probe: MODE SENSE(6) of all pages for write protection, then
     * READ CAPACITY(10) (SIMPLE tag, full sense, 5 s), answering the last
     * LBA and the block length. */
    uint8_t cdb[10], cap[8], ms[255];
    cm_req rc;
    uint8_t ms6[6] = {0x1A, 0, 0x3F, 0, sizeof ms, 0};
    cm_csio(&rc, 0, 2, ms6, 6, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_TAG_ACTION_VALID, ms, sizeof ms,
            PCAM_FBSD_MSG_SIMPLE_Q_TAG, 60000);
    assert_int_equal(cm_sync(&f->m, &rc, 70000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(rc.r.cc.u.csio.resid, sizeof ms - (ms[0] + 1u)); /* mode data length + 1 came */
    assert_int_equal(ms[2] & 0x80, 0);                                 /* not write protected */
    cm_cdb_readcap10(cdb);
    cm_csio(&rc, 0, 2, cdb, 10, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_TAG_ACTION_VALID, cap, 8,
            PCAM_FBSD_MSG_SIMPLE_Q_TAG, 5000);
    assert_int_equal(cm_sync(&f->m, &rc, 10000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(((uint32_t)cap[0] << 24 | (uint32_t)cap[1] << 16 | (uint32_t)cap[2] << 8 | cap[3]), 2047);
    assert_int_equal(((uint32_t)cap[4] << 24 | (uint32_t)cap[5] << 16 | (uint32_t)cap[6] << 8 | cap[7]), 512);
    /* cd(4): the same on the CD-ROM gives 2048-byte blocks, untagged (no CmdQue). */
    cm_csio(&rc, 5, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN, cap, 8, 0, 30000);
    assert_int_equal(cm_sync(&f->m, &rc, 40000), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(((uint32_t)cap[0] << 24 | (uint32_t)cap[1] << 16 | (uint32_t)cap[2] << 8 | cap[3]), 63);
    assert_int_equal(((uint32_t)cap[4] << 24 | (uint32_t)cap[5] << 16 | (uint32_t)cap[6] << 8 | cap[7]), 2048);
    /* CAM's whole probe, empty IDs and errors included, is no refused CCB:
     * the glue's console stays quiet on a normal boot. */
    assert_int_equal(f->m.refusals, 0);
    fx_free(f);
}

static uint32_t get_tran(fbsd_fx *f, uint32_t t, uint32_t type, pcam_fbsd_cts *out)
{
    cm_req q;
    cm_func(&q, PCAM_FBSD_XPT_GET_TRAN_SETTINGS, t, 0);
    q.r.cc.u.cts.type = type;
    uint32_t st = cm_sync(&f->m, &q, 10);
    *out = q.r.cc.u.cts;
    return st;
}

/*
 * camcontrol negotiate: read current and user settings, set a rate, offset
 * and width (-R/-O/-W), set -a (a TEST UNIT READY makes the SIM negotiate),
 * read the current settings back; then disconnection and tags off.
 */
static void negotiate(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 2, 0, 1024, false);
    pcam_fbsd_cts cur, user;
    cm_req q;

    assert_int_equal(tur(f, 2, 0, &q), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(get_tran(f, 2, PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS, &cur), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(cur.sync_period, 0x0C);
    assert_int_equal(cur.sync_offset, 16);
    assert_int_equal(cur.bus_width, 1);
    assert_int_equal(cur.type, PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS);
    assert_int_equal(get_tran(f, 2, PCAM_FBSD_CTS_TYPE_USER_SETTINGS, &user), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(user.type, PCAM_FBSD_CTS_TYPE_USER_SETTINGS);
    assert_true((user.spi_flags & PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB) != 0);

    /* -R 10.000 -O 8 -W 8: factor 25 (100 ns), offset 8, narrow. */
    unsigned neg_before = cm_event_count(&f->m, PCAM_FBSD_AC_TRANSFER_NEG);
    cm_func(&q, PCAM_FBSD_XPT_SET_TRAN_SETTINGS, 2, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    q.r.cc.u.cts.spi_valid = PCAM_FBSD_CTS_SPI_VALID_SYNC_RATE | PCAM_FBSD_CTS_SPI_VALID_SYNC_OFFSET |
                             PCAM_FBSD_CTS_SPI_VALID_BUS_WIDTH;
    q.r.cc.u.cts.sync_period = 25;
    q.r.cc.u.cts.sync_offset = 8;
    q.r.cc.u.cts.bus_width = PCAM_FBSD_MSG_EXT_WDTR_BUS_8_BIT;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(tur(f, 2, 0, &q), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(get_tran(f, 2, PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS, &cur), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(cur.sync_period, 25);
    assert_int_equal(cur.sync_offset, 8);
    assert_int_equal(cur.bus_width, 0);
    assert_true(cm_event_count(&f->m, PCAM_FBSD_AC_TRANSFER_NEG) > neg_before);
    const cm_event *e = cm_event_find(&f->m, PCAM_FBSD_AC_TRANSFER_NEG,
                                      cm_event_count(&f->m, PCAM_FBSD_AC_TRANSFER_NEG) - 1);
    assert_int_equal(e->target, 2);
    assert_int_equal(e->cts.sync_period, 25);
    assert_int_equal(e->cts.sync_offset, 8);
    assert_int_equal(e->cts.bus_width, 0);
    /* The user settings hold what was asked; the fields not marked valid kept their values. */
    assert_int_equal(get_tran(f, 2, PCAM_FBSD_CTS_TYPE_USER_SETTINGS, &user), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(user.sync_period, 25);
    assert_int_equal(user.sync_offset, 8);
    assert_true((user.spi_flags & PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB) != 0);

    /* -D disable -T disable */
    cm_func(&q, PCAM_FBSD_XPT_SET_TRAN_SETTINGS, 2, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_USER_SETTINGS;
    q.r.cc.u.cts.spi_valid = PCAM_FBSD_CTS_SPI_VALID_DISC;
    q.r.cc.u.cts.scsi_valid = PCAM_FBSD_CTS_SCSI_VALID_TQ;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(get_tran(f, 2, PCAM_FBSD_CTS_TYPE_USER_SETTINGS, &user), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(user.spi_flags & PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB, 0);
    assert_int_equal(user.scsi_flags & PCAM_FBSD_CTS_SCSI_FLAGS_TAG_ENB, 0);
    assert_int_equal(user.sync_period, 25);

    /* What CAM cannot ask of SPI fails as a request error, changing nothing. */
    cm_func(&q, PCAM_FBSD_XPT_SET_TRAN_SETTINGS, 2, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    q.r.cc.u.cts.spi_valid = PCAM_FBSD_CTS_SPI_VALID_BUS_WIDTH;
    q.r.cc.u.cts.bus_width = 2; /* 32-bit */
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    cm_func(&q, PCAM_FBSD_XPT_SET_TRAN_SETTINGS, 2, 0);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    q.r.cc.u.cts.spi_valid = PCAM_FBSD_CTS_SPI_VALID_SYNC_RATE;
    q.r.cc.u.cts.sync_period = 300;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    assert_int_equal(get_tran(f, 2, 7, &user), PCAM_FBSD_CAM_REQ_INVALID);
    assert_int_equal(get_tran(f, 2, PCAM_FBSD_CTS_TYPE_USER_SETTINGS, &user), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(user.bus_width, 0);
    assert_int_equal(user.sync_period, 25);
    /* The initiator's own ID is no target: CAM_PATH_INVALID. */
    assert_int_equal(get_tran(f, 7, PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS, &user), PCAM_FBSD_CAM_PATH_INVALID);
    fx_free(f);
}

/* cam_calc_geometry()'s extended translation, by hand. */
static void geometry(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    cm_req q;
    cm_func(&q, PCAM_FBSD_XPT_CALC_GEOMETRY, 0, 0);
    q.r.cc.u.ccg.block_size = 512;
    q.r.cc.u.ccg.volume_size = 4194304; /* 2 GiB: over 1 GiB, 255 heads x 63 sectors */
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.ccg.heads, 255);
    assert_int_equal(q.r.cc.u.ccg.secs_per_track, 63);
    assert_int_equal(q.r.cc.u.ccg.cylinders, 261);
    cm_func(&q, PCAM_FBSD_XPT_CALC_GEOMETRY, 0, 0);
    q.r.cc.u.ccg.block_size = 2048;
    q.r.cc.u.ccg.volume_size = 51200; /* 100 MiB: 64 x 32 */
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.ccg.heads, 64);
    assert_int_equal(q.r.cc.u.ccg.secs_per_track, 32);
    assert_int_equal(q.r.cc.u.ccg.cylinders, 25);
    cm_func(&q, PCAM_FBSD_XPT_CALC_GEOMETRY, 0, 0);
    q.r.cc.u.ccg.block_size = 0;
    q.r.cc.u.ccg.volume_size = 100;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    fx_free(f);
}

static uint32_t tstats_commands(fbsd_fx *f, uint8_t id)
{
    pcam_sim_target_stats st;
    pcam_sim_target_stats_get(f->r.sim, id, &st);
    return st.commands;
}

/* Requests CAM can build but this SIM must refuse, each with a defined status. */
static void bad_requests(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 0, 0, 256, false);
    static uint8_t buf[4096];
    uint8_t cdb[10];
    cm_req q;
    cm_cdb_rw10(cdb, false, 0, 1);
    struct { uint32_t flags; uint8_t cdb_len; uint32_t want; } cases[] = {
        {PCAM_FBSD_CAM_DIR_BOTH, 10, PCAM_FBSD_CAM_REQ_INVALID},
        {PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_DATA_PADDR, 10, PCAM_FBSD_CAM_REQ_INVALID},
        {PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_DATA_BIO, 10, PCAM_FBSD_CAM_REQ_INVALID},
        {PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_CDB_POINTER | PCAM_FBSD_CAM_CDB_PHYS, 10, PCAM_FBSD_CAM_REQ_INVALID},
        {PCAM_FBSD_CAM_DIR_IN, 0, PCAM_FBSD_CAM_REQ_INVALID},
        {PCAM_FBSD_CAM_DIR_IN, 6, PCAM_FBSD_CAM_REQ_INVALID},  /* group 1 opcode with 6 bytes */
        {PCAM_FBSD_CAM_DIR_IN, 17, PCAM_FBSD_CAM_REQ_INVALID},
        {PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_CDB_POINTER, 10, PCAM_FBSD_CAM_REQ_INVALID}, /* NULL pointer */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        cm_csio(&q, 0, 0, cdb, 10, cases[i].flags, buf, 512, 0, 1000);
        q.r.cc.u.csio.cdb_len = cases[i].cdb_len;
        uint32_t st = cm_sync(&f->m, &q, 10);
        assert_int_equal(st & PCAM_FBSD_CAM_STATUS_MASK, cases[i].want);
        assert_true((st & PCAM_FBSD_CAM_DEV_QFRZN) != 0); /* a device-queued error freezes */
        assert_int_equal(q.sim_done, 1);
        /* ... and the glue is told once, before the CCB is done, for its console line. */
        assert_int_equal(f->m.refusals, i + 1);
        assert_int_equal(f->m.refused_status, cases[i].want);
        assert_int_equal(f->m.refused_func, PCAM_FBSD_XPT_SCSI_IO);
    }
    assert_true(f->m.refused_before_done);
    /* A data pointer with no length, in and out (the core's refusal), and a
     * length with no data pointer (CAM_DATA_VADDR and an empty S/G list). */
    unsigned nref = f->m.refusals;
    static const uint32_t dirs[] = {PCAM_FBSD_CAM_DIR_IN, PCAM_FBSD_CAM_DIR_OUT};
    for (size_t i = 0; i < 2; i++) {
        cm_csio(&q, 0, 0, cdb, 10, dirs[i], buf, 0, 0, 1000);
        assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_INVALID);
        assert_int_equal(f->m.refusals, ++nref);
        cm_csio(&q, 0, 0, cdb, 10, dirs[i], NULL, 512, 0, 1000);
        assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_INVALID);
        assert_int_equal(f->m.refusals, ++nref);
        cm_csio(&q, 0, 0, cdb, 10, dirs[i] | PCAM_FBSD_CAM_DATA_SG, NULL, 512, 0, 1000);
        assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_INVALID);
        assert_int_equal(f->m.refusals, ++nref);
    }
    /* A good read is no refusal. */
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN, buf, 512, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(f->m.refusals, nref);
    assert_int_equal(tstats_commands(f, 0), 1);
    /* A bad tag message with CAM_TAG_ACTION_VALID. */
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_TAG_ACTION_VALID, buf, 512, 0x24, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_INVALID);
    /* The same with CAM_DEV_QFRZDIS: no freeze. */
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_BOTH | PCAM_FBSD_CAM_DEV_QFRZDIS, buf, 512, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    /* Paths beyond a byte must not alias onto real targets; the initiator is no target. */
    cm_csio(&q, 256, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN, buf, 512, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_PATH_INVALID);
    cm_csio(&q, 7, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN, buf, 512, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_PATH_INVALID);
    /* Too many segments for the translator, and more than the chip takes. */
    static pcam_fbsd_seg segs[PCAM_FBSD_MAX_SEGS + 1];
    for (size_t i = 0; i < PCAM_FBSD_MAX_SEGS + 1; i++) {
        segs[i].ds_addr = (uintptr_t)(buf + 8 * i);
        segs[i].ds_len = 8;
    }
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_DATA_SG, segs, 512, 0, 1000);
    q.r.cc.u.csio.sglist_cnt = PCAM_FBSD_MAX_SEGS + 1;
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_TOO_BIG);
#if SIZE_MAX > UINT32_MAX
    /* A segment longer than the 32-bit lengths below the translator hold:
     * refused, not truncated to its low 32 bits (here 8 bytes). */
    segs[0].ds_len = (size_t)UINT32_MAX + 1 + 8;
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_DATA_SG, segs, 8, 0, 1000);
    q.r.cc.u.csio.sglist_cnt = 1;
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_TOO_BIG);
    segs[0].ds_len = 8;
#endif
    /* One block past the maxio path inquiry announced (64 KiB here). */
    cm_cdb_rw10(cdb, false, 0, 129);
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN, buf, 129 * 512, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_TOO_BIG);
    assert_int_equal(tstats_commands(f, 0), 1); /* none of these but the good read reached the target */
    /* Each of the refusals above told the glue (the long segment only where size_t is 64 bits). */
    assert_int_equal(f->m.refusals, nref + (SIZE_MAX > UINT32_MAX ? 7 : 6));
    assert_int_equal(f->m.refused_status, PCAM_FBSD_CAM_REQ_TOO_BIG);
    assert_true(f->m.refused_before_done);
    fx_free(f);

    pcam_sim_config sc;
    pcam_sim_config_defaults(&sc);
    sc.cap_max_sg = 4;
    f = fx_new(&sc, NULL);
    fx_disk(f, 0, 0, 256, false);
    cm_csio(&q, 0, 0, cdb, 10, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_DATA_SG, segs, 40, 0, 1000);
    q.r.cc.u.csio.sglist_cnt = 5;
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_REQ_TOO_BIG);
    /* A function this SIM does not have, and an abort of nothing. */
    assert_int_equal(f->m.refusals, 1);
    cm_func(&q, 0x30, 0, 0); /* XPT_EN_LUN: target mode */
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    assert_int_equal(f->m.refusals, 2);
    assert_int_equal(f->m.refused_func, 0x30);
    cm_func(&q, 0xEE, 0, 0); /* no function at all */
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    assert_int_equal(f->m.refusals, 3);
    assert_int_equal(f->m.refused_func, 0xEE);
    /* A reset or transfer-settings request for a path beyond a byte. */
    cm_func(&q, PCAM_FBSD_XPT_RESET_DEV, 0x100, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10) & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_PATH_INVALID);
    cm_func(&q, PCAM_FBSD_XPT_GET_TRAN_SETTINGS, 0, 0x100);
    q.r.cc.u.cts.type = PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS;
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_PATH_INVALID);
    assert_int_equal(f->m.refusals, 5);
    assert_int_equal(f->m.refused_status, PCAM_FBSD_CAM_PATH_INVALID);
    /* An abort that finds nothing is a race CAM may lose, not bad input: no line. */
    cm_func(&q, PCAM_FBSD_XPT_ABORT, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_INVALID);
    assert_int_equal(f->m.refusals, 5);
    assert_true(f->m.refused_before_done);
    assert_int_equal(f->m.freezes, f->m.releases);
    fx_free(f);
}

static void cdb16_rw(uint8_t *c, uint8_t op, uint64_t lba, uint32_t n)
{
    memset(c, 0, 16);
    c[0] = op;
    for (int i = 0; i < 8; i++)
        c[2 + i] = (uint8_t)(lba >> (56 - 8 * i));
    for (int i = 0; i < 4; i++)
        c[10 + i] = (uint8_t)(n >> (24 - 8 * i));
}

/*
 * What da(4) sends a disk over 2 TiB: READ CAPACITY(16) and READ/WRITE(16),
 * inline (cdb_bytes, CAM's IOCDBLEN is 16) and by CAM_CDB_POINTER. CAM's
 * ccb_pathinq has no CDB-length field; the only CDB-size word a SIM gives
 * is hba_misc's PIM_NO_6_BYTE, and pcam's leaves hba_misc clear. A 16-byte
 * READ at LBA 2^32 + 100 must reach the target whole: the 4096-block disk
 * refuses it (5/21/00), where a CDB cut to its low LBA bytes would read
 * block 100 and succeed.
 */
static void cdb16(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 0, 0, 4096, false);
    static uint8_t buf[4096];
    uint8_t cdb[16];
    cm_req q;

    cm_func(&q, PCAM_FBSD_XPT_PATH_INQ, 0, 0);
    assert_int_equal(cm_sync(&f->m, &q, 10), PCAM_FBSD_CAM_REQ_CMP);
    assert_int_equal(q.r.cc.u.cpi.hba_misc, 0); /* no PIM_NO_6_BYTE or any other limit */

    cdb16_rw(cdb, 0x9E, 0, 32); /* SERVICE ACTION IN(16) */
    cdb[1] = 0x10;              /* READ CAPACITY(16) */
    memset(buf, 0xEE, 32);
    cm_csio(&q, 0, 0, cdb, 16, PCAM_FBSD_CAM_DIR_IN, buf, 32, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 100), PCAM_FBSD_CAM_REQ_CMP);
    uint64_t last = 0;
    for (int i = 0; i < 8; i++)
        last = last << 8 | buf[i];
    assert_int_equal(last, 4095);
    assert_int_equal((uint32_t)buf[8] << 24 | (uint32_t)buf[9] << 16 | (uint32_t)buf[10] << 8 | buf[11], 512);

    /* WRITE(16) inline, then READ(16) through a CDB pointer (cdb_bytes cleared). */
    static uint8_t pat[4096];
    for (size_t i = 0; i < sizeof pat; i++)
        pat[i] = (uint8_t)(i * 7 + 3);
    cdb16_rw(cdb, 0x8A, 200, 8);
    cm_csio(&q, 0, 0, cdb, 16, PCAM_FBSD_CAM_DIR_OUT, pat, 4096, 0, 1000);
    assert_int_equal(cm_sync(&f->m, &q, 100), PCAM_FBSD_CAM_REQ_CMP);
    assert_true(fx_media_ok(f, 0, 0, 200, pat, 4096));
    cdb16_rw(cdb, 0x88, 200, 8);
    cm_csio(&q, 0, 0, cdb, 16, PCAM_FBSD_CAM_DIR_IN | PCAM_FBSD_CAM_CDB_POINTER, buf, 4096, 0, 1000);
    memset(q.r.cc.u.csio.cdb_bytes, 0, sizeof q.r.cc.u.csio.cdb_bytes);
    q.r.cc.u.csio.cdb_ptr = cdb;
    memset(buf, 0, sizeof buf);
    assert_int_equal(cm_sync(&f->m, &q, 100), PCAM_FBSD_CAM_REQ_CMP);
    assert_memory_equal(buf, pat, 4096);

    /* LBA 2^32 + 100, both ways: the target sees the whole LBA. */
    for (int ptr = 0; ptr < 2; ptr++) {
        cdb16_rw(cdb, 0x88, 0x100000064ull, 1);
        cm_csio(&q, 0, 0, cdb, 16, PCAM_FBSD_CAM_DIR_IN | (ptr ? PCAM_FBSD_CAM_CDB_POINTER : 0), buf, 512, 0,
                1000);
        if (ptr) {
            memset(q.r.cc.u.csio.cdb_bytes, 0, sizeof q.r.cc.u.csio.cdb_bytes);
            q.r.cc.u.csio.cdb_ptr = cdb;
        }
        uint32_t st = cm_sync(&f->m, &q, 100);
        assert_int_equal(st & PCAM_FBSD_CAM_STATUS_MASK, PCAM_FBSD_CAM_SCSI_STATUS_ERROR);
        assert_true((st & PCAM_FBSD_CAM_AUTOSNS_VALID) != 0);
        assert_int_equal(q.r.cc.u.csio.scsi_status, 2);
        assert_int_equal(q.r.cc.u.csio.sense_data[2] & 0x0F, 5);   /* ILLEGAL REQUEST */
        assert_int_equal(q.r.cc.u.csio.sense_data[12], 0x21);      /* LBA OUT OF RANGE */
    }
    assert_int_equal(tstats_commands(f, 0), 5 + 2); /* and a REQUEST SENSE per CHECK CONDITION */
    assert_int_equal(f->m.freezes, f->m.releases);
    fx_free(f);
}

static bool scan_done;
static void scan_cb(pcam_ccb *c)
{
    (void)c;
    scan_done = true;
}

static void core_scan_lun(fbsd_fx *f, pcam_ccb *sc, uint8_t t, uint8_t l)
{
    memset(sc, 0, sizeof *sc);
    sc->func = PCAM_FN_SCAN_LUN;
    sc->target = t;
    sc->lun = l;
    sc->done = scan_cb;
    scan_done = false;
    pcam_action(&f->r.bus, sc);
    for (int i = 0; i < 1000000 && !scan_done; i++)
        if (!f->m.step(f->m.step_ctx))
            break;
    assert_true(scan_done);
}

/* The core's own scan (not CAM's: xpt scans through SCSI I/O) reports a LUN
 * found and lost as AC_FOUND_DEVICE / AC_LOST_DEVICE on its path. */
static void found_lost(void **state)
{
    (void)state;
    fbsd_fx *f = fx_new(NULL, NULL);
    fx_disk(f, 4, 1, 128, false);
    pcam_ccb sc;
    core_scan_lun(f, &sc, 4, 1);
    const cm_event *e = cm_event_find(&f->m, PCAM_FBSD_AC_FOUND_DEVICE, 0);
    assert_non_null(e);
    assert_int_equal(e->target, 4);
    assert_int_equal(e->lun, 1);
    assert_null(cm_event_find(&f->m, PCAM_FBSD_AC_LOST_DEVICE, 0));
    pcam_simlu_init_absent(pcam_sim_lu(f->r.sim, 4, 1));
    core_scan_lun(f, &sc, 4, 1);
    e = cm_event_find(&f->m, PCAM_FBSD_AC_LOST_DEVICE, 0);
    assert_non_null(e);
    assert_int_equal(e->target, 4);
    assert_int_equal(e->lun, 1);
    fx_free(f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(status_table), cmocka_unit_test(path_inquiry), cmocka_unit_test(bus_scan),
        cmocka_unit_test(negotiate),    cmocka_unit_test(geometry),     cmocka_unit_test(bad_requests),
        cmocka_unit_test(found_lost),   cmocka_unit_test(cdb16),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
