/* launcher.c - the launcher thread (launcher.h). */
#define _GNU_SOURCE
#include "daemon/launcher.h"

#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct gsd_launcher {
    pthread_t th[GSD_LAUNCHER_THREADS];
    int nth;                  /* threads started */
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* work queued, or stop */
    pthread_cond_t idle;      /* a batch is done */
    struct gsd_lreq *head, *tail;     /* queued */
    struct gsd_lreq *dhead, *dtail;   /* done, not taken */
    int busy;                 /* requests taken from the queue, not yet done */
    int in_flight;            /* handed over, not yet taken back */
    int stop;
    int wake_fd;
    int delay_ms;             /* GPUSCHEDD_TEST_LAUNCH_DELAY_MS (tests: a slow fork) */
    int fail_left;            /* GPUSCHEDD_TEST_LAUNCH_FAIL: launches still to fail */
};

void gsd_lreq_free(struct gsd_lreq *r)
{
    if (!r)
        return;
    gs_api_submit_fini(&r->s);
    free(r->env);
    for (int i = 0; i < 4; i++)
        free(r->bufs[i]);
    free(r->rundir);
    free(r->out);
    free(r->err);
    free(r->user);
    free(r);
}

static void append(struct gsd_lreq **head, struct gsd_lreq **tail, struct gsd_lreq *list)
{
    if (!list)
        return;
    if (*tail)
        (*tail)->next = list;
    else
        *head = list;
    while (list->next)
        list = list->next;
    *tail = list;
}

/* A launcher thread: take the next queued request, launch it, put it on
 * the done list and wake the loop; again until told to stop.  The pool's
 * threads overlap the launches (a supervisor's exec, the file writes of its
 * run directory); a turn's batch goes out in order of the queue. */
static void *run(void *arg)
{
    struct gsd_launcher *ln = arg;
    pthread_mutex_lock(&ln->mu);
    for (;;) {
        while (!ln->head && !ln->stop)
            pthread_cond_wait(&ln->cv, &ln->mu);
        if (ln->stop)
            break;
        struct gsd_lreq *r = ln->head;
        ln->head = r->next;
        if (!ln->head)
            ln->tail = NULL;
        r->next = NULL;
        ln->busy++;
        int fail = ln->fail_left > 0 ? ln->fail_left-- : 0;
        pthread_mutex_unlock(&ln->mu);
        if (ln->delay_ms > 0)
            usleep((useconds_t)ln->delay_ms * 1000);
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        gs_error_clear(&r->error);
        r->why = -1;
        if (fail) { /* the test hook: a fork that fails for want of processes */
            r->why = GSD_LF_FORK;
            r->rc = gs_errorf(&r->error, GS_EIO, "fork: Resource temporarily unavailable "
                                                  "(GPUSCHEDD_TEST_LAUNCH_FAIL)");
        } else {
            r->rc = gsd_backend_launch(&r->l, &r->proc, &r->why, &r->error);
        }
        clock_gettime(CLOCK_MONOTONIC, &b);
        r->ms = (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6;
        pthread_mutex_lock(&ln->mu);
        ln->busy--;
        append(&ln->dhead, &ln->dtail, r);
        pthread_cond_broadcast(&ln->idle);
        uint64_t one = 1;
        if (write(ln->wake_fd, &one, sizeof one) < 0) {
            /* the counter is full: the loop is awake anyway */
        }
    }
    pthread_mutex_unlock(&ln->mu);
    return NULL;
}

struct gsd_launcher *gsd_launcher_start(int wake_fd)
{
    struct gsd_launcher *ln = calloc(1, sizeof *ln);
    if (!ln)
        return NULL;
    ln->wake_fd = wake_fd;
    const char *delay = getenv("GPUSCHEDD_TEST_LAUNCH_DELAY_MS");
    ln->delay_ms = delay ? (int)strtol(delay, NULL, 10) : 0;
    const char *fail = getenv("GPUSCHEDD_TEST_LAUNCH_FAIL");
    ln->fail_left = fail ? (int)strtol(fail, NULL, 10) : 0;
    pthread_mutex_init(&ln->mu, NULL);
    pthread_cond_init(&ln->cv, NULL);
    pthread_cond_init(&ln->idle, NULL);
    for (ln->nth = 0; ln->nth < GSD_LAUNCHER_THREADS; ln->nth++) {
        int rc = pthread_create(&ln->th[ln->nth], NULL, run, ln);
        if (rc != 0) {
            gsd_launcher_stop(ln);
            errno = rc;
            return NULL;
        }
    }
    return ln;
}

void gsd_launcher_submit(struct gsd_launcher *ln, struct gsd_lreq *list)
{
    if (!list)
        return;
    int n = 0;
    for (struct gsd_lreq *r = list; r; r = r->next)
        n++;
    pthread_mutex_lock(&ln->mu);
    append(&ln->head, &ln->tail, list);
    ln->in_flight += n;
    pthread_cond_broadcast(&ln->cv);
    pthread_mutex_unlock(&ln->mu);
}

struct gsd_lreq *gsd_launcher_take(struct gsd_launcher *ln)
{
    pthread_mutex_lock(&ln->mu);
    struct gsd_lreq *list = ln->dhead;
    ln->dhead = ln->dtail = NULL;
    for (struct gsd_lreq *r = list; r; r = r->next)
        ln->in_flight--;
    pthread_mutex_unlock(&ln->mu);
    return list;
}

void gsd_launcher_quiesce(struct gsd_launcher *ln)
{
    pthread_mutex_lock(&ln->mu);
    while (ln->head || ln->busy > 0)
        pthread_cond_wait(&ln->idle, &ln->mu);
    pthread_mutex_unlock(&ln->mu);
}

int gsd_launcher_in_flight(struct gsd_launcher *ln)
{
    pthread_mutex_lock(&ln->mu);
    int n = ln->in_flight;
    pthread_mutex_unlock(&ln->mu);
    return n;
}

static void free_list(struct gsd_lreq *r, int close_pidfd)
{
    while (r) {
        struct gsd_lreq *next = r->next;
        if (close_pidfd && r->rc == 0 && r->proc.pidfd >= 0)
            close(r->proc.pidfd);
        gsd_lreq_free(r);
        r = next;
    }
}

void gsd_launcher_stop(struct gsd_launcher *ln)
{
    if (!ln)
        return;
    pthread_mutex_lock(&ln->mu);
    ln->stop = 1;
    pthread_cond_broadcast(&ln->cv);
    pthread_mutex_unlock(&ln->mu);
    for (int i = 0; i < ln->nth; i++)
        pthread_join(ln->th[i], NULL);
    free_list(ln->head, 0);
    free_list(ln->dhead, 1);
    pthread_mutex_destroy(&ln->mu);
    pthread_cond_destroy(&ln->cv);
    pthread_cond_destroy(&ln->idle);
    free(ln);
}
