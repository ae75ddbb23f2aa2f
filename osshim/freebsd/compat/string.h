/* SPDX-License-Identifier: BSD-2-Clause */
/* Kernel builds only: memcpy/memset/strlcpy come from libkern (<sys/systm.h>). Never on the host. */
#ifndef PCAM_FBSD_COMPAT_STRING_H
#define PCAM_FBSD_COMPAT_STRING_H
#include <sys/param.h>
#include <sys/systm.h>
#endif
