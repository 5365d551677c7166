/* test_job_request.c - the POST /v1/jobs body built from options and specs
 * (io/job_request.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "io/job_fields.h"
#include "io/job_request.h"

#define SEC(s) ((gs_time)(s) * GS_MS_PER_SEC)

/* Set `col` from `text` and fail the test on error. */
static void set_ok(json_t *req, int col, const char *text)
{
    struct gs_error err = { 0 };
    if (gs_job_request_set(req, col, text, &err) < 0)
        fail_msg("set %s '%s': %s", gs_jcol_name(col), text, err.msg);
}

static void test_numbers_in_trace_units(void **state)
{
    (void)state;
    json_t *req = json_object();
    set_ok(req, GS_JCOL_GPUS, "8");
    set_ok(req, GS_JCOL_TIME_LIMIT, "4h");           /* 4 * 3600 = 14400 s */
    set_ok(req, GS_JCOL_CKPT_INTERVAL, "30m");       /* 30 * 60 = 1800 s */
    set_ok(req, GS_JCOL_CKPT_COST, "1.5");           /* plain seconds stay */
    set_ok(req, GS_JCOL_GPU_SHARE, "0.25");
    set_ok(req, GS_JCOL_PRIORITY, "-7");
    set_ok(req, GS_JCOL_DURATION, "2d");             /* 2 * 86400 = 172800 s */
    assert_int_equal(json_integer_value(json_object_get(req, "gpus")), 8);
    assert_int_equal(json_integer_value(json_object_get(req, "time_limit")), 14400);
    assert_int_equal(json_integer_value(json_object_get(req, "checkpoint_interval")), 1800);
    assert_true(json_is_real(json_object_get(req, "checkpoint_cost")));
    assert_true(json_real_value(json_object_get(req, "checkpoint_cost")) == 1.5);
    assert_true(json_real_value(json_object_get(req, "gpu_share")) == 0.25);
    assert_int_equal(json_integer_value(json_object_get(req, "priority")), -7);
    assert_int_equal(json_integer_value(json_object_get(req, "duration")), 172800);
    assert_int_equal(json_object_size(req), 7); /* nothing else was added */
    json_decref(req);
}

static void test_strings_and_enums(void **state)
{
    (void)state;
    json_t *req = json_object();
    set_ok(req, GS_JCOL_TEAM, "team-a");
    set_ok(req, GS_JCOL_ID, "job 1/x");
    set_ok(req, GS_JCOL_TOPOLOGY, "node");
    set_ok(req, GS_JCOL_CLASS, "infer");
    set_ok(req, GS_JCOL_TOPOLOGY, "auto"); /* the default has no text: kept as typed */
    assert_string_equal(json_string_value(json_object_get(req, "team")), "team-a");
    assert_string_equal(json_string_value(json_object_get(req, "id")), "job 1/x");
    assert_string_equal(json_string_value(json_object_get(req, "class")), "infer");
    assert_string_equal(json_string_value(json_object_get(req, "topology")), "auto");
    json_decref(req);
}

static void test_bad_values_name_the_column(void **state)
{
    (void)state;
    json_t *req = json_object();
    struct gs_error err = { 0 };
    assert_int_equal(gs_job_request_set(req, GS_JCOL_GPUS, "x", &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "gpus"));
    assert_int_equal(gs_job_request_set(req, GS_JCOL_TIME_LIMIT, "4 hours", &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "time_limit"));
    assert_int_equal(gs_job_request_set(req, GS_JCOL_GPU_SHARE, "1.5", &err), GS_EINVAL);
    assert_int_equal(gs_job_request_set(req, GS_JCOL_CLASS, "batch", &err), GS_EINVAL);
    assert_int_equal(gs_job_request_set(req, GS_JCOL_TEAM, "", &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "team"));
    assert_int_equal(json_object_size(req), 0); /* a refused value adds nothing */
    json_decref(req);
}

