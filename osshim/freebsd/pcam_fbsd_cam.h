/* SPDX-License-Identifier: BSD-2-Clause */
/**
 * @file pcam_fbsd_cam.h
 * @brief The FreeBSD CAM constants and CCB fields the FreeBSD shim translates,
 *        with FreeBSD's values, in pcam's own form.
 *
 * Facts, not code: every name below is FreeBSD's own (prefixed PCAM_FBSD_)
 * and its value is the one in FreeBSD's sys/cam/cam.h (statuses),
 * sys/cam/cam_ccb.h (function codes, CCB flags, path inquiry, transfer
 * settings, async codes) or sys/cam/scsi/scsi_all.h and
 * scsi_message.h (sense size, SCSI revision, tag and PPR message codes).
 * The values are the same on FreeBSD 13 and 14.
 *
 * The structures are NOT FreeBSD's layout: they carry only the fields the
 * translator reads or writes, and the kernel glue (pcam_fbsd_kmod.c) copies
 * them to and from the real union ccb. That keeps the translator buildable
 * and testable without FreeBSD headers, and keeps it free of FreeBSD's
 * struct padding and ABI history. This header must never include a
 * FreeBSD header.
 */
#ifndef PCAM_FBSD_CAM_H
#define PCAM_FBSD_CAM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @name cam_status (sys/cam/cam.h) */
/** @{ */
#define PCAM_FBSD_CAM_REQ_INPROG 0x00u       /**< CAM_REQ_INPROG */
#define PCAM_FBSD_CAM_REQ_CMP 0x01u          /**< CAM_REQ_CMP */
#define PCAM_FBSD_CAM_REQ_ABORTED 0x02u      /**< CAM_REQ_ABORTED */
#define PCAM_FBSD_CAM_REQ_CMP_ERR 0x04u      /**< CAM_REQ_CMP_ERR */
#define PCAM_FBSD_CAM_BUSY 0x05u             /**< CAM_BUSY */
#define PCAM_FBSD_CAM_REQ_INVALID 0x06u      /**< CAM_REQ_INVALID */
#define PCAM_FBSD_CAM_PATH_INVALID 0x07u     /**< CAM_PATH_INVALID */
#define PCAM_FBSD_CAM_DEV_NOT_THERE 0x08u    /**< CAM_DEV_NOT_THERE */
#define PCAM_FBSD_CAM_SEL_TIMEOUT 0x0Au      /**< CAM_SEL_TIMEOUT */
#define PCAM_FBSD_CAM_CMD_TIMEOUT 0x0Bu      /**< CAM_CMD_TIMEOUT */
#define PCAM_FBSD_CAM_SCSI_STATUS_ERROR 0x0Cu /**< CAM_SCSI_STATUS_ERROR */
#define PCAM_FBSD_CAM_MSG_REJECT_REC 0x0Du   /**< CAM_MSG_REJECT_REC */
#define PCAM_FBSD_CAM_SCSI_BUS_RESET 0x0Eu   /**< CAM_SCSI_BUS_RESET */
#define PCAM_FBSD_CAM_UNCOR_PARITY 0x0Fu     /**< CAM_UNCOR_PARITY */
#define PCAM_FBSD_CAM_AUTOSENSE_FAIL 0x10u   /**< CAM_AUTOSENSE_FAIL */
#define PCAM_FBSD_CAM_NO_HBA 0x11u           /**< CAM_NO_HBA */
#define PCAM_FBSD_CAM_DATA_RUN_ERR 0x12u     /**< CAM_DATA_RUN_ERR */
#define PCAM_FBSD_CAM_UNEXP_BUSFREE 0x13u    /**< CAM_UNEXP_BUSFREE */
#define PCAM_FBSD_CAM_SEQUENCE_FAIL 0x14u    /**< CAM_SEQUENCE_FAIL */
#define PCAM_FBSD_CAM_BDR_SENT 0x17u         /**< CAM_BDR_SENT */
#define PCAM_FBSD_CAM_REQ_TOO_BIG 0x1Au      /**< CAM_REQ_TOO_BIG */
#define PCAM_FBSD_CAM_REQUEUE_REQ 0x1Bu      /**< CAM_REQUEUE_REQ */
#define PCAM_FBSD_CAM_RESRC_UNAVAIL 0x34u    /**< CAM_RESRC_UNAVAIL */
#define PCAM_FBSD_CAM_FUNC_NOTAVAIL 0x3Au    /**< CAM_FUNC_NOTAVAIL */
#define PCAM_FBSD_CAM_DEV_QFRZN 0x40u        /**< CAM_DEV_QFRZN: the device queue is frozen */
#define PCAM_FBSD_CAM_AUTOSNS_VALID 0x80u    /**< CAM_AUTOSNS_VALID */
#define PCAM_FBSD_CAM_STATUS_MASK 0x3Fu      /**< CAM_STATUS_MASK */
/** @} */

