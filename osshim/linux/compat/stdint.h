/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * <stdint.h> for core/ and hal/esp inside a Kbuild build, where no libc or
 * compiler headers are reachable (-nostdinc): the kernel's own fixed-width
 * types, so glue code that sees both pcam.h and kernel headers gets one
 * definition of each. Only the names the core uses; never add policy here.
 */
#ifndef PCAM_LX_COMPAT_STDINT_H
#define PCAM_LX_COMPAT_STDINT_H
#include <linux/types.h>
#include <linux/limits.h>
#define UINT8_MAX U8_MAX
#define UINT16_MAX U16_MAX
#define UINT32_MAX U32_MAX
#define UINT64_MAX U64_MAX
#define INT32_MAX S32_MAX
#define INT32_MIN S32_MIN
#endif
