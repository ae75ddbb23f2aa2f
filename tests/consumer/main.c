/* SPDX-License-Identifier: BSD-2-Clause */
/* A program outside the pcam tree, built only against the installed package. */
#include <stdio.h>
#include <string.h>
#include <pcam/pcam_err.h>

int main(void)
{
    const char *s = pcam_strerror(PCAM_ERR_TRUNCATED);
    if (strcmp(s, "input is truncated") != 0) {
        fprintf(stderr, "unexpected text: %s\n", s);
        return 1;
    }
    puts("consumer: linked against installed pcam");
    return 0;
}
