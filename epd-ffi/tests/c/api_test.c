/*
 * api_test: bad input through the C API (NULL pointers, unknown enum
 * values, non-UTF-8 bytes, 1 MB lines, invalid records, illegal moves,
 * failing callbacks) must give a status and a message, never a crash or a
 * leak; out-parameters are written only on success. Run under valgrind
 * by .ci/ffi.sh. Ends with "N passed, N failed".
 * ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epdkit.h"

const char *second_unit_version(void);
int second_unit_parse(const char *line, size_t len);

static int passed = 0, failed = 0;

#define CHECK(cond) check((cond), #cond, __LINE__)
#define EXPECT_STATUS(call, want) expect_status((call), (want), #call, __LINE__)

static void check(int ok, const char *what, int line)
{
    if (ok) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %d: %s\n", line, what);
    }
}

static void expect_status(epd_status got, epd_status want, const char *what, int line)
{
    const char *msg = epd_last_error_message();
    if (got == want && (want == EPD_STATUS_OK || (msg != NULL && msg[0] != '\0'))) {
        passed++;
    } else {
        failed++;
        printf("FAIL line %d: %s gave %d (%s), want %d; last error: %s\n", line, what, got,
               epd_status_message(got), want, msg);
    }
}

static const char wac1[] =
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id \"WAC.001\"; bm Qg6;";

static void test_version(void)
{
    char expected[64];
    sprintf(expected, "%d.%d.%d", EPDKIT_VERSION_MAJOR, EPDKIT_VERSION_MINOR, EPDKIT_VERSION_PATCH);
    CHECK(strcmp(expected, epd_version()) == 0);
    CHECK(strcmp(second_unit_version(), epd_version()) == 0);
    CHECK(second_unit_parse(wac1, strlen(wac1)) == EPD_STATUS_OK);
}

static void test_status_messages(void)
{
    int s;
    for (s = EPD_STATUS_OK; s <= EPD_STATUS_CANCELLED; s++) {
        CHECK(epd_status_message(s) != NULL && strcmp(epd_status_message(s), "unknown status") != 0);
    }
    CHECK(strcmp(epd_status_message(-1), "unknown status") == 0);
    CHECK(strcmp(epd_status_message(12345), "unknown status") == 0);
}

static void test_null_pointers(void)
{
    epd_position *pos = NULL;
    epd_record *rec = NULL;
    char *text = NULL;
    size_t n = 0;
    epd_move m;

    EXPECT_STATUS(epd_position_new(NULL), EPD_STATUS_NULL_POINTER);
    CHECK(epd_last_error_status() == EPD_STATUS_NULL_POINTER);
    CHECK(strstr(epd_last_error_message(), "out_position") != NULL);
    EXPECT_STATUS(epd_position_fen(NULL, &text), EPD_STATUS_NULL_POINTER);
    CHECK(text == NULL);
    EXPECT_STATUS(epd_position_from_fen(NULL, 10, EPD_PARSE_STRICT, &pos), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_record_parse(NULL, 0, EPD_PARSE_STRICT, NULL, &rec), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_record_parse(wac1, strlen(wac1), EPD_PARSE_STRICT, NULL, NULL),
                  EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_record_operation_count(NULL, &n), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_position_parse_san(NULL, "e4", 2, EPD_SAN_STRICT, &m), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_verb_run_files(NULL, "in", "out", NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_verb_run_callbacks(NULL, NULL, NULL, NULL, NULL, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_engine_new(NULL, NULL, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_diagnostics_get(NULL, 0, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_registers_apply(NULL, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_score_from_ce(0, NULL), EPD_STATUS_NULL_POINTER);

    EXPECT_STATUS(epd_position_new(&pos), EPD_STATUS_OK);
    EXPECT_STATUS(epd_position_legal_moves(pos, NULL, 10, &n), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_record_new(pos, &rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_set(rec, NULL, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_record_set_moves(rec, "bm", NULL, 2), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_record_opcode(rec, 0, NULL, 16), EPD_STATUS_INVALID_ARGUMENT);
    epd_record_free(rec);
    epd_position_free(pos);

    /* Every _free accepts NULL. */
    epd_position_free(NULL);
    epd_record_free(NULL);
    epd_diagnostics_free(NULL);
    epd_operands_free(NULL);
    epd_registers_free(NULL);
    epd_verb_config_free(NULL);
    epd_engine_free(NULL);
    epd_string_free(NULL);
    CHECK(1);
}

