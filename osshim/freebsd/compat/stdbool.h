/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel builds only: the kernel's <sys/types.h> defines bool, true and false. Never on the host. */
#ifndef PCAM_FBSD_COMPAT_STDBOOL_H
#define PCAM_FBSD_COMPAT_STDBOOL_H
#include <sys/types.h>
#endif
