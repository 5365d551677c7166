/* client_eta.c - the start-time promise as text (client_eta.h). */
#include "cli/client_eta.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

const char *gs_client_utc_hm(double epoch, double ref, char *buf, size_t size)
{
    struct tm tm, rt;
    time_t t = (time_t)(epoch + 0.5), r = (time_t)ref;
    if (!(epoch >= 0) || !gmtime_r(&t, &tm)) {
        snprintf(buf, size, "-");
        return buf;
    }
    int same = ref >= 0 && gmtime_r(&r, &rt) && rt.tm_year == tm.tm_year &&
               rt.tm_yday == tm.tm_yday;
    if (!strftime(buf, size, same ? "%H:%MZ" : "%Y-%m-%dT%H:%MZ", &tm))
        snprintf(buf, size, "-");
    return buf;
}

/* A number member of `o`, -1 when missing or null. */
static double num_of(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_number(v) ? json_number_value(v) : -1;
}

const char *gs_client_eta_text(const json_t *est, double now, int with_basis, char *buf,
                               size_t size)
{
    if (!json_is_object(est))
        return NULL;
    const char *basis = json_string_value(json_object_get(est, "basis"));
    double at = num_of(est, "start_epoch"), p90 = num_of(est, "p90_epoch");
    char t1[32], t2[32], b[64] = "";
    if (with_basis)
        snprintf(b, sizeof b, " (basis %s)", basis ? basis : "unknown");
    if (at < 0) {
        snprintf(buf, size, "start unknown%s", b);
        return buf;
    }
    char head[64];
    if (at <= now)
        snprintf(head, sizeof head, "should start now");
    else
        snprintf(head, sizeof head, "starts by about %s", gs_client_utc_hm(at, now, t1, sizeof t1));
    if (p90 >= 0)
        snprintf(buf, size, "%s, 9 in 10 by %s%s", head,
                 gs_client_utc_hm(p90, at > now ? at : now, t2, sizeof t2), b);
    else
        snprintf(buf, size, "%s%s", head, b);
    return buf;
}