static void test_command_and_env(void **state)
{
    (void)state;
    json_t *req = json_object();
    struct gs_error err = { 0 };
    char *argv[] = { "sh", "-c", "echo $A" };
    assert_int_equal(gs_job_request_command(req, 0, argv, &err), GS_EINVAL);
    assert_non_null(strstr(err.msg, "command"));
    assert_int_equal(gs_job_request_command(req, 3, argv, &err), 0);
    json_t *cmd = json_object_get(req, "command");
    assert_int_equal(json_array_size(cmd), 3);
    assert_string_equal(json_string_value(json_array_get(cmd, 2)), "echo $A");
    assert_int_equal(gs_job_request_env(req, "A=1=2", &err), 0); /* value keeps its '=' */
    assert_int_equal(gs_job_request_env(req, "B=", &err), 0);
    assert_int_equal(gs_job_request_env(req, "=1", &err), GS_EINVAL);
    assert_int_equal(gs_job_request_env(req, "1A=1", &err), GS_EINVAL);
    assert_int_equal(gs_job_request_env(req, "NOEQ", &err), GS_EINVAL);
    json_t *env = json_object_get(req, "env");
    assert_int_equal(json_object_size(env), 2);
    assert_string_equal(json_string_value(json_object_get(env, "A")), "1=2");
    assert_string_equal(json_string_value(json_object_get(env, "B")), "");
    json_decref(req);
}

static void test_from_spec_writes_non_defaults(void **state)
{
    (void)state;
    struct gs_job_spec s;
    gs_job_spec_init(&s);
    s.id = "j7";
    s.submit = SEC(100); /* never sent: the daemon stamps arrival */
    s.gpus = 4;
    s.team = "b";
    s.time_limit = SEC(600);
    s.ckpt_interval = SEC(120);
    json_t *req = json_object();
    struct gs_error err = { 0 };
    assert_int_equal(gs_job_request_from_spec(req, &s, GS_TIME_NONE, &err), 0);
    assert_string_equal(json_string_value(json_object_get(req, "id")), "j7");
    assert_int_equal(json_integer_value(json_object_get(req, "gpus")), 4);
    assert_string_equal(json_string_value(json_object_get(req, "team")), "b");
    assert_int_equal(json_integer_value(json_object_get(req, "time_limit")), 600);
    assert_int_equal(json_integer_value(json_object_get(req, "checkpoint_interval")), 120);
    assert_null(json_object_get(req, "submit"));
    assert_null(json_object_get(req, "duration"));
    assert_null(json_object_get(req, "priority")); /* default 0: left to the daemon */
    assert_int_equal(json_object_size(req), 5);
    /* with a duration it is sent, in seconds */
    assert_int_equal(gs_job_request_from_spec(req, &s, SEC(90), &err), 0);
    assert_int_equal(json_integer_value(json_object_get(req, "duration")), 90);
    json_decref(req);
}

static void test_option_names(void **state)
{
    (void)state;
    char buf[32];
    assert_int_equal(gs_job_request_option_col("time-limit"), GS_JCOL_TIME_LIMIT);
    assert_int_equal(gs_job_request_option_col("checkpoint-interval"), GS_JCOL_CKPT_INTERVAL);
    assert_int_equal(gs_job_request_option_col("gpus"), GS_JCOL_GPUS);
    assert_int_equal(gs_job_request_option_col("submit"), GS_ENOENT);
    assert_int_equal(gs_job_request_option_col("nope"), GS_ENOENT);
    assert_string_equal(gs_job_request_option_name(GS_JCOL_GPU_MEM_GB, buf, sizeof buf),
                        "gpu-mem-gb");
    /* every column but submit round-trips through its option name */
    for (int col = 0; col < GS_JCOL_COUNT; col++)
        if (col != GS_JCOL_SUBMIT)
            assert_int_equal(
                gs_job_request_option_col(gs_job_request_option_name(col, buf, sizeof buf)), col);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_numbers_in_trace_units),
        cmocka_unit_test(test_strings_and_enums),
        cmocka_unit_test(test_bad_values_name_the_column),
        cmocka_unit_test(test_command_and_env),
        cmocka_unit_test(test_from_spec_writes_non_defaults),
        cmocka_unit_test(test_option_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