/** @name xpt_opcode (sys/cam/cam_ccb.h; the XPT_FC_* flag bits included) */
/** @{ */
#define PCAM_FBSD_XPT_SCSI_IO 0x901u          /**< XPT_SCSI_IO (0x01 | XPT_FC_DEV_QUEUED) */
#define PCAM_FBSD_XPT_PATH_INQ 0x004u         /**< XPT_PATH_INQ */
#define PCAM_FBSD_XPT_ABORT 0x010u            /**< XPT_ABORT */
#define PCAM_FBSD_XPT_RESET_BUS 0x411u        /**< XPT_RESET_BUS (0x11 | XPT_FC_XPT_ONLY) */
#define PCAM_FBSD_XPT_RESET_DEV 0x912u        /**< XPT_RESET_DEV (0x12 | XPT_FC_DEV_QUEUED) */
#define PCAM_FBSD_XPT_GET_TRAN_SETTINGS 0x015u /**< XPT_GET_TRAN_SETTINGS */
#define PCAM_FBSD_XPT_SET_TRAN_SETTINGS 0x016u /**< XPT_SET_TRAN_SETTINGS */
#define PCAM_FBSD_XPT_CALC_GEOMETRY 0x017u    /**< XPT_CALC_GEOMETRY */
#define PCAM_FBSD_XPT_FC_DEV_QUEUED 0x900u    /**< XPT_FC_DEV_QUEUED (0x800 | XPT_FC_QUEUED) */
/** @} */

/** @name ccb_flags (sys/cam/cam_ccb.h) */
/** @{ */
#define PCAM_FBSD_CAM_CDB_POINTER 0x00000001u   /**< CAM_CDB_POINTER: cdb_io holds a pointer */
#define PCAM_FBSD_CAM_DIS_AUTOSENSE 0x00000020u /**< CAM_DIS_AUTOSENSE */
#define PCAM_FBSD_CAM_DIR_BOTH 0x00000000u      /**< CAM_DIR_BOTH (not supported by SPI) */
#define PCAM_FBSD_CAM_DIR_IN 0x00000040u        /**< CAM_DIR_IN */
#define PCAM_FBSD_CAM_DIR_OUT 0x00000080u       /**< CAM_DIR_OUT */
#define PCAM_FBSD_CAM_DIR_NONE 0x000000C0u      /**< CAM_DIR_NONE */
#define PCAM_FBSD_CAM_DIR_MASK 0x000000C0u      /**< CAM_DIR_MASK */
#define PCAM_FBSD_CAM_DATA_VADDR 0x00000000u    /**< CAM_DATA_VADDR */
#define PCAM_FBSD_CAM_DATA_PADDR 0x00000010u    /**< CAM_DATA_PADDR */
#define PCAM_FBSD_CAM_DATA_SG 0x00040000u       /**< CAM_DATA_SG (virtual segment list) */
#define PCAM_FBSD_CAM_DATA_BIO 0x00200000u      /**< CAM_DATA_BIO */
#define PCAM_FBSD_CAM_DATA_MASK 0x00240010u     /**< CAM_DATA_MASK */
#define PCAM_FBSD_CAM_DEV_QFRZDIS 0x00000400u   /**< CAM_DEV_QFRZDIS: do not freeze on error */
#define PCAM_FBSD_CAM_TAG_ACTION_VALID 0x00008000u /**< CAM_TAG_ACTION_VALID */
#define PCAM_FBSD_CAM_DIS_DISCONNECT 0x00020000u   /**< CAM_DIS_DISCONNECT */
#define PCAM_FBSD_CAM_CDB_PHYS 0x00400000u      /**< CAM_CDB_PHYS */
/** @} */

