/* test_api_codec.c - submit request decoding and job object encoding
 * (io/api_codec.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/api_codec.h"

static int decode(const char *body, struct gs_api_submit *s, struct gs_api_error *e)
{
    return gs_api_submit_decode(body, strlen(body), s, e);
}

static void test_full_request(void **state)
{
    (void)state;
    struct gs_api_submit s;
    struct gs_api_error e;
    const char *body =
        "{\"id\":\"j1\",\"gpus\":8,\"team\":\"a\",\"user\":\"u\",\"priority\":5,"
        "\"time_limit\":\"4h\",\"checkpoint_interval\":1800,\"gpu_share\":\"1\","
        "\"class\":\"infer\",\"duration\":60,\"submit\":\"2026-01-01T00:00:00Z\","
        "\"command\":[\"python\",\"train.py\",\"--lr\",\"0.1\"],"
        "\"env\":{\"A\":\"1\",\"B_2\":\"x=y\"},\"cwd\":\"/tmp\",\"stdout\":\"/tmp/o\","
        "\"stderr\":\"/tmp/e\"}";
    assert_int_equal(decode(body, &s, &e), 0);
    assert_string_equal(s.row.spec.id, "j1");
    assert_int_equal(s.has_id, 1);
    assert_int_equal(s.row.spec.gpus, 8);
    assert_string_equal(s.row.spec.team, "a");
    assert_string_equal(s.row.spec.user, "u");
    assert_int_equal(s.row.spec.priority, 5);
    assert_int_equal(s.row.spec.time_limit, 4 * 3600 * 1000);    /* "4h" */
    assert_int_equal(s.row.spec.ckpt_interval, 1800 * 1000);      /* plain seconds */
    assert_int_equal(s.row.spec.klass, GS_CLASS_INFER);
    assert_int_equal(s.row.duration, 60 * 1000); /* accepted (a trace column), unused */
    assert_int_equal(s.argc, 4);
    assert_string_equal(s.argv[0], "python");
    assert_string_equal(s.argv[3], "0.1");
    assert_null(s.argv[4]);
    assert_int_equal(s.nenv, 2);
    assert_string_equal(s.env[0], "A=1");
    assert_string_equal(s.env[1], "B_2=x=y");
    assert_null(s.env[2]);
    assert_string_equal(s.cwd, "/tmp");
    assert_string_equal(s.out, "/tmp/o");
    assert_string_equal(s.err, "/tmp/e");
    gs_api_submit_fini(&s);
}

static void test_defaults_and_set_id(void **state)
{
    (void)state;
    struct gs_api_submit s;
    struct gs_api_error e;
    assert_int_equal(decode("{\"command\":[\"true\"]}", &s, &e), 0);
    assert_int_equal(s.has_id, 0);
    assert_int_equal(s.row.spec.gpus, 1);      /* the trace's defaults */
    assert_int_equal(s.row.spec.milli, 1000);
    assert_null(s.row.spec.team);
    assert_null(s.cwd);
    assert_int_equal(gs_api_submit_set_id(&s, "42"), 0);
    assert_string_equal(s.row.spec.id, "42");
    gs_api_submit_fini(&s);
    gs_api_submit_fini(&s); /* twice is fine */
}

