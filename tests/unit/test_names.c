/* test_names.c - name checks, reserved environment names and escaping
 * (io/names.c), and the submit decoder refusing bad names and reserved
 * variables with the field named (io/api_codec.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/api_codec.h"
#include "io/names.h"

static int check(const char *s, int kind, size_t max)
{
    char why[96];
    return gs_name_check(s, strlen(s), kind, max, why, sizeof why);
}

static void test_ids(void **state)
{
    (void)state;
    char why[96];
    assert_int_equal(check("job-1.a_B", GS_NAME_ID, 0), 0);
    assert_int_equal(check("a/b", GS_NAME_ID, 0), -1);
    assert_int_equal(gs_name_check("a/b", 3, GS_NAME_ID, 0, why, sizeof why), -1);
    assert_string_equal(why, "character '/' at byte 1 is not allowed");
    assert_int_equal(check(".x", GS_NAME_ID, 0), -1);
    assert_int_equal(check("-x", GS_NAME_ID, 0), 0);      /* ids may start with '-' */
    assert_int_equal(check("", GS_NAME_ID, 0), -1);
    assert_int_equal(check("a b", GS_NAME_ID, 0), -1);
    assert_int_equal(check("a\nb", GS_NAME_ID, 0), -1);
    assert_int_equal(gs_name_check("a\0b", 3, GS_NAME_ID, 0, why, sizeof why), -1);
    assert_string_equal(why, "byte 0x00 at byte 1 is not allowed");
    char id[GS_NAME_ID_MAX + 2];
    memset(id, 'x', sizeof id - 1);
    id[GS_NAME_ID_MAX] = '\0'; /* 128 bytes: the limit */
    assert_int_equal(check(id, GS_NAME_ID, 0), 0);
    id[GS_NAME_ID_MAX] = 'x';
    id[GS_NAME_ID_MAX + 1] = '\0'; /* 129 */
    assert_int_equal(gs_name_check(id, strlen(id), GS_NAME_ID, 0, why, sizeof why), -1);
    assert_string_equal(why, "longer than 128 bytes (129)");
}

static void test_accounts_and_text(void **state)
{
    (void)state;
    char acc[GS_NAME_ACCOUNT_MAX + 2];
    memset(acc, 'a', sizeof acc - 1);
    acc[GS_NAME_ACCOUNT_MAX] = '\0';
    assert_int_equal(check(acc, GS_NAME_ACCOUNT, 0), 0);
    acc[GS_NAME_ACCOUNT_MAX] = 'a';
    acc[GS_NAME_ACCOUNT_MAX + 1] = '\0';
    assert_int_equal(check(acc, GS_NAME_ACCOUNT, 0), -1);
    assert_int_equal(check("-alice", GS_NAME_ACCOUNT, 0), -1);
    assert_int_equal(check("team\x1b[31m", GS_NAME_ACCOUNT, 0), -1);
    assert_int_equal(check("train: resnet 50 (β)", GS_NAME_TEXT, 256), 0); /* UTF-8 ok */
    assert_int_equal(check("", GS_NAME_TEXT, 256), 0);
    assert_int_equal(check("a\nforged", GS_NAME_TEXT, 256), -1);
    assert_int_equal(check("tab\there", GS_NAME_TEXT, 256), -1);
    assert_int_equal(check("del\x7f", GS_NAME_TEXT, 256), -1);
    assert_int_equal(check("abcd", GS_NAME_TEXT, 3), -1);
}

static void test_env_reserved(void **state)
{
    (void)state;
    assert_true(gs_name_env_reserved("CUDA_VISIBLE_DEVICES"));
    assert_true(gs_name_env_reserved("NVIDIA_VISIBLE_DEVICES"));
    assert_true(gs_name_env_reserved("GPUSCHED_JOB_ID"));
    assert_true(gs_name_env_reserved("GPUSCHED_"));
    assert_true(gs_name_env_reserved("SLURM_JOB_ID"));
    assert_true(gs_name_env_reserved("SBATCH_ACCOUNT"));
    assert_false(gs_name_env_reserved("CUDA_VISIBLE_DEVICES_X"));
    assert_false(gs_name_env_reserved("MY_CUDA_VISIBLE_DEVICES"));
    assert_false(gs_name_env_reserved("GPUSCHED"));
    assert_false(gs_name_env_reserved("PATH"));
}

static void test_escape(void **state)
{
    (void)state;
    char out[64];
    assert_string_equal(gs_name_escape("a\nb\x1b[0m\\", out, sizeof out), "a\\x0ab\\x1b[0m\\x5c");
    assert_string_equal(gs_name_escape("plain", out, sizeof out), "plain");
    /* truncated whole: an escape is never cut in half */
    assert_string_equal(gs_name_escape("ab\n", out, 5), "ab");
    assert_string_equal(gs_name_escape("abcdef", out, 4), "abc");
    assert_string_equal(gs_name_escape(NULL, out, sizeof out), "");
}

/* The decoder's refusal of `body`: "STATUS FIELD". */
static const char *refusal(const char *body)
{
    static char buf[128];
    struct gs_api_submit s;
    struct gs_api_error e;
    int rc = gs_api_submit_decode(body, strlen(body), &s, &e);
    if (rc == 0) {
        gs_api_submit_fini(&s);
        return "accepted";
    }
    snprintf(buf, sizeof buf, "%d %s", e.status, e.field);
    return buf;
}

static void test_decoder(void **state)
{
    (void)state;
    assert_string_equal(refusal("{\"command\":[\"true\"],\"env\":{\"CUDA_VISIBLE_DEVICES\":\"0\"}}"),
                        "400 env.CUDA_VISIBLE_DEVICES");
    assert_string_equal(refusal("{\"command\":[\"true\"],\"env\":{\"GPUSCHED_JOB_ID\":\"x\"}}"),
                        "400 env.GPUSCHED_JOB_ID");
    assert_string_equal(refusal("{\"command\":[\"true\"],\"env\":{\"SLURM_JOB_ID\":\"1\"}}"),
                        "400 env.SLURM_JOB_ID");
    assert_string_equal(refusal("{\"command\":[\"true\"],\"env\":{\"OK\":\"a\\nb\"}}"), "accepted");
    assert_string_equal(refusal("{\"id\":\"a/b\",\"command\":[\"true\"]}"), "400 id");
    assert_string_equal(refusal("{\"id\":\"a\\nb\",\"command\":[\"true\"]}"), "400 id");
    assert_string_equal(refusal("{\"team\":\"\\u001b[2J\",\"command\":[\"true\"]}"), "400 team");
    assert_string_equal(refusal("{\"user\":\"a b\",\"command\":[\"true\"]}"), "400 user");
    assert_string_equal(refusal("{\"name\":\"x\\ny\",\"command\":[\"true\"]}"), "400 name");
    assert_string_equal(refusal("{\"cwd\":\"/tmp/\\u001b\",\"command\":[\"true\"]}"), "400 cwd");
    /* argv may hold newlines: sh -c scripts; only displays escape them */
    assert_string_equal(refusal("{\"command\":[\"sh\",\"-c\",\"a\\nb\"]}"), "accepted");
    char big[400];
    snprintf(big, sizeof big, "{\"team\":\"%0100d\",\"command\":[\"true\"]}", 0);
    assert_string_equal(refusal(big), "400 team");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ids),    cmocka_unit_test(test_accounts_and_text),
        cmocka_unit_test(test_env_reserved), cmocka_unit_test(test_escape),
        cmocka_unit_test(test_decoder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
