/* replay_main.c - gcc-built driver for the fuzz entry points: runs every
 * file under the given directories (or files) through
 * LLVMFuzzerTestOneInput and prints one TAP line per input, so the corpus
 * is a regression suite in `make test`.  A crash aborts the run, which the
 * test runner reports as a failure. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int count;

static void run_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        printf("not ok %d - cannot open %s\n", ++count, path);
        return;
    }
    size_t cap = 4096, n = 0;
    uint8_t *buf = malloc(cap);
    size_t r;
    while (buf && (r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            uint8_t *nb = realloc(buf, cap *= 2);
            if (!nb) {
                free(buf);
                buf = NULL;
            } else {
                buf = nb;
            }
        }
    }
    fclose(f);
    if (!buf) {
        printf("not ok %d - out of memory reading %s\n", ++count, path);
        return;
    }
    LLVMFuzzerTestOneInput(buf, n);
    free(buf);
    printf("ok %d - %s\n", ++count, path);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    char **names = NULL;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char **nn = realloc(names, (n + 1) * sizeof *names);
        if (!nn)
            break;
        names = nn;
        size_t len = strlen(dir) + strlen(e->d_name) + 2;
        names[n] = malloc(len);
        if (!names[n])
            break;
        snprintf(names[n++], len, "%s/%s", dir, e->d_name);
    }
    closedir(d);
    if (n)
        qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        run_file(names[i]);
        free(names[i]);
    }
    free(names);
}

int main(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) == 0 && S_ISDIR(st.st_mode))
            run_dir(argv[i]);
        else
            run_file(argv[i]);
    }
    return 0;
}