/* Each bad body: status, code and the field named. */
static void test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *body;
        int status;
        const char *code, *field;
    } cases[] = {
        { "{", 400, "malformed_json", "" },
        { "", 400, "malformed_json", "" },
        { "[]", 400, "invalid", "" },
        { "{\"gpus\":1}", 400, "missing", "command" },
        { "{\"command\":[]}", 400, "invalid", "command" },
        { "{\"command\":\"ls\"}", 400, "invalid", "command" },
        { "{\"command\":[\"\"]}", 400, "invalid", "command" },
        { "{\"command\":[\"a\",null]}", 400, "invalid", "command" },
        { "{\"command\":[\"a\"],\"nope\":1}", 400, "unknown_field", "nope" },
        { "{\"command\":[\"a\"],\"gpus\":\"x\"}", 400, "invalid", "gpus" },
        { "{\"command\":[\"a\"],\"gpus\":[1]}", 400, "invalid", "gpus" },
        { "{\"command\":[\"a\"],\"gpus\":false}", 400, "invalid", "gpus" },
        { "{\"command\":[\"a\"],\"priority\":1.5}", 400, "invalid", "priority" },
        { "{\"command\":[\"a\"],\"env\":[]}", 400, "invalid", "env" },
        { "{\"command\":[\"a\"],\"env\":{\"1A\":\"x\"}}", 400, "invalid", "env" },
        { "{\"command\":[\"a\"],\"env\":{\"A\":null}}", 400, "invalid", "env" },
        { "{\"command\":[\"a\"],\"cwd\":\"\"}", 400, "invalid", "cwd" },
        { "{\"command\":[\"a\"],\"stdout\":7}", 400, "invalid", "stdout" },
        { "{\"command\":[\"a\"],\"id\":\"\"}", 400, "invalid", "id" },
        { "{\"command\":[\"a\"],\"id\":null}", 400, "invalid", "id" },
        { "{\"command\":[\"a\"],\"a\":1,\"a\":2}", 400, "malformed_json", "" },
        { "{\"command\":[\"a\\u0000b\"]}", 400, "malformed_json", "" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        struct gs_api_submit s;
        struct gs_api_error e;
        int rc = decode(cases[i].body, &s, &e);
        if (rc != -cases[i].status || strcmp(e.code, cases[i].code) ||
            strcmp(e.field, cases[i].field))
            fail_msg("%s: got %d %s '%s' (%s)", cases[i].body, rc, e.code, e.field, e.message);
        assert_null(s.strs); /* nothing owned after an error */
        assert_null(s.json);
    }
}

static void test_too_large(void **state)
{
    (void)state;
    size_t n = GS_API_BODY_MAX + 1;
    char *big = malloc(n);
    assert_non_null(big);
    memset(big, ' ', n);
    struct gs_api_submit s;
    struct gs_api_error e;
    assert_int_equal(gs_api_submit_decode(big, n, &s, &e), -413);
    assert_string_equal(e.code, "too_large");
    free(big);
}

static void test_error_body(void **state)
{
    (void)state;
    struct gs_api_error e;
    assert_int_equal(gs_api_errorf(&e, 400, "invalid", "gpus", "gpus: bad \"%s\"", "x"), -400);
    char *s = gs_api_error_body(&e);
    assert_string_equal(s, "{\"error\":{\"code\":\"invalid\",\"message\":\"gpus: bad \\\"x\\\"\","
                           "\"field\":\"gpus\"}}");
    free(s);
    gs_api_errorf(&e, 404, "not_found", NULL, "no job");
    s = gs_api_error_body(&e);
    assert_string_equal(s, "{\"error\":{\"code\":\"not_found\",\"message\":\"no job\",\"field\":null}}");
    free(s);
}

static void test_rfc3339(void **state)
{
    (void)state;
    char buf[40];
    /* 2026-12-01: 56 years after 1970 with 14 leap days = 20454 days to
     * 2026-01-01, + 334 days of Jan-Nov = 20788 days = 1796083200 s; 10:00
     * adds 36000 s: 1796119200 s */
    assert_string_equal(gs_api_rfc3339(1796119200000LL, buf, sizeof buf),
                        "2026-12-01T10:00:00Z");
    assert_string_equal(gs_api_rfc3339(1796119200123LL, buf, sizeof buf),
                        "2026-12-01T10:00:00.123Z");
    assert_string_equal(gs_api_rfc3339(0, buf, sizeof buf), "1970-01-01T00:00:00Z");
    assert_string_equal(gs_api_rfc3339(-1, buf, sizeof buf), "1969-12-31T23:59:59.999Z");
}