/** @name Tags, PPR, width, sense, revision (cam_ccb.h, scsi_message.h, scsi_all.h) */
/** @{ */
#define PCAM_FBSD_CAM_TAG_ACTION_NONE 0x00u     /**< CAM_TAG_ACTION_NONE */
#define PCAM_FBSD_MSG_SIMPLE_Q_TAG 0x20u        /**< MSG_SIMPLE_Q_TAG */
#define PCAM_FBSD_MSG_HEAD_OF_Q_TAG 0x21u       /**< MSG_HEAD_OF_Q_TAG */
#define PCAM_FBSD_MSG_ORDERED_Q_TAG 0x22u       /**< MSG_ORDERED_Q_TAG */
#define PCAM_FBSD_MSG_EXT_PPR_IU_REQ 0x01u      /**< MSG_EXT_PPR_IU_REQ */
#define PCAM_FBSD_MSG_EXT_PPR_DT_REQ 0x02u      /**< MSG_EXT_PPR_DT_REQ */
#define PCAM_FBSD_MSG_EXT_PPR_QAS_REQ 0x04u     /**< MSG_EXT_PPR_QAS_REQ */
#define PCAM_FBSD_MSG_EXT_WDTR_BUS_8_BIT 0x00u  /**< MSG_EXT_WDTR_BUS_8_BIT */
#define PCAM_FBSD_MSG_EXT_WDTR_BUS_16_BIT 0x01u /**< MSG_EXT_WDTR_BUS_16_BIT */
#define PCAM_FBSD_SSD_FULL_SIZE 252u            /**< SSD_FULL_SIZE: sizeof(struct scsi_sense_data) */
#define PCAM_FBSD_SCSI_REV_2 2u                 /**< SCSI_REV_2 */
#define PCAM_FBSD_CAM_MAX_CDBLEN 16u            /**< CAM_MAX_CDBLEN (IOCDBLEN) */
#define PCAM_FBSD_CAM_LUN_WILDCARD 0xFFFFFFFFu  /**< CAM_LUN_WILDCARD (lun_id_t ~0, low 32 bits) */
#define PCAM_FBSD_CAM_TARGET_WILDCARD 0xFFFFFFFFu /**< CAM_TARGET_WILDCARD */
/** @} */

/** @name Path inquiry (cam_ccb.h: pi_inqflag, cam_proto, cam_xport) */
/** @{ */
#define PCAM_FBSD_PI_WIDE_16 0x20u     /**< PI_WIDE_16 */
#define PCAM_FBSD_PI_SDTR_ABLE 0x10u   /**< PI_SDTR_ABLE */
#define PCAM_FBSD_PI_TAG_ABLE 0x02u    /**< PI_TAG_ABLE */
#define PCAM_FBSD_PROTO_SCSI 2u        /**< PROTO_SCSI */
#define PCAM_FBSD_XPORT_SPI 2u         /**< XPORT_SPI */
/** @} */

