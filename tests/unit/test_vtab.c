/* test_vtab.c - the view's copy-on-write job table (src/daemon/vtab.c)
 * against a plain model: random puts, replacements and deletes, with
 * snapshots taken along the way that must keep showing what the table
 * held when they were taken.  vtab.c is compiled in here (the daemon's
 * objects are not in the library). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "daemon/vtab.c"

#define NJOBS 700             /* ids; about 11 chunks of slots */
#define NSNAP 6

struct model {
    int slot[NJOBS];          /* -1 = not in the table */
    int ver[NJOBS];           /* the text's version */
};

static void text_of(char *buf, size_t n, int id, int ver)
{
    snprintf(buf, n, "{\"id\":\"j%d\",\"v\":%d}", id, ver);
}

/* Every id of the model found in snapshot s with its text; the others not. */
static void check_snap(const struct gsd_vsnap *s, const struct model *m)
{
    char id[32], want[64];
    for (int i = 0; i < NJOBS; i++) {
        snprintf(id, sizeof id, "j%d", i);
        int slot = gsd_vsnap_find(s, id);
        if (m->slot[i] < 0) {
            assert_int_equal(slot, -1);
            continue;
        }
        assert_int_equal(slot, m->slot[i]);
        const struct gsd_blob *b = gsd_vsnap_at(s, (uint32_t)slot);
        assert_non_null(b);
        text_of(want, sizeof want, i, m->ver[i]);
        assert_string_equal(b->data, want);
    }
}

static void test_random_ops_against_model(void **state)
{
    (void)state;
    struct gsd_vtab *t = gsd_vtab_new();
    assert_non_null(t);
    static struct model m, snapm[NSNAP];
    struct gsd_vsnap *snap[NSNAP] = { 0 };
    for (int i = 0; i < NJOBS; i++)
        m.slot[i] = -1;
    uint64_t r = 88172645463325252ULL; /* xorshift64: a fixed sequence */
    char id[32], text[64];
    size_t live = 0;
    for (int step = 0; step < 20000; step++) {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        int i = (int)(r % NJOBS), op = (int)((r >> 20) % 10);
        snprintf(id, sizeof id, "j%d", i);
        if (op < 6) { /* submit, or a changed row: (re)put */
            m.ver[i]++;
            text_of(text, sizeof text, i, m.ver[i]);
            int slot = m.slot[i];
            assert_int_equal(gsd_vtab_put(t, &slot, gsd_blob_new(i, 0, 0, id, "t", text)), 0);
            live += m.slot[i] < 0;
            if (m.slot[i] >= 0)
                assert_int_equal(slot, m.slot[i]); /* a job keeps its slot */
            m.slot[i] = slot;
        } else if (op < 9 && m.slot[i] >= 0) { /* retire */
            gsd_vtab_del(t, m.slot[i]);
            m.slot[i] = -1;
            live--;
        }
        assert_int_equal(gsd_vtab_count(t), live);
        if (step % 997 == 0) { /* a reader takes a view; an older one is dropped */
            int k = (step / 997) % NSNAP;
            gsd_vsnap_free(snap[k]);
            snap[k] = gsd_vtab_snap(t);
            assert_non_null(snap[k]);
            snapm[k] = m;
        }
        if (step % 1499 == 0)
            for (int k = 0; k < NSNAP; k++)
                if (snap[k])
                    check_snap(snap[k], &snapm[k]); /* unchanged by later writes */
    }
    struct gsd_vsnap *now = gsd_vtab_snap(t);
    check_snap(now, &m);
    gsd_vsnap_free(now);
    for (int k = 0; k < NSNAP; k++) {
        check_snap(snap[k], &snapm[k]);
        gsd_vsnap_free(snap[k]);
    }
    gsd_vtab_free(t); /* LSan: every chunk and blob released */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_ops_against_model),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