static void test_job_json(void **state)
{
    (void)state;
    struct gs_api_job j = { .id = "j1", .state = "pending", .team = "a", .user = "u",
                            .gpus = 8, .submit = 1796119200000LL, .start = GS_TIME_NONE,
                            .end = GS_TIME_NONE, .first_start = GS_TIME_NONE, .attempts = 0,
                            .exit_code = -1,
                            .reason_code = "count_fragmentation", .reason_detail = "d",
                            .reason_unblock = "u", .estimated_start = GS_TIME_NONE };
    json_t *o = gs_api_job_json(&j);
    char *s = json_dumps(o, JSON_COMPACT);
    assert_string_equal(
        s, "{\"id\":\"j1\",\"state\":\"pending\",\"outcome\":null,\"team\":\"a\",\"user\":\"u\","
           "\"gpus\":8,\"submit\":\"2026-12-01T10:00:00Z\",\"submit_epoch\":1796119200.0,"
           "\"start\":null,\"start_epoch\":null,\"end\":null,\"end_epoch\":null,"
           "\"first_start\":null,\"first_start_epoch\":null,"
           "\"placement\":null,\"attempts\":0,\"preemptions\":0,\"lost_gpu_s\":0.0,"
           "\"exit_code\":null,\"reason\":{\"code\":\"count_fragmentation\",\"detail\":\"d\","
           "\"unblock\":\"u\",\"estimated_start\":null,\"estimated_start_epoch\":null},"
           "\"end_reason\":null,\"estimate_at_submit\":null}"); /* no promise: null, no
                                                                  `estimate` key */
    free(s);
    json_decref(o);
    j.state = "done";
    j.outcome = "failed";
    j.exit_code = 3;
    j.reason_code = NULL;
    o = gs_api_job_json(&j);
    assert_int_equal(json_integer_value(json_object_get(o, "exit_code")), 3);
    assert_string_equal(json_string_value(json_object_get(o, "outcome")), "failed");
    assert_null(json_object_get(o, "reason"));
    json_decref(o);
    /* first_start: RFC 3339 and epoch, like the other times (1796119200123 ms =
       2026-12-01T10:00:00.123Z, as test_rfc3339 derives) */
    j.first_start = 1796119200123LL;
    o = gs_api_job_json(&j);
    assert_string_equal(json_string_value(json_object_get(o, "first_start")),
                        "2026-12-01T10:00:00.123Z");
    assert_true(json_real_value(json_object_get(o, "first_start_epoch")) == 1796119200.123);
    json_decref(o);
    /* the request's fields, defaults explicit; the default output files of
       attempt 2 (OUT/ID.ATTEMPT.SFX), a request's own stderr path */
    j.request = "{\"gpus\":8,\"name\":\"n 1\",\"time_limit\":\"2h\",\"class\":\"infer\","
                "\"gpu_model\":\"H100\",\"command\":[\"a\",\"b c\"],\"stderr\":\"/e\"}";
    j.out_dir = "/out";
    j.attempts = 2;
    j.end_reason = "failed: exited 3";
    o = gs_api_job_json(&j);
    json_t *want = json_loads("{\"name\":\"n 1\",\"command\":[\"a\",\"b c\"],\"cwd\":null,"
                              "\"time_limit_s\":7200,\"priority\":0,\"class\":\"inference\","
                              "\"queue\":null,\"gpu_request\":{\"count\":8,\"share\":1.0,"
                              "\"mem_gb\":null,\"model\":\"H100\",\"mig\":null,"
                              "\"topology\":\"auto\"},\"checkpoint_interval_s\":null,"
                              "\"stdout\":\"/out/j1.2.out\",\"stderr\":\"/e\","
                              "\"end_reason\":\"failed: exited 3\"}", 0, NULL);
    assert_non_null(want);
    const char *k;
    json_t *v;
    json_object_foreach(want, k, v) {
        if (!json_equal(json_object_get(o, k), v))
            fail_msg("job object key %s differs", k);
    }
    json_decref(want);
    json_decref(o);
    j.attempts = 0; /* before the first attempt: no default file yet */
    o = gs_api_job_json(&j);
    assert_true(json_is_null(json_object_get(o, "stdout")));
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_request), cmocka_unit_test(test_defaults_and_set_id),
        cmocka_unit_test(test_errors),       cmocka_unit_test(test_too_large),
        cmocka_unit_test(test_error_body),   cmocka_unit_test(test_rfc3339),
        cmocka_unit_test(test_job_json),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
