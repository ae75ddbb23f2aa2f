/* SPDX-License-Identifier: BSD-2-Clause */
/* <stddef.h> for core/ under Kbuild (see stdint.h here): size_t, NULL, offsetof from the kernel. */
#ifndef PCAM_LX_COMPAT_STDDEF_H
#define PCAM_LX_COMPAT_STDDEF_H
#include <linux/types.h>
#include <linux/stddef.h>
#endif
