/* SPDX-License-Identifier: BSD-2-Clause */
/* <stdbool.h> for core/ under Kbuild (see stdint.h here): the kernel's bool, true and false. */
#ifndef PCAM_LX_COMPAT_STDBOOL_H
#define PCAM_LX_COMPAT_STDBOOL_H
#include <linux/types.h>
#include <linux/stddef.h>
#endif