/** @name Transfer settings (cam_ccb.h: cts_type, ccb_trans_settings_scsi/spi) */
/** @{ */
#define PCAM_FBSD_CTS_TYPE_CURRENT_SETTINGS 0u /**< CTS_TYPE_CURRENT_SETTINGS */
#define PCAM_FBSD_CTS_TYPE_USER_SETTINGS 1u    /**< CTS_TYPE_USER_SETTINGS */
#define PCAM_FBSD_CTS_SCSI_VALID_TQ 0x01u      /**< CTS_SCSI_VALID_TQ */
#define PCAM_FBSD_CTS_SCSI_FLAGS_TAG_ENB 0x01u /**< CTS_SCSI_FLAGS_TAG_ENB */
#define PCAM_FBSD_CTS_SPI_VALID_SYNC_RATE 0x01u   /**< CTS_SPI_VALID_SYNC_RATE */
#define PCAM_FBSD_CTS_SPI_VALID_SYNC_OFFSET 0x02u /**< CTS_SPI_VALID_SYNC_OFFSET */
#define PCAM_FBSD_CTS_SPI_VALID_BUS_WIDTH 0x04u   /**< CTS_SPI_VALID_BUS_WIDTH */
#define PCAM_FBSD_CTS_SPI_VALID_DISC 0x08u        /**< CTS_SPI_VALID_DISC */
#define PCAM_FBSD_CTS_SPI_VALID_PPR_OPTIONS 0x10u /**< CTS_SPI_VALID_PPR_OPTIONS */
#define PCAM_FBSD_CTS_SPI_FLAGS_DISC_ENB 0x01u    /**< CTS_SPI_FLAGS_DISC_ENB */
/** @} */

/** @name ac_code (cam_ccb.h) */
/** @{ */
#define PCAM_FBSD_AC_BUS_RESET 0x001u      /**< AC_BUS_RESET */
#define PCAM_FBSD_AC_SENT_BDR 0x010u       /**< AC_SENT_BDR */
#define PCAM_FBSD_AC_FOUND_DEVICE 0x080u   /**< AC_FOUND_DEVICE */
#define PCAM_FBSD_AC_LOST_DEVICE 0x100u    /**< AC_LOST_DEVICE */
#define PCAM_FBSD_AC_TRANSFER_NEG 0x200u   /**< AC_TRANSFER_NEG */
/** @} */

/** One element of a CAM_DATA_SG list (bus_dma_segment_t with a virtual ds_addr). */
typedef struct pcam_fbsd_seg {
    uintptr_t ds_addr; /**< Kernel virtual address of the segment. */
    size_t ds_len;     /**< Its length. */
} pcam_fbsd_seg;

/** The fields of struct ccb_hdr the translator uses. */
typedef struct pcam_fbsd_hdr {
    uint32_t func_code;  /**< xpt_opcode. */
    uint32_t status;     /**< cam_status plus flag bits (out). */
    uint32_t target_id;  /**< target_id_t. */
    uint32_t target_lun; /**< lun_id_t (SPI LUNs fit in 32 bits). */
    uint32_t flags;      /**< ccb_flags. */
    uint32_t timeout;    /**< Milliseconds; CAM_TIME_DEFAULT (0) is the SIM's default, as pcam's 0 is. */
} pcam_fbsd_hdr;

/** The fields of struct ccb_scsiio the translator uses. */
typedef struct pcam_fbsd_csio {
    const uint8_t *cdb_ptr;  /**< cdb_io.cdb_ptr when CAM_CDB_POINTER. */
    uint8_t cdb_bytes[PCAM_FBSD_CAM_MAX_CDBLEN]; /**< cdb_io.cdb_bytes otherwise. */
    uint8_t cdb_len;         /**< cdb_len. */
    uint8_t *data_ptr;       /**< data_ptr (a buffer, or a pcam_fbsd_seg list with CAM_DATA_SG). */
    uint32_t dxfer_len;      /**< dxfer_len. */
    uint16_t sglist_cnt;     /**< sglist_cnt. */
    uint8_t sense_len;       /**< sense_len. */
    uint8_t tag_action;      /**< tag_action. */
    uint8_t sense_data[PCAM_FBSD_SSD_FULL_SIZE]; /**< sense_data (out). */
    uint8_t scsi_status;     /**< scsi_status (out). */
    uint8_t sense_resid;     /**< sense_resid (out). */
    uint32_t resid;          /**< resid (out). */
} pcam_fbsd_csio;

