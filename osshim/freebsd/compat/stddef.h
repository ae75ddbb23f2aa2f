/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel builds only: core/'s <stddef.h> is the kernel's <sys/stddef.h>. Never on the host. */
#ifndef PCAM_FBSD_COMPAT_STDDEF_H
#define PCAM_FBSD_COMPAT_STDDEF_H
#include <sys/stddef.h>
#endif
