/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel builds only: core/'s <stdint.h> is the kernel's <sys/stdint.h>. Never on the host. */
#ifndef PCAM_FBSD_COMPAT_STDINT_H
#define PCAM_FBSD_COMPAT_STDINT_H
#include <sys/stdint.h>
#endif
