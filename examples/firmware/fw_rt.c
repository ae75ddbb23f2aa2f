/* SPDX-License-Identifier: BSD-2-Clause */
/*
 * fw_rt.c: the compiler-runtime helpers a 32-bit build calls for 64-bit
 * division, for toolchains that bring no runtime library (clang
 * --target=mips-unknown-elf has no libgcc or compiler-rt builtins in
 * Debian). docs/embedded.md lists where pcam needs them: off the
 * per-command path. It must stay plain shift-and-subtract: no '/' on
 * 64-bit values here, or the helper calls itself.
 */
#include "fw.h"

uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
int64_t __divdi3(int64_t n, int64_t d);
int64_t __moddi3(int64_t n, int64_t d);

uint64_t __udivdi3(uint64_t n, uint64_t d)
{
    return fw_divmod(n, d, NULL);
}

uint64_t __umoddi3(uint64_t n, uint64_t d)
{
    uint64_t r;
    (void)fw_divmod(n, d, &r);
    return r;
}

int64_t __divdi3(int64_t n, int64_t d)
{
    uint64_t q = fw_divmod(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, NULL);
    return (n < 0) != (d < 0) ? -(int64_t)q : (int64_t)q;
}

int64_t __moddi3(int64_t n, int64_t d)
{
    uint64_t r;
    (void)fw_divmod(n < 0 ? -(uint64_t)n : (uint64_t)n, d < 0 ? -(uint64_t)d : (uint64_t)d, &r);
    return n < 0 ? -(int64_t)r : (int64_t)r;
}