/** The fields of struct ccb_pathinq the translator fills. */
typedef struct pcam_fbsd_cpi {
    uint8_t version_num;          /**< version_num. */
    uint8_t hba_inquiry;          /**< hba_inquiry (PI_*). */
    uint16_t target_sprt;         /**< target_sprt. */
    uint32_t hba_misc;            /**< hba_misc. */
    uint32_t max_target;          /**< max_target. */
    uint32_t max_lun;             /**< max_lun. */
    uint32_t initiator_id;        /**< initiator_id. */
    char sim_vid[16];             /**< sim_vid. */
    char hba_vid[16];             /**< hba_vid. */
    char dev_name[16];            /**< dev_name. */
    uint32_t unit_number;         /**< unit_number. */
    uint32_t bus_id;              /**< bus_id. */
    uint32_t base_transfer_speed; /**< base_transfer_speed, KB/s. */
    uint32_t protocol;            /**< protocol (cam_proto). */
    uint32_t protocol_version;    /**< protocol_version. */
    uint32_t transport;           /**< transport (cam_xport). */
    uint32_t transport_version;   /**< transport_version (SPI generation). */
    uint8_t spi_ppr_options;      /**< xport_specific.spi.ppr_options. */
    uint32_t maxio;               /**< maxio, bytes. */
    uint16_t hba_vendor;          /**< hba_vendor (PCI). */
    uint16_t hba_device;          /**< hba_device (PCI). */
} pcam_fbsd_cpi;

/** The fields of struct ccb_trans_settings the translator uses. */
typedef struct pcam_fbsd_cts {
    uint32_t type;              /**< cts_type. */
    uint32_t protocol;          /**< protocol. */
    uint32_t protocol_version;  /**< protocol_version. */
    uint32_t transport;         /**< transport. */
    uint32_t transport_version; /**< transport_version. */
    uint32_t scsi_valid;        /**< proto_specific.scsi.valid. */
    uint32_t scsi_flags;        /**< proto_specific.scsi.flags. */
    uint32_t spi_valid;         /**< xport_specific.spi.valid. */
    uint32_t spi_flags;         /**< xport_specific.spi.flags. */
    uint32_t sync_period;       /**< xport_specific.spi.sync_period (a period factor). */
    uint32_t sync_offset;       /**< xport_specific.spi.sync_offset. */
    uint32_t bus_width;         /**< xport_specific.spi.bus_width (MSG_EXT_WDTR_BUS_*). */
    uint32_t ppr_options;       /**< xport_specific.spi.ppr_options (MSG_EXT_PPR_*). */
} pcam_fbsd_cts;

/** The fields of struct ccb_calc_geometry. */
typedef struct pcam_fbsd_ccg {
    uint32_t block_size;    /**< block_size (in). */
    uint64_t volume_size;   /**< volume_size in blocks (in). */
    uint32_t cylinders;     /**< cylinders (out). */
    uint8_t heads;          /**< heads (out). */
    uint8_t secs_per_track; /**< secs_per_track (out). */
} pcam_fbsd_ccg;

struct pcam_fbsd_req;

/** Our view of one union ccb: the header and the body of its function. */
typedef struct pcam_fbsd_ccb {
    pcam_fbsd_hdr ccb_h;                 /**< The header. */
    union {
        pcam_fbsd_csio csio;             /**< XPT_SCSI_IO. */
        pcam_fbsd_cpi cpi;               /**< XPT_PATH_INQ. */
        pcam_fbsd_cts cts;               /**< XPT_GET/SET_TRAN_SETTINGS. */
        pcam_fbsd_ccg ccg;               /**< XPT_CALC_GEOMETRY. */
        struct pcam_fbsd_req *abort_req; /**< XPT_ABORT: the request holding ccb_abort.abort_ccb. */
    } u;                                 /**< Per-function body. */
} pcam_fbsd_ccb;

#ifdef __cplusplus
}
#endif

#endif /* PCAM_FBSD_CAM_H */
