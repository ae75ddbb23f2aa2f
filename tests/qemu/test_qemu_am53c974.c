/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * QEMU's AM53C974 reached through the qtest platform, with no back-end in
 * between: PCI enumeration and BAR assignment, ESP register access, an
 * interrupt from the chip, and SCSI commands whose CDBs and data travel by
 * DMA through guest RAM (bounced and in place, over shared RAM and over the
 * socket).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pcam_posix.h"
#include "qemu_rig.h"

#define SECTORS 2048u
#define SALT 0x5000u

static const char *image;

static pcam_qemu *start(bool shared)
{
    pcam_qemu_drive d;
    pcam_qemu_opts o;
    pcam_qemu *q = NULL;
    char err[1024];
    int rc;

    memset(&d, 0, sizeof d);
    d.kind = PCAM_QEMU_HD;
    d.image = image;
    d.scsi_id = 0;
    memset(&o, 0, sizeof o);
    o.drives = &d;
    o.ndrives = 1;
    o.ram_mb = 32;
    o.no_shared_ram = !shared;
    rc = pcam_qemu_start(&q, &o, err, sizeof err);
    if (rc != 0)
        fail_msg("pcam_qemu_start: %d %s", rc, err);
    return q;
}

static void test_pci_enumeration(void **state)
{
    pcam_qemu_pci_dev devs[16], esp;
    size_t n = 0, i;
    bool host = false, isa = false, scsi = false;
    uint32_t v;
    pcam_qemu *q;

    (void)state;
    q = start(true);
    assert_int_equal(pcam_qemu_pci_scan(q, devs, 16, &n), 0);
    assert_true(n >= 3 && n <= 16);
    for (i = 0; i < n; i++) {
        /* i440FX host bridge 8086:1237 at 00:00.0, PIIX3 ISA bridge
         * 8086:7000 at 00:01.0 (class 060100), AM53C974 1022:2020 with
         * class 010000 (SCSI controller): QEMU's pc machine and esp-pci.c. */
        if (devs[i].vendor == 0x8086 && devs[i].device == 0x1237)
            host = devs[i].dev == 0;
        if (devs[i].vendor == 0x8086 && devs[i].device == 0x7000)
            isa = devs[i].dev == 1 && devs[i].fn == 0 && devs[i].class_code == 0x060100;
        if (devs[i].vendor == 0x1022 && devs[i].device == 0x2020)
            scsi = devs[i].class_code == 0x010000;
    }
    assert_true(host);
    assert_true(isa);
    assert_true(scsi);

    assert_int_equal(pcam_qemu_find_pci(q, 0x1022, 0x2020, 1, 11, &esp), -ENODEV);
    assert_int_equal(pcam_qemu_find_pci(q, 0x1022, 0x2020, 0, 7, &esp), -EINVAL);
    assert_int_equal(pcam_qemu_find_pci(q, 0x1022, 0x2020, 0, 11, &esp), 0);
    /* BAR0 is 128 bytes of I/O space (QEMU.md; esp-pci.c registers an
     * 0x80-byte I/O region), placed at the first I/O window. */
    assert_true(esp.bar[0].io);
    assert_int_equal(esp.bar[0].size, 0x80);
    assert_int_equal(esp.bar[0].addr, 0xc000);
    assert_int_equal(esp.bar[1].size, 0);
    assert_int_equal(esp.irq_pin, 1);
    assert_int_equal(esp.irq, 11);
    assert_int_equal(pcam_qemu_pci_cfg_read(q, &esp, 0x10, 4, &v), 0);
    assert_int_equal(v, 0xc001u);
    assert_int_equal(pcam_qemu_pci_cfg_read(q, &esp, 0x04, 2, &v), 0);
    assert_int_equal(v & 7u, 7u); /* I/O, memory, bus master */
    assert_int_equal(pcam_qemu_pci_cfg_read(q, &esp, 0x3c, 1, &v), 0);
    assert_int_equal(v, 11);
    assert_int_equal(pcam_qemu_pci_cfg_read(q, &esp, 0x3d, 2, &v), -EINVAL); /* misaligned */
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_registers_and_bus_reset_irq(void **state)
{
    pcam_qemu_stats st0, st1;
    qrig_esp e;
    pcam_qemu *q;
    uint32_t v;

    (void)state;
    q = start(true);
    assert_int_equal(qrig_esp_attach(&e, q), 0);
    /* TCHI reads the chip ID until it is first written: 0x12 on the
     * AM53C974 (QEMU.md; esp-pci.c sets chip_id 0x12). */
    assert_int_equal(qrig_esp_r(&e, ESP_TCHI), 0x12);
    /* CFG1 reads back what was written (own ID 7). */
    assert_int_equal(qrig_esp_r(&e, ESP_CFG1), 0x07);
    /* A DMA NOP loads the transfer counter from the start count. */
    qrig_esp_w(&e, ESP_TCLO, 0x34);
    qrig_esp_w(&e, ESP_TCMID, 0x12);
    qrig_esp_w(&e, ESP_CMD, ESPC_NOP | ESPC_DMA);
    assert_int_equal(qrig_esp_r(&e, ESP_TCLO), 0x34);
    assert_int_equal(qrig_esp_r(&e, ESP_TCMID), 0x12);
    /* 32-bit DMA engine registers through read32/write32. */
    e.plat.write32(e.plat.ctx, e.base + DMA_SPA, 0x00123400u);
    assert_int_equal(e.plat.read32(e.plat.ctx, e.base + DMA_SPA), 0x00123400u);
    e.plat.write32(e.plat.ctx, e.base + DMA_STC, 0x1000u);
    assert_int_equal(e.plat.read32(e.plat.ctx, e.base + DMA_STC), 0x1000u);

    /* No interrupt is pending after the reset. */
    assert_false(pcam_qemu_irq(q, 11));
    assert_int_equal(pcam_qemu_wait_irq(q, 11, 50), 0);
    /* SCSI bus reset: INTR 0x80 (SCSI reset detected) and the line goes
     * high; reading INTR clears it and the line drops. */
    pcam_qemu_get_stats(q, &st0);
    qrig_esp_w(&e, ESP_CMD, ESPC_BUSRESET);
    /* The model raises INTR while it runs the command, so "IRQ raise 11"
     * comes before the OK of the write: the write itself absorbed it. */
    pcam_qemu_get_stats(q, &st1);
    assert_int_equal(st1.irq_events, st0.irq_events + 1);
    assert_int_equal(pcam_qemu_wait_irq(q, 11, 2000), 1);
    assert_true(pcam_qemu_irq(q, 11));
    assert_int_equal(qrig_esp_r(&e, ESP_INTR), INTR_RST);
    assert_false(pcam_qemu_irq(q, 11));
    assert_int_equal(pcam_qemu_in(q, (uint32_t)e.base + 4u * ESP_INTR, 1, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void check_inquiry(const uint8_t *d)
{
    /* scsi-hd INQUIRY: peripheral type 0, vendor "QEMU    ", product
     * "QEMU HARDDISK   " (QEMU hw/scsi/scsi-disk.c defaults). */
    assert_int_equal(d[0], 0x00);
    assert_memory_equal(d + 8, "QEMU    ", 8);
    assert_memory_equal(d + 16, "QEMU HARDDISK   ", 16);
}

static void commands(qrig_esp *e, bool in_place)
{
    static const uint8_t tur[6] = { 0x00, 0, 0, 0, 0, 0 };
    static const uint8_t inq[6] = { 0x12, 0, 0, 0, 36, 0 };
    static const uint8_t sense[6] = { 0x03, 0, 0, 0, 18, 0 };
    uint8_t rd10[10] = { 0x28, 0, 0, 0, 0, 5, 0, 0, 4, 0 };     /* LBA 5, 4 blocks */
    uint8_t wr10[10] = { 0x2a, 0, 0, 0, 0x01, 0x00, 0, 0, 2, 0 }; /* LBA 256, 2 blocks */
    uint8_t host[2048], expect[2048], *buf = host;
    uint64_t gpa = 0;
    qrig_result r;
    unsigned i;

    if (in_place) {
        buf = pcam_qemu_guest_alloc(e->q, sizeof host, &gpa);
        assert_non_null(buf);
    }
    memset(buf, 0xcc, 64);
    assert_int_equal(qrig_esp_command(e, 0, 0, inq, 6, buf, 36, true, &r), 0);
    assert_true(r.selected);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.msg, 0);
    assert_int_equal(r.data_len, 36);
    check_inquiry(buf);
    assert_int_equal(buf[36], 0xcc); /* nothing past the allocation length */

    /* The first media access reports the power-on UNIT ATTENTION:
     * CHECK CONDITION, then sense 6/29/00 (SPC: POWER ON, RESET, OR BUS
     * DEVICE RESET OCCURRED). */
    assert_int_equal(qrig_esp_command(e, 0, 0, tur, 6, NULL, 0, false, &r), 0);
    if (r.status == 0x02) {
        assert_int_equal(qrig_esp_command(e, 0, 0, sense, 6, buf, 18, true, &r), 0);
        assert_int_equal(r.status, 0);
        assert_int_equal(buf[0] & 0x7f, 0x70);
        assert_int_equal(buf[2] & 0x0f, 0x6);
        assert_int_equal(buf[12], 0x29);
        assert_int_equal(qrig_esp_command(e, 0, 0, tur, 6, NULL, 0, false, &r), 0);
    }
    assert_int_equal(r.status, 0);

    /* READ(10) of four blocks: the image holds n + SALT in block n. */
    memset(buf, 0, 2048);
    assert_int_equal(qrig_esp_command(e, 0, 0, rd10, 10, buf, 2048, true, &r), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.data_len, 2048);
    for (i = 0; i < 4; i++) {
        qrig_sector(expect, 5 + i, SALT);
        assert_memory_equal(buf + 512 * i, expect, 512);
    }

    /* WRITE(10) two blocks and read them back, and from the host file. */
    for (i = 0; i < 1024; i++)
        buf[i] = (uint8_t)(i * 13 + 5 + in_place);
    memcpy(expect, buf, 1024);
    assert_int_equal(qrig_esp_command(e, 0, 0, wr10, 10, buf, 1024, false, &r), 0);
    assert_int_equal(r.status, 0);
    assert_int_equal(r.data_len, 1024);
    memset(buf, 0, 1024);
    rd10[4] = 0x01;
    rd10[5] = 0x00;
    rd10[8] = 2;
    assert_int_equal(qrig_esp_command(e, 0, 0, rd10, 10, buf, 1024, true, &r), 0);
    assert_int_equal(r.status, 0);
    assert_memory_equal(buf, expect, 1024);
    assert_true(qrig_read_file(image, 256u * 512u, host + 1024, 1024));
    assert_memory_equal(host + 1024, expect, 1024);

    /* An absent target does not answer selection. */
    assert_int_equal(qrig_esp_command(e, 5, 0, tur, 6, NULL, 0, false, &r), 0);
    assert_false(r.selected);
    if (in_place)
        assert_int_equal(pcam_qemu_guest_free(e->q, gpa), 0);
    assert_int_equal(pcam_qemu_guest_live(e->q), 0);
}

static void test_dma_commands_shared_ram(void **state)
{
    pcam_qemu_stats st;
    qrig_esp e;
    pcam_qemu *q;

    (void)state;
    q = start(true);
    assert_int_equal(qrig_esp_attach(&e, q), 0);
    commands(&e, false);
    commands(&e, true);
    pcam_qemu_get_stats(q, &st);
    assert_true(st.dma_bounced > 0);
    assert_true(st.dma_maps > st.dma_bounced); /* some in place */
    assert_int_equal(st.bulk_bytes, 0);          /* never through the socket */
    assert_true(st.irq_events > 0);
    printf("AM53C974 commands over shared RAM: %llu round trips, %llu IRQ lines, "
           "%llu DMA maps (%llu bounced)\n",
           (unsigned long long)st.round_trips, (unsigned long long)st.irq_events,
           (unsigned long long)st.dma_maps, (unsigned long long)st.dma_bounced);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

static void test_dma_commands_over_socket(void **state)
{
    pcam_qemu_stats st;
    qrig_esp e;
    pcam_qemu *q;

    (void)state;
    q = start(false);
    assert_int_equal(qrig_esp_attach(&e, q), 0);
    commands(&e, false);
    pcam_qemu_get_stats(q, &st);
    assert_int_equal(st.shm_bytes, 0);
    assert_true(st.bulk_bytes > 2048);
    assert_int_equal(pcam_qemu_stop(q), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pci_enumeration),
        cmocka_unit_test(test_registers_and_bus_reset_irq),
        cmocka_unit_test(test_dma_commands_shared_ram),
        cmocka_unit_test(test_dma_commands_over_socket),
    };

    qrig_require_qemu();
    image = qrig_image("am53c974.img", SECTORS, SALT);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