static void test_bad_arguments(void)
{
    epd_position *pos = NULL;
    epd_record *rec = NULL;
    epd_verb_config *cfg = NULL;
    epd_move m, sentinel;
    size_t n = 7;
    char small[2];

    EXPECT_STATUS(epd_position_from_fen("8/8/8/8/8/8/8/K6k w - -", 23, 7, &pos),
                  EPD_STATUS_INVALID_ARGUMENT);
    CHECK(pos == NULL);
    EXPECT_STATUS(epd_verb_config_new(99, &cfg), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(cfg == NULL);
    EXPECT_STATUS(epd_position_new(&pos), EPD_STATUS_OK);
    EXPECT_STATUS(epd_position_parse_san(pos, "e4", 2, 42, &m), EPD_STATUS_INVALID_ARGUMENT);

    /* Out-parameters keep their value on failure. */
    memset(&sentinel, 0xAB, sizeof sentinel);
    m = sentinel;
    EXPECT_STATUS(epd_position_parse_san(pos, "Ke2", 3, EPD_SAN_LENIENT, &m), EPD_STATUS_ILLEGAL_MOVE);
    CHECK(memcmp(&m, &sentinel, sizeof m) == 0);
    EXPECT_STATUS(epd_position_parse_san(pos, "Zz9", 3, EPD_SAN_LENIENT, &m), EPD_STATUS_SAN_SYNTAX);
    CHECK(epd_last_error_column() >= 1);
    EXPECT_STATUS(epd_position_parse_san(pos, "e2e4", 4, EPD_SAN_STRICT, &m), EPD_STATUS_SAN_SYNTAX);
    EXPECT_STATUS(epd_position_parse_san(pos, "Ng1f3", 5, EPD_SAN_STRICT, &m), EPD_STATUS_NOT_CANONICAL);
    CHECK(strstr(epd_last_error_message(), "Nf3") != NULL);

    /* Ill-formed and illegal moves. */
    m.from = 99;
    m.to = 0;
    m.role = EPD_ROLE_PAWN;
    m.promotion = 0;
    m.kind = EPD_MOVE_NORMAL;
    EXPECT_STATUS(epd_position_play(pos, m), EPD_STATUS_INVALID_ARGUMENT);
    m.from = 12; /* e2 */
    m.to = 36;   /* e5 */
    EXPECT_STATUS(epd_position_play(pos, m), EPD_STATUS_ILLEGAL_MOVE);
    m.kind = 77;
    EXPECT_STATUS(epd_position_play(pos, m), EPD_STATUS_INVALID_ARGUMENT);

    /* Too little room: nothing in the buffer, the room needed in n. */
    EXPECT_STATUS(epd_position_legal_moves(pos, &m, 1, &n), EPD_STATUS_BUFFER_TOO_SMALL);
    CHECK(n == 20);
    CHECK(m.kind == 77);
    EXPECT_STATUS(epd_position_piece_at(pos, 64, NULL), EPD_STATUS_NULL_POINTER);

    EXPECT_STATUS(epd_record_parse(wac1, strlen(wac1), EPD_PARSE_STRICT, NULL, &rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_opcode(rec, 0, small, sizeof small), EPD_STATUS_BUFFER_TOO_SMALL);
    EXPECT_STATUS(epd_record_operand_count(rec, 99, &n), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_record_find(rec, "ce", &n), EPD_STATUS_NOT_FOUND);
    EXPECT_STATUS(epd_record_set_long(rec, "ce", 99999L), EPD_STATUS_REFUSED);
    CHECK(strcmp(epd_last_error_code(), "E019") == 0);
    EXPECT_STATUS(epd_record_set_long(rec, "1bad", 1L), EPD_STATUS_REFUSED);
    CHECK(strcmp(epd_last_error_code(), "E010") == 0);
    /* pm must be the first move of pv: refused as the reader refuses it. */
    EXPECT_STATUS(epd_record_set_san(rec, "pv", "Qg6 fxg6", 8, EPD_SAN_STRICT), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_set_san(rec, "pm", "Rae1", 4, EPD_SAN_STRICT), EPD_STATUS_REFUSED);
    CHECK(strcmp(epd_last_error_code(), "E012") == 0);
    EXPECT_STATUS(epd_record_set_identifier(rec, "refcom", "not an identifier"), EPD_STATUS_REFUSED);
    EXPECT_STATUS(epd_record_set_san(rec, "pv", "Qg6 Qg6", 7, EPD_SAN_STRICT), EPD_STATUS_ILLEGAL_MOVE);
    EXPECT_STATUS(epd_record_operand_long(rec, 0, 0, NULL), EPD_STATUS_NULL_POINTER);
    {
        long v;
        EXPECT_STATUS(epd_record_operand_long(rec, 0, 0, &v), EPD_STATUS_WRONG_TYPE);
    }
    epd_record_free(rec);
    epd_position_free(pos);
}

static void test_non_utf8(void)
{
    static const char latin1[] = "8/8/8/8/8/8/8/K6k w - - c0 \"Caf\xe9\";";
    epd_record *rec = NULL;
    epd_diagnostics *diags = NULL;
    size_t n = 0, errors = 0;
    epd_diagnostic d;

    EXPECT_STATUS(epd_diagnostics_new(&diags), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_parse(latin1, strlen(latin1), EPD_PARSE_STRICT, diags, &rec),
                  EPD_STATUS_INVALID_RECORD);
    CHECK(rec == NULL);
    EXPECT_STATUS(epd_diagnostics_error_count(diags, &errors), EPD_STATUS_OK);
    CHECK(errors >= 1);
    EXPECT_STATUS(epd_diagnostics_get(diags, 0, &d), EPD_STATUS_OK);
    CHECK(strcmp(d.code_text, "E007") == 0 && d.code == 7 && d.severity == EPD_SEVERITY_ERROR);
    EXPECT_STATUS(epd_diagnostics_get(diags, 99, &d), EPD_STATUS_INVALID_ARGUMENT);

    /* Lenient reading converts Latin-1 and warns. */
    EXPECT_STATUS(epd_record_parse(latin1, strlen(latin1), EPD_PARSE_LENIENT, diags, &rec),
                  EPD_STATUS_OK);
    EXPECT_STATUS(epd_diagnostics_count(diags, &n), EPD_STATUS_OK);
    CHECK(n >= 1);
    EXPECT_STATUS(epd_record_find(rec, "c\xff", &n), EPD_STATUS_INVALID_UTF8);
    EXPECT_STATUS(epd_record_remove(rec, "\xc3", NULL), EPD_STATUS_INVALID_UTF8);
    EXPECT_STATUS(epd_record_set_identifier(rec, "refreq", "\xff\xfe"), EPD_STATUS_INVALID_UTF8);
    epd_record_free(rec);
    epd_diagnostics_free(diags);
}

static void test_huge_lines(void)
{
    size_t big = 1 << 20, n;
    char *line = (char *)malloc(big + 64);
    epd_record *rec = NULL;
    epd_diagnostics *diags = NULL;
    epd_verb_config *cfg = NULL;
    epd_verb_summary summary;
    char *out = NULL;
    size_t out_len = 0;

    if (line == NULL) {
        CHECK(!"malloc");
        return;
    }
    /* 1 MB of a string operand: too long a string, too long a line. */
    strcpy(line, "8/8/8/8/8/8/8/K6k w - - c0 \"");
    n = strlen(line);
    memset(line + n, 'a', big);
    n += big;
    line[n++] = '"';
    line[n++] = ';';
    EXPECT_STATUS(epd_diagnostics_new(&diags), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_parse(line, n, EPD_PARSE_STRICT, diags, &rec), EPD_STATUS_INVALID_RECORD);
    CHECK(rec == NULL);
    /* 1 MB of garbage, then 1 MB of NUL bytes. */
    memset(line, '#', big);
    EXPECT_STATUS(epd_record_parse(line, big, EPD_PARSE_LENIENT, diags, &rec), EPD_STATUS_INVALID_RECORD);
    memset(line, 0, big);
    EXPECT_STATUS(epd_record_parse(line, big, EPD_PARSE_STRICT, diags, &rec), EPD_STATUS_INVALID_RECORD);
    /* Through a verb, in memory: the invalid line is copied through. */
    memset(line, 'x', big);
    line[big] = '\n';
    EXPECT_STATUS(epd_verb_config_new(EPD_VERB_NORMALIZE, &cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_verb_run_memory(cfg, line, big + 1, &out, &out_len, &summary), EPD_STATUS_OK);
    CHECK(out_len == big + 1 && summary.invalid == 1 && summary.records == 1);
    epd_string_free(out);
    epd_verb_config_free(cfg);
    epd_diagnostics_free(diags);
    free(line);
}

static void test_invalid_records(void)
{
    static const char *const bad[] = {
        "",
        "not a record",
        "8/8/8/8/8/8/8/K6k w - - bm Qd1+;",
        "8/8/8/8/8/8/8/K6k w - - ce 40000;",
        "8/8/8/8/8/8/8/K6k w - - id \"unterminated;",
        "8/8/8/8/8/8/8/8 w - - id \"no kings\";",
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - pm Bb5; pv Nc3;",
    };
    size_t i;
    epd_record *rec = NULL, *reused = NULL;
    epd_position *pos = NULL;

    EXPECT_STATUS(epd_position_new(&pos), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_new(pos, &reused), EPD_STATUS_OK);
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        EXPECT_STATUS(epd_record_parse(bad[i], strlen(bad[i]), EPD_PARSE_STRICT, NULL, &rec),
                      EPD_STATUS_INVALID_RECORD);
        CHECK(rec == NULL);
        EXPECT_STATUS(epd_record_parse_into(reused, bad[i], strlen(bad[i]), EPD_PARSE_STRICT, NULL),
                      EPD_STATUS_INVALID_RECORD);
    }
    /* The last record is invalid but has a position; one without kings has none. */
    {
        epd_position *none = NULL;
        EXPECT_STATUS(epd_record_position(reused, &none), EPD_STATUS_OK);
        epd_position_free(none);
    }
    EXPECT_STATUS(epd_record_parse_into(reused, bad[5], strlen(bad[5]), EPD_PARSE_STRICT, NULL),
                  EPD_STATUS_INVALID_RECORD);
    {
        epd_position *none = NULL;
        EXPECT_STATUS(epd_record_position(reused, &none), EPD_STATUS_NO_POSITION);
        CHECK(none == NULL);
    }
    epd_record_free(reused);
    epd_position_free(pos);
}

static int failing_read(void *user, char *buf, size_t len, size_t *out_read)
{
    (void)user;
    (void)buf;
    (void)len;
    (void)out_read;
    return 5;
}

static int stop_at_first(void *user, const epd_diagnostic *d, const char *line, size_t len)
{
    (void)d;
    (void)line;
    (void)len;
    ++*(int *)user;
    return 1;
}

static void test_verbs(void)
{
    static const char input[] = "8/8/8/8/8/8/8/K6k w - - ce 40000;\n8/8/8/8/8/8/8/K6k w - - ce 1;\n";
    epd_verb_config *cfg = NULL;
    epd_verb_summary summary;
    char *out = NULL;
    size_t len = 0;
    int reports = 0;

    EXPECT_STATUS(epd_verb_config_new(EPD_VERB_PURGE, &cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_verb_config_add_purge_opcode(cfg, "9bad"), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_verb_config_set_mode(cfg, 3), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_verb_run_callbacks(cfg, failing_read, NULL, NULL, NULL, &summary),
                  EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_verb_run_files(cfg, "/nonexistent/in.epd", "/nonexistent/out.epd", &summary),
                  EPD_STATUS_IO);
    CHECK(strstr(epd_last_error_message(), "/nonexistent/in.epd") != NULL);
    epd_verb_config_free(cfg);

    EXPECT_STATUS(epd_verb_config_new(EPD_VERB_CHECK, &cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_verb_run_callbacks(cfg, failing_read, NULL, NULL, NULL, &summary),
                  EPD_STATUS_CALLBACK);
    CHECK(strstr(epd_last_error_message(), "5") != NULL);
    EXPECT_STATUS(epd_verb_config_set_reporter(cfg, stop_at_first, &reports), EPD_STATUS_OK);
    EXPECT_STATUS(epd_verb_run_memory(cfg, input, strlen(input), &out, &len, &summary),
                  EPD_STATUS_CALLBACK);
    CHECK(out == NULL && reports == 1);
    epd_verb_config_free(cfg);
}

/* select: filters refused with a status, a message and a column; the
   records kept written byte for byte; invalid ones never written. */
static void test_select(void)
{
    static const char input[] =
        "4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id \"a\";\r\n"
        "\n"
        "8/8/8/8/8/8/8/8 w - - id \"b\";\n"
        "4k3/8/8/8/8/8/8/4K2R w K - id \"c\"; ce 120;\n"
        "4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"d\"; acd 12;\n";
    epd_select_config *cfg = NULL;
    epd_select_summary summary, untouched;
    char *out = NULL;
    size_t len = 99;
    int reports = 0;

    EXPECT_STATUS(epd_select_config_new(NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_select_config_add_where(NULL, "ce>1"), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_select_run_memory(NULL, input, strlen(input), &out, &len, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_select_run_files(NULL, "in", "out", NULL), EPD_STATUS_NULL_POINTER);
    epd_select_config_free(NULL);

    EXPECT_STATUS(epd_select_config_new(&cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_add_where(cfg, NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_select_config_add_where(cfg, "ce>x"), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(epd_last_error_column() == 4);
    CHECK(strstr(epd_last_error_message(), "is not an integer") != NULL);
    EXPECT_STATUS(epd_select_config_add_where(cfg, "  b-m=1"), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(epd_last_error_column() == 3);
    EXPECT_STATUS(epd_select_config_add_lines(cfg, "5..3"), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(epd_last_error_column() == 4);
    EXPECT_STATUS(epd_select_config_add_has(cfg, "b-m"), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_select_config_add_lacks(cfg, "9x"), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_select_config_set_mode(cfg, 3), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_select_config_add_id(cfg, "("), EPD_STATUS_OK); /* a glob */
    EXPECT_STATUS(epd_select_config_set_regex(cfg, 1), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(strstr(epd_last_error_message(), "(") != NULL);
    epd_select_config_free(cfg);

    /* Nothing refused was kept: ce>=120 or acd<13, leniently. */
    EXPECT_STATUS(epd_select_config_new(&cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_set_mode(cfg, EPD_PARSE_LENIENT), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_add_where(cfg, "ce>=120"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_add_where(cfg, "acd < 13"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_run_memory(cfg, input, strlen(input), &out, &len, &summary), EPD_STATUS_OK);
    CHECK(len == strlen(out) && strcmp(out,
        "4k3/8/8/8/8/8/8/4K2R w K - id \"c\"; ce 120;\n"
        "4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"d\"; acd 12;\n") == 0);
    CHECK(summary.lines == 5 && summary.records == 4 && summary.invalid == 1 && summary.selected == 2);
    CHECK(summary.errors == 2 && summary.warnings == 1);
    epd_string_free(out);

    /* Inverted, by id and line: the CRLF record as it was read. */
    EXPECT_STATUS(epd_select_config_set_invert(cfg, 1), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_add_id(cfg, "[cd]"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_set_regex(cfg, 1), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_add_id(cfg, "(x"), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_select_config_add_lines(cfg, "..4"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_config_add_has(cfg, "id"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_run_memory(cfg, input, strlen(input), &out, &len, NULL), EPD_STATUS_OK);
    CHECK(strcmp(out, "4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id \"a\";\r\n"
                      "4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id \"d\"; acd 12;\n") == 0);
    epd_string_free(out);

    /* A report callback that stops the run; files that do not open. */
    out = NULL;
    untouched = summary;
    EXPECT_STATUS(epd_select_config_set_reporter(cfg, stop_at_first, &reports), EPD_STATUS_OK);
    EXPECT_STATUS(epd_select_run_memory(cfg, input, strlen(input), &out, &len, &summary), EPD_STATUS_CALLBACK);
    CHECK(out == NULL && reports == 1 && memcmp(&summary, &untouched, sizeof summary) == 0);
    EXPECT_STATUS(epd_select_run_files(cfg, "/nonexistent/in.epd", "/nonexistent/out.epd", &summary),
                  EPD_STATUS_IO);
    CHECK(strstr(epd_last_error_message(), "/nonexistent/in.epd") != NULL);
    epd_select_config_free(cfg);
}

static int failing_engine(void *user, const epd_search_request *req, epd_search_result *res)
{
    int stopped = -1;
    (void)user;
    /* No cancel flag is watched: the run never asks it to stop. */
    CHECK(epd_search_request_stopped(req, &stopped) == EPD_STATUS_OK && stopped == 0);
    CHECK(epd_search_request_stopped(req, NULL) == EPD_STATUS_NULL_POINTER);
    epd_search_result_set_error(res, "out of coffee");
    return 1;
}

static int lying_engine(void *user, const epd_search_request *req, epd_search_result *res)
{
    epd_move m;
    (void)user;
    (void)req;
    m.from = 12;
    m.to = 36;
    m.role = EPD_ROLE_PAWN;
    m.promotion = 0;
    m.kind = EPD_MOVE_NORMAL;
    CHECK(epd_search_result_set_pv(res, &m, 1) == EPD_STATUS_ILLEGAL_MOVE);
    CHECK(epd_search_result_set_ce(res, 99999L) == EPD_STATUS_OUT_OF_RANGE);
    return 0; /* no move, no score */
}

static void test_engine_errors(void)
{
    epd_engine *engine = NULL;
    epd_record *rec = NULL;
    char *before = NULL, *after = NULL;

    EXPECT_STATUS(epd_record_parse(wac1, strlen(wac1), EPD_PARSE_STRICT, NULL, &rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_canonical(rec, &before, NULL), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_new(failing_engine, NULL, &engine), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_record(engine, rec), EPD_STATUS_ENGINE);
    CHECK(strstr(epd_last_error_message(), "out of coffee") != NULL);
    epd_engine_free(engine);
    EXPECT_STATUS(epd_engine_new(lying_engine, NULL, &engine), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_record(engine, rec), EPD_STATUS_ENGINE);
    EXPECT_STATUS(epd_record_canonical(rec, &after, NULL), EPD_STATUS_OK);
    CHECK(before != NULL && after != NULL && strcmp(before, after) == 0);
    epd_string_free(before);
    epd_string_free(after);
    epd_engine_free(engine);
    epd_record_free(rec);
}

static void test_scores(void)
{
    long ce = 0, moves = 0, value = 0;
    epd_score s;
    int is_mate = -1;
    unsigned long dm = 0;
    char *text = NULL;

    EXPECT_STATUS(epd_ce_from_mate(1, &ce), EPD_STATUS_OK);
    CHECK(ce == 32766);
    EXPECT_STATUS(epd_ce_from_mate(-3, &ce), EPD_STATUS_OK);
    CHECK(ce == -32761);
    EXPECT_STATUS(epd_ce_to_mate(32758, &moves), EPD_STATUS_OK);
    CHECK(moves == 5);
    EXPECT_STATUS(epd_ce_to_mate(35, &moves), EPD_STATUS_NOT_FOUND);
    EXPECT_STATUS(epd_score_from_ce(40000, &s), EPD_STATUS_OUT_OF_RANGE);
    EXPECT_STATUS(epd_score_from_ce(32764, &s), EPD_STATUS_OK);
    CHECK(s.kind == EPD_SCORE_MATE_IN && s.value == 2);
    EXPECT_STATUS(epd_score_to_dm(s, &dm), EPD_STATUS_OK);
    CHECK(dm == 2);
    EXPECT_STATUS(epd_score_to_uci(s, &is_mate, &value), EPD_STATUS_OK);
    CHECK(is_mate == 1 && value == 2);
    EXPECT_STATUS(epd_score_format(s, &text), EPD_STATUS_OK);
    CHECK(text != NULL && strcmp(text, "#2") == 0);
    epd_string_free(text);
    s.kind = 99;
    EXPECT_STATUS(epd_score_to_ce(s, &ce), EPD_STATUS_INVALID_ARGUMENT);
    s.kind = EPD_SCORE_MATE_IN;
    s.value = 0;
    EXPECT_STATUS(epd_score_to_ce(s, &ce), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_score_from_dm(0, &s), EPD_STATUS_OUT_OF_RANGE);
}

static void test_int64(void)
{
    static const char line[] = "8/8/8/8/8/8/8/K6k w - - acn 8031647685;";
    epd_record *rec = NULL;
    epd_int64 v, big;
    char *text = NULL;

    EXPECT_STATUS(epd_record_parse(line, strlen(line), EPD_PARSE_STRICT, NULL, &rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_operand_integer(rec, 0, 0, &v), EPD_STATUS_OK);
    /* 8031647685 = 1 * 2^32 + 3736680389 */
    CHECK(v.hi == 1 && v.lo == 3736680389UL);
    big.hi = 2;
    big.lo = 5;
    EXPECT_STATUS(epd_record_set_integer(rec, "acn", big), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_canonical(rec, &text, NULL), EPD_STATUS_OK);
    CHECK(text != NULL && strstr(text, "acn 8589934597;") != NULL);
    epd_string_free(text);
    big.lo = 0xFFFFFFFFUL;
    big.hi = -1;
    EXPECT_STATUS(epd_record_set_integer(rec, "acn", big), EPD_STATUS_REFUSED); /* -1 */
    epd_record_free(rec);
}


/* Batches, the built-in engine, mate search, PGN and the report: the
   functions the Python package is built on. */
static void test_batches_and_tools(void)
{
    static const char text[] =
        "8/8/8/8/8/8/8/K6k w - - ce 40000;\n"
        "\n"
        "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id \"WAC.001\"; bm Qg6;\n";
    static const char pgn[] = "[Event \"x\"]\n\n1. e4 e5 2. Nf3 *\n";
    epd_batch *batch = NULL;
    const epd_batch_entry *entries = NULL;
    size_t n = 0, len = 0;
    const char *t = NULL;
    epd_record *rec = NULL;
    epd_diagnostic d;
    epd_engine *engine = NULL;
    char *out = NULL;
    epd_mate_summary ms;
    epd_pgn_summary ps;
    epd_report_config *cfg = NULL;
    epd_mate_config *mate = NULL;
    epd_mate_config *no_mate = (epd_mate_config *)&no_mate;
    epd_pgn_config *conversion = NULL;

    EXPECT_STATUS(epd_batch_parse(text, strlen(text), EPD_PARSE_STRICT, 10, &batch), EPD_STATUS_OK);
    EXPECT_STATUS(epd_batch_entries(batch, &entries, &n), EPD_STATUS_OK);
    CHECK(n == 2);
    CHECK(entries[0].line == 11 && entries[0].errors == 1 && entries[0].diagnostics == 1);
    CHECK(entries[1].line == 13 && entries[1].errors == 0);
    EXPECT_STATUS(epd_batch_diagnostic(batch, entries[0].first_diagnostic, &d), EPD_STATUS_OK);
    CHECK(strcmp(d.code_text, "E019") == 0 && d.line == 11 && d.column == 28);
    EXPECT_STATUS(epd_batch_record(batch, 0, &rec), EPD_STATUS_INVALID_RECORD);
    CHECK(rec == NULL);
    EXPECT_STATUS(epd_batch_text(batch, 1, &t, &len), EPD_STATUS_OK);
    CHECK(len > 0 && strncmp(t, "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id \"WAC.001\";", len) == 0);
    EXPECT_STATUS(epd_batch_record(batch, 1, &rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_set_long(rec, "ce", 35), EPD_STATUS_OK);
    EXPECT_STATUS(epd_batch_record(batch, 5, &rec), EPD_STATUS_INVALID_ARGUMENT);

    /* The built-in engine analyses the borrowed record in place. */
    EXPECT_STATUS(epd_batch_record(batch, 1, &rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_new_builtin(0, &engine), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_set_depth(engine, 3), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_add_uci_option(engine, "Hash", "8"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_add_uci_option(engine, "MobilityWeight", "90"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_record(engine, rec), EPD_STATUS_OK);
    EXPECT_STATUS(epd_record_canonical(rec, &out, &len), EPD_STATUS_OK);
    CHECK(strstr(out, "pm Qg6;") != NULL && strstr(out, "ce 35;") == NULL);
    epd_string_free(out);
    epd_engine_free(engine);
    epd_batch_free(batch);

    /* Mate in 1 found and written as dm 1. */
    {
        static const char mate_in_1[] = "6k1/5ppp/8/8/8/8/8/R5K1 w - -\n";
        EXPECT_STATUS(epd_mate_config_new(2, &mate), EPD_STATUS_OK);
        EXPECT_STATUS(epd_mate_config_set_jobs(mate, 2), EPD_STATUS_OK);
        EXPECT_STATUS(epd_mate_run_memory(mate, mate_in_1, strlen(mate_in_1), &out, &len, &ms), EPD_STATUS_OK);
        CHECK(strstr(out, "dm 1;") != NULL && strstr(out, "pm Ra8#;") != NULL && ms.solved == 1);
        epd_string_free(out);
        epd_mate_config_free(mate);
        EXPECT_STATUS(epd_mate_config_new(61, &no_mate), EPD_STATUS_INVALID_ARGUMENT);
        CHECK(no_mate == (epd_mate_config *)&no_mate);
        EXPECT_STATUS(epd_mate_config_new(0, &no_mate), EPD_STATUS_INVALID_ARGUMENT);
        epd_mate_config_free(NULL);
    }

    EXPECT_STATUS(epd_pgn_config_new(&conversion), EPD_STATUS_OK);
    EXPECT_STATUS(epd_pgn_config_set_flags(conversion, 64), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_pgn_config_set_plies(conversion, 3, 2), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_pgn_config_set_flags(conversion, EPD_PGN_SM), EPD_STATUS_OK);
    EXPECT_STATUS(epd_pgn_to_epd_memory(conversion, pgn, strlen(pgn), &out, &len, &ps), EPD_STATUS_OK);
    CHECK(ps.games == 1 && ps.records == 4 && strstr(out, "sm e4;") != NULL);
    epd_string_free(out);
    /* Plies 1 to 2 only: the positions after e4 and after e5. */
    EXPECT_STATUS(epd_pgn_config_set_plies(conversion, 1, 2), EPD_STATUS_OK);
    EXPECT_STATUS(epd_pgn_to_epd_memory(conversion, pgn, strlen(pgn), &out, &len, &ps), EPD_STATUS_OK);
    CHECK(ps.records == 2 && strstr(out, "sm e5;") != NULL && strstr(out, "sm e4;") == NULL);
    epd_string_free(out);
    epd_pgn_config_free(conversion);
    epd_pgn_config_free(NULL);

    EXPECT_STATUS(epd_report_config_new(&cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_report_run_json(cfg, &out, &len), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_report_config_add_run(cfg, "/nonexistent/run.epd", "A"), EPD_STATUS_OK);
    EXPECT_STATUS(epd_report_config_set_group_regex(cfg, "(unclosed"), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_report_run_json(cfg, &out, &len), EPD_STATUS_IO);
    epd_report_config_free(cfg);
}

/* One position searched with limits of its own: a mate in two found with
   mate 2, three lines with distinct first moves, best first; bad
   arguments leave the out-parameters alone. */
static void test_analyze_position(void)
{
    epd_engine *engine = NULL;
    epd_limits *limits = NULL;
    epd_position *pos = NULL;
    epd_analysis *analysis = NULL;
    epd_analysis *untouched = (epd_analysis *)&untouched;
    epd_score score, scores[3];
    epd_move moves[64], firsts[3];
    size_t n = 0, k;
    long depth = -2, seldepth = -2;
    epd_int64 nodes;
    unsigned long ms = 0;
    long ce[3];
    static const char mate_in_2[] = "r4kr1/1b2R1n1/pq4p1/4Q3/1p4P1/5P2/PPP4P/1K2R3 w - - 0 1";
    static const char wac1_fen[] = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1";

    EXPECT_STATUS(epd_engine_new_builtin(0, &engine), EPD_STATUS_OK);
    EXPECT_STATUS(epd_limits_new(&limits), EPD_STATUS_OK);
    EXPECT_STATUS(epd_limits_set_mate(limits, 2), EPD_STATUS_OK);
    EXPECT_STATUS(epd_position_from_fen(mate_in_2, strlen(mate_in_2), EPD_PARSE_STRICT, &pos), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_position(engine, pos, limits, &analysis), EPD_STATUS_OK);
    EXPECT_STATUS(epd_analysis_line_count(analysis, &n), EPD_STATUS_OK);
    CHECK(n == 1);
    EXPECT_STATUS(epd_analysis_line_score(analysis, 0, &score), EPD_STATUS_OK);
    CHECK(score.kind == EPD_SCORE_MATE_IN && score.value == 2);
    EXPECT_STATUS(epd_analysis_line_moves(analysis, 0, NULL, 0, &n), EPD_STATUS_BUFFER_TOO_SMALL);
    CHECK(n == 3);
    EXPECT_STATUS(epd_analysis_line_moves(analysis, 0, moves, 64, &n), EPD_STATUS_OK);
    CHECK(n == 3 && moves[0].from == 52 && moves[0].to == 53); /* Re7-f7+ */
    EXPECT_STATUS(epd_analysis_counters(analysis, &depth, &seldepth, &nodes, &ms), EPD_STATUS_OK);
    CHECK(depth >= 1 && seldepth >= depth && (nodes.hi > 0 || nodes.lo > 0));
    EXPECT_STATUS(epd_analysis_counters(analysis, NULL, NULL, NULL, NULL), EPD_STATUS_OK);
    /* Out-parameters are written only on success. */
    EXPECT_STATUS(epd_analysis_line_score(analysis, 1, &score), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(score.kind == EPD_SCORE_MATE_IN && score.value == 2);
    EXPECT_STATUS(epd_analysis_line_moves(analysis, 0, moves, 2, &n), EPD_STATUS_BUFFER_TOO_SMALL);
    CHECK(n == 3 && moves[0].from == 52);
    EXPECT_STATUS(epd_analysis_line_moves(analysis, 0, NULL, 5, &n), EPD_STATUS_NULL_POINTER);
    epd_analysis_free(analysis);
    epd_position_free(pos);
    pos = NULL;

    /* Three lines, each with another first move, best first. */
    EXPECT_STATUS(epd_limits_set_mate(limits, 0), EPD_STATUS_OK);
    EXPECT_STATUS(epd_limits_set_depth(limits, 5), EPD_STATUS_OK);
    EXPECT_STATUS(epd_limits_set_lines(limits, 3), EPD_STATUS_OK);
    EXPECT_STATUS(epd_limits_set_lines(limits, EPD_MAX_LINES + 1), EPD_STATUS_INVALID_ARGUMENT);
    EXPECT_STATUS(epd_position_from_fen(wac1_fen, strlen(wac1_fen), EPD_PARSE_STRICT, &pos), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_position(engine, pos, limits, &analysis), EPD_STATUS_OK);
    EXPECT_STATUS(epd_analysis_line_count(analysis, &n), EPD_STATUS_OK);
    CHECK(n == 3);
    for (k = 0; k < 3 && k < n; k++) {
        EXPECT_STATUS(epd_analysis_line_score(analysis, k, &scores[k]), EPD_STATUS_OK);
        EXPECT_STATUS(epd_score_to_ce(scores[k], &ce[k]), EPD_STATUS_OK);
        EXPECT_STATUS(epd_analysis_line_moves(analysis, k, moves, 64, &n), EPD_STATUS_OK);
        CHECK(n >= 1);
        firsts[k] = moves[0];
        n = 3;
    }
    CHECK(ce[0] >= ce[1] && ce[1] >= ce[2]);
    CHECK(firsts[0].to != firsts[1].to || firsts[0].from != firsts[1].from);
    CHECK(firsts[0].to != firsts[2].to || firsts[0].from != firsts[2].from);
    CHECK(firsts[1].to != firsts[2].to || firsts[1].from != firsts[2].from);
    epd_analysis_free(analysis);

    /* NULL and bad arguments: a status, and *out_analysis left alone. */
    EXPECT_STATUS(epd_engine_analyze_position(NULL, pos, limits, &untouched), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_engine_analyze_position(engine, NULL, limits, &untouched), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_engine_analyze_position(engine, pos, limits, NULL), EPD_STATUS_NULL_POINTER);
    CHECK(untouched == (epd_analysis *)&untouched);
    EXPECT_STATUS(epd_limits_new(NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_limits_set_depth(NULL, 1), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_analysis_line_count(NULL, &n), EPD_STATUS_NULL_POINTER);
    epd_limits_free(NULL);
    epd_analysis_free(NULL);

    /* NULL limits: the engine's own (here a depth of 2). */
    EXPECT_STATUS(epd_engine_set_depth(engine, 2), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_position(engine, pos, NULL, &analysis), EPD_STATUS_OK);
    EXPECT_STATUS(epd_analysis_counters(analysis, &depth, NULL, NULL, NULL), EPD_STATUS_OK);
    CHECK(depth == 2);
    epd_analysis_free(analysis);

    epd_position_free(pos);
    epd_limits_free(limits);
    epd_engine_free(engine);
}

/* A raised cancel flag fails the engine's runs with EPD_STATUS_CANCELLED,
   leaving the out-parameters alone; lowered, they run again. (Raising it
   from another thread mid-run is tested from Rust and Python.) */
static void test_cancel(void)
{
    static const char text[] = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id \"WAC.001\"; bm Qg6;\n";
    epd_engine *engine = NULL;
    epd_cancel *cancel = NULL;
    epd_position *pos = NULL;
    epd_analysis *analysis = NULL;
    epd_mate_config *mate = NULL;
    epd_pgn_config *conversion = NULL;
    char *out = NULL;
    size_t len = 7;
    int raised = -1;
    epd_analysis_summary s;

    memset(&s, 0, sizeof s);
    EXPECT_STATUS(epd_cancel_new(&cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_cancel_is_raised(cancel, &raised), EPD_STATUS_OK);
    CHECK(raised == 0);
    EXPECT_STATUS(epd_engine_new_builtin(0, &engine), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_set_depth(engine, 3), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_set_cancel(engine, cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_cancel_raise(cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_cancel_raise(cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_cancel_is_raised(cancel, &raised), EPD_STATUS_OK);
    CHECK(raised == 1);
    EXPECT_STATUS(epd_engine_run_memory(engine, EPD_SEARCH_TARGET, text, strlen(text), &out, &len, &s),
                  EPD_STATUS_CANCELLED);
    CHECK(out == NULL && len == 7 && s.records == 0);
    /* The mate prover and the PGN conversion watch one set on their
       configurations, as the engine does. */
    EXPECT_STATUS(epd_mate_config_new(2, &mate), EPD_STATUS_OK);
    EXPECT_STATUS(epd_mate_config_set_cancel(mate, cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_mate_run_memory(mate, text, strlen(text), &out, &len, NULL), EPD_STATUS_CANCELLED);
    CHECK(out == NULL && len == 7);
    EXPECT_STATUS(epd_pgn_config_new(&conversion), EPD_STATUS_OK);
    EXPECT_STATUS(epd_pgn_config_set_cancel(conversion, cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_pgn_to_epd_memory(conversion, "1. e4 *\n", 8, &out, &len, NULL), EPD_STATUS_CANCELLED);
    CHECK(out == NULL && len == 7);
    epd_pgn_config_free(conversion);
    EXPECT_STATUS(epd_mate_config_set_cancel(mate, NULL), EPD_STATUS_OK);
    EXPECT_STATUS(epd_mate_run_memory(mate, text, strlen(text), &out, &len, NULL), EPD_STATUS_OK);
    CHECK(out != NULL && len > strlen(text));
    epd_string_free(out);
    epd_mate_config_free(mate);
    out = NULL;
    len = 7;
    EXPECT_STATUS(epd_position_new(&pos), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_analyze_position(engine, pos, NULL, &analysis), EPD_STATUS_CANCELLED);
    CHECK(analysis == NULL);
    EXPECT_STATUS(epd_cancel_reset(cancel), EPD_STATUS_OK);
    EXPECT_STATUS(epd_engine_run_memory(engine, EPD_SEARCH_TARGET, text, strlen(text), &out, &len, &s), EPD_STATUS_OK);
    CHECK(out != NULL && s.solved == 1);
    epd_string_free(out);
    /* The engine keeps the flag: the handle may go first; NULL removes it. */
    epd_cancel_free(cancel);
    EXPECT_STATUS(epd_engine_analyze_position(engine, pos, NULL, &analysis), EPD_STATUS_OK);
    epd_analysis_free(analysis);
    EXPECT_STATUS(epd_engine_set_cancel(engine, NULL), EPD_STATUS_OK);
    EXPECT_STATUS(epd_cancel_new(NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_cancel_raise(NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_cancel_reset(NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_cancel_is_raised(NULL, &raised), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_engine_set_cancel(NULL, NULL), EPD_STATUS_NULL_POINTER);
    epd_cancel_free(NULL);
    epd_position_free(pos);
    epd_engine_free(engine);
}

/* The code table: every code as text with its summary; E010 and P010,
   the same number, are two entries; the PGN callback's two kinds map to
   P010 and P011. */
static void test_code_table(void)
{
    size_t n = 0, i, e10 = 1000, p10 = 1000, ten = 1000, untouched = 12345;
    const char *code = NULL, *summary = NULL, *pgn = NULL;

    EXPECT_STATUS(epd_code_count(&n), EPD_STATUS_OK);
    CHECK(n > 30);
    for (i = 0; i < n; i++) {
        EXPECT_STATUS(epd_code_at(i, &code, &summary), EPD_STATUS_OK);
        CHECK(strlen(code) == 4 && (code[0] == 'E' || code[0] == 'P') && strlen(summary) > 10);
    }
    EXPECT_STATUS(epd_code_at(0, &code, NULL), EPD_STATUS_OK);
    CHECK(strcmp(code, "E001") == 0);
    EXPECT_STATUS(epd_code_at(n, &code, &summary), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(strcmp(code, "E001") == 0);
    EXPECT_STATUS(epd_code_find("E010", &e10), EPD_STATUS_OK);
    EXPECT_STATUS(epd_code_find("P010", &p10), EPD_STATUS_OK);
    EXPECT_STATUS(epd_code_find("10", &ten), EPD_STATUS_OK);
    CHECK(e10 == ten && e10 != p10 && p10 < n);
    EXPECT_STATUS(epd_code_at(p10, &code, &summary), EPD_STATUS_OK);
    CHECK(strcmp(code, "P010") == 0 && strstr(summary, "PGN") != NULL);
    EXPECT_STATUS(epd_code_find("X12", &untouched), EPD_STATUS_NOT_FOUND);
    EXPECT_STATUS(epd_code_find("E026", &untouched), EPD_STATUS_NOT_FOUND);
    CHECK(untouched == 12345);
    EXPECT_STATUS(epd_pgn_code(1, &pgn), EPD_STATUS_OK);
    CHECK(strcmp(pgn, "P010") == 0);
    EXPECT_STATUS(epd_pgn_code(0, &pgn), EPD_STATUS_OK);
    CHECK(strcmp(pgn, "P011") == 0);
    EXPECT_STATUS(epd_code_count(NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_code_find(NULL, &untouched), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_code_find("E012", NULL), EPD_STATUS_NULL_POINTER);
    EXPECT_STATUS(epd_pgn_code(1, NULL), EPD_STATUS_NULL_POINTER);
}

/* An I/O failure gives the system's error number beside its message; a
   failure of another kind gives 0. */
static void test_os_error(void)
{
    epd_verb_config *cfg = NULL;
    EXPECT_STATUS(epd_verb_config_new(EPD_VERB_CHECK, &cfg), EPD_STATUS_OK);
    EXPECT_STATUS(epd_verb_run_files(cfg, "/nonexistent/epdkit/in.epd", NULL, NULL), EPD_STATUS_IO);
    CHECK(epd_last_error_os_error() == ENOENT);
    CHECK(strstr(epd_last_error_message(), "/nonexistent/epdkit/in.epd") != NULL);
    /* A directory opens, and reading it fails. */
    EXPECT_STATUS(epd_verb_run_files(cfg, ".", NULL, NULL), EPD_STATUS_IO);
    CHECK(epd_last_error_os_error() == EISDIR);
    EXPECT_STATUS(epd_verb_config_set_mode(cfg, 99), EPD_STATUS_INVALID_ARGUMENT);
    CHECK(epd_last_error_os_error() == 0);
    epd_verb_config_free(cfg);
}

int main(void)
{
    test_version();
    test_status_messages();
    test_null_pointers();
    test_bad_arguments();
    test_non_utf8();
    test_huge_lines();
    test_invalid_records();
    test_verbs();
    test_select();
    test_engine_errors();
    test_scores();
    test_int64();
    test_batches_and_tools();
    test_analyze_position();
    test_cancel();
    test_code_table();
    test_os_error();
    printf("%d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
