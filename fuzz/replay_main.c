/* SPDX-License-Identifier: BSD-2-Clause */
/* Replays every file of a corpus directory through a fuzz target, so the
 * corpus doubles as a regression suite in builds without libFuzzer. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return -1;
    }
    uint8_t *buf = NULL;
    size_t len = 0, cap = 0;
    for (;;) {
        if (len == cap) {
            cap = cap ? cap * 2 : 4096;
            uint8_t *nb = realloc(buf, cap);
            if (nb == NULL) {
                free(buf);
                fclose(f);
                return -1;
            }
            buf = nb;
        }
        size_t n = fread(buf + len, 1, cap - len, f);
        if (n == 0)
            break;
        len += n;
    }
    fclose(f);
    /* Exact-size copy so ASan/Valgrind see reads past the input's end. */
    uint8_t *exact = malloc(len ? len : 1);
    if (exact == NULL) {
        free(buf);
        return -1;
    }
    if (len)
        memcpy(exact, buf, len);
    free(buf);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

int main(int argc, char **argv)
{
    int files = 0;
    for (int i = 1; i < argc; i++) {
        DIR *d = opendir(argv[i]);
        if (d == NULL) {
            if (replay_file(argv[i]) != 0)
                return 1;
            files++;
            continue;
        }
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (e->d_name[0] == '.')
                continue;
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], e->d_name);
            if (replay_file(path) != 0) {
                closedir(d);
                return 1;
            }
            files++;
        }
        closedir(d);
    }
    if (files == 0) {
        fprintf(stderr, "replay: no corpus inputs found\n");
        return 1;
    }
    printf("replay: %d inputs ran clean\n", files);
    return 0;
}
