/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * The configuration check of every entry point that takes the caller's
 * storage (pcam.h, pcam_abi). The storage types are sized by the
 * configuration switches, so a program compiled with other switches than
 * the library hands over storage of the wrong size: the library must refuse
 * it before writing a byte, and say which side has which value, so that the
 * embedder can fix the build rather than debug a corrupted heap.
 *
 * Compiled in every configuration (it guards the minimal one most of all),
 * so it uses only the text builder's always-present part.
 */
#include "xpt.h"

static const pcam_abi library_abi = PCAM_ABI_INITIALIZER;

static void put_dec(pcam_strbuf *sb, uint32_t v)
{
    char digits[10];
    unsigned n = 0;
    do {
        digits[n++] = (char)('0' + v % 10u);
        v /= 10u;
    } while (v != 0 && n < sizeof digits);
    while (n > 0)
        pcam_sb_putc(sb, digits[--n]);
}

static void say(char *why, size_t cap, const char *what, uint32_t caller, uint32_t library)
{
    pcam_strbuf sb;
    if (why == NULL || cap == 0)
        return;
    pcam_sb_init(&sb, why, cap);
    pcam_sb_puts(&sb, what);
    pcam_sb_puts(&sb, ": caller ");
    put_dec(&sb, caller);
    pcam_sb_puts(&sb, ", library ");
    put_dec(&sb, library);
}

pcam_err pcam_abi_check(const pcam_abi *caller, char *why, size_t cap)
{
    /* The switches first: they are the cause an embedder can act on; the
     * sizes after them catch what no switch explains (other headers, a
     * compiler option that changes alignment). */
    static const struct {
        const char *name;
        size_t off;
    } items[] = {
        {"PCAM_CFG_MAX_TARGETS", offsetof(pcam_abi, max_targets)},
        {"PCAM_CFG_TAGS", offsetof(pcam_abi, tags)},
        {"PCAM_CFG_TAG_HASH", offsetof(pcam_abi, tag_hash)},
        {"PCAM_CFG_EVENT_RING", offsetof(pcam_abi, event_ring)},
        {"PCAM_CFG_SCAN_BUF", offsetof(pcam_abi, scan_buf)},
        {"PCAM_CFG_COUNTERS", offsetof(pcam_abi, counters)},
        {"sizeof(pcam_bus)", offsetof(pcam_abi, bus_size)},
        {"sizeof(pcam_ccb)", offsetof(pcam_abi, ccb_size)},
        {"sizeof(pcam_lun)", offsetof(pcam_abi, lun_size)},
        {"sizeof(pcam_target)", offsetof(pcam_abi, target_size)},
    };
    if (why != NULL && cap > 0)
        why[0] = '\0';
    if (caller == NULL) {
        if (why != NULL && cap > 0) {
            pcam_strbuf sb;
            pcam_sb_init(&sb, why, cap);
            pcam_sb_puts(&sb, "no pcam_abi from the caller");
        }
        return PCAM_ERR_ABI;
    }
    /* Only the two leading fields are read before both are known to agree:
     * a caller from another version may have a shorter pcam_abi. */
    if (caller->version != library_abi.version) {
        say(why, cap, "PCAM_ABI_VERSION", caller->version, library_abi.version);
        return PCAM_ERR_ABI;
    }
    if (caller->abi_size != library_abi.abi_size) {
        say(why, cap, "sizeof(pcam_abi)", caller->abi_size, library_abi.abi_size);
        return PCAM_ERR_ABI;
    }
    for (size_t i = 0; i < sizeof items / sizeof items[0]; i++) {
        uint32_t c, l;
        memcpy(&c, (const uint8_t *)caller + items[i].off, sizeof c);
        memcpy(&l, (const uint8_t *)&library_abi + items[i].off, sizeof l);
        if (c != l) {
            say(why, cap, items[i].name, c, l);
            return PCAM_ERR_ABI;
        }
    }
    return PCAM_OK;
}
