/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * An embedder's configuration file that changes nothing: a program that
 * names it (-DPCAM_CONFIG_FILE='"abi_default.h"') sees every switch at its
 * default, whatever configuration the installed headers recorded. The ABI
 * test (check.sh) builds such a program against a minimal install, the
 * mistake the library must refuse.
 */
#ifndef ABI_DEFAULT_H
#define ABI_DEFAULT_H
#endif
