/*
 * epd_inspect: prints the opcodes, typed operands and diagnostics of each
 * record of an EPD file.
 *
 *   epd_inspect [--lenient] FILE
 *
 * Exit status: 0 if every record is valid, 1 if some are not, 2 on usage
 * or I/O errors. ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epdkit.h"

/* Reads one line of any length into *buf (grown as needed), without its
 * newline. Returns 0 at the end of the file, 1 otherwise. */
static int read_line(FILE *f, char **buf, size_t *cap, size_t *len)
{
    int c;
    *len = 0;
    c = getc(f);
    if (c == EOF) {
        return 0;
    }
    while (c != EOF && c != '\n') {
        if (*len + 1 >= *cap) {
            size_t ncap = *cap ? *cap * 2 : 256;
            char *nbuf = (char *)realloc(*buf, ncap);
            if (nbuf == NULL) {
                return 0;
            }
            *buf = nbuf;
            *cap = ncap;
        }
        (*buf)[(*len)++] = (char)c;
        c = getc(f);
    }
    return 1;
}

static const char *kind_name(epd_operand_kind kind)
{
    switch (kind) {
    case EPD_OPERAND_IDENTIFIER: return "identifier";
    case EPD_OPERAND_MOVE: return "move";
    case EPD_OPERAND_INTEGER: return "integer";
    case EPD_OPERAND_FLOAT: return "float";
    case EPD_OPERAND_DATE: return "date";
    case EPD_OPERAND_TIME_OF_DAY: return "time";
    case EPD_OPERAND_CLOCK: return "clock";
    case EPD_OPERAND_STRING: return "string";
    case EPD_OPERAND_RAW: return "raw";
    case EPD_OPERAND_RAW_QUOTED: return "raw-quoted";
    default: return "?";
    }
}

static const char square_names[] = "abcdefgh";

static void print_operand(const epd_record *rec, size_t op, size_t i)
{
    epd_operand_kind kind = 0;
    const char *text = NULL;
    size_t len = 0;

    if (epd_record_operand_kind(rec, op, i, &kind) != EPD_STATUS_OK ||
        epd_record_operand_text(rec, op, i, &text, &len) != EPD_STATUS_OK) {
        printf("    ? %s\n", epd_last_error_message());
        return;
    }
    printf("    %s \"%.*s\"", kind_name(kind), (int)len, text);
    switch (kind) {
    case EPD_OPERAND_INTEGER: {
        epd_int64 v;
        long l;
        if (epd_record_operand_integer(rec, op, i, &v) == EPD_STATUS_OK) {
            printf(" hi=%ld lo=%lu", v.hi, v.lo);
        }
        if (epd_record_operand_long(rec, op, i, &l) == EPD_STATUS_OK) {
            printf(" long=%ld", l);
        }
        break;
    }
    case EPD_OPERAND_MOVE: {
        epd_move m;
        if (epd_record_operand_move(rec, op, i, &m) == EPD_STATUS_OK) {
            printf(" %c%d-%c%d", square_names[m.from % 8], m.from / 8 + 1,
                   square_names[m.to % 8], m.to / 8 + 1);
        } else {
            printf(" (%s)", epd_last_error_message());
        }
        break;
    }
    case EPD_OPERAND_DATE: {
        epd_date d;
        if (epd_record_operand_date(rec, op, i, &d) == EPD_STATUS_OK) {
            printf(" year=%d month=%d day=%d", d.year, d.month, d.day);
        }
        break;
    }
    case EPD_OPERAND_TIME_OF_DAY: {
        epd_time_of_day t;
        if (epd_record_operand_time_of_day(rec, op, i, &t) == EPD_STATUS_OK) {
            printf(" hour=%d minute=%d second=%d", t.hour, t.minute, t.second);
        }
        break;
    }
    case EPD_OPERAND_CLOCK: {
        epd_clock c;
        if (epd_record_operand_clock(rec, op, i, &c) == EPD_STATUS_OK) {
            printf(" days=%d hours=%d minutes=%d seconds=%d", c.days, c.hours, c.minutes,
                   c.seconds);
        }
        break;
    }
    case EPD_OPERAND_FLOAT: {
        double x;
        if (epd_record_operand_float(rec, op, i, &x) == EPD_STATUS_OK) {
            printf(" value=%g", x);
        }
        break;
    }
    default:
        break;
    }
    printf("\n");
}

static void print_record(const epd_record *rec)
{
    size_t n = 0, op, count, i;
    char opcode[EPD_OPCODE_BUFFER_SIZE];
    char *fields = NULL;

    if (epd_record_fields(rec, &fields) == EPD_STATUS_OK) {
        printf("  fields: %s\n", fields);
        epd_string_free(fields);
    }
    epd_record_operation_count(rec, &n);
    for (op = 0; op < n; op++) {
        if (epd_record_opcode(rec, op, opcode, sizeof opcode) != EPD_STATUS_OK ||
            epd_record_operand_count(rec, op, &count) != EPD_STATUS_OK) {
            printf("  ? %s\n", epd_last_error_message());
            continue;
        }
        printf("  %s (%lu operand%s)\n", opcode, (unsigned long)count, count == 1 ? "" : "s");
        for (i = 0; i < count; i++) {
            print_operand(rec, op, i);
        }
    }
}

static void print_diagnostics(const epd_diagnostics *diags)
{
    size_t n = 0, i;
    epd_diagnostic d;

    epd_diagnostics_count(diags, &n);
    for (i = 0; i < n; i++) {
        if (epd_diagnostics_get(diags, i, &d) != EPD_STATUS_OK) {
            continue;
        }
        printf("  %lu:%lu: %s[%s]: %s", d.line, (unsigned long)d.column,
               d.severity == EPD_SEVERITY_ERROR ? "error" : "warning", d.code_text, d.message);
        if (d.opcode != NULL) {
            printf(" (opcode %s", d.opcode);
            if (d.operand >= 0) {
                printf(", operand %ld", d.operand + 1);
            }
            printf(")");
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    epd_parse_mode mode = EPD_PARSE_STRICT;
    const char *path = NULL;
    FILE *f;
    char *line = NULL;
    size_t cap = 0, len = 0;
    unsigned long line_no = 0, records = 0, invalid = 0;
    epd_position *start = NULL;
    epd_record *rec = NULL;
    epd_diagnostics *diags = NULL;
    int i, exit_code = 0;

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lenient") == 0) {
            mode = EPD_PARSE_LENIENT;
        } else {
            path = argv[i];
        }
    }
    if (path == NULL) {
        fprintf(stderr, "usage: epd_inspect [--lenient] FILE\n");
        return 2;
    }
    f = fopen(path, "rb");
    if (f == NULL) {
        perror(path);
        return 2;
    }
    /* One record and one diagnostics list, reused for every line. */
    if (epd_position_new(&start) != EPD_STATUS_OK || epd_record_new(start, &rec) != EPD_STATUS_OK ||
        epd_diagnostics_new(&diags) != EPD_STATUS_OK) {
        fprintf(stderr, "epd_inspect: %s\n", epd_last_error_message());
        fclose(f);
        return 2;
    }
    printf("libepdkit %s\n", epd_version());
    while (read_line(f, &line, &cap, &len)) {
        epd_status st;
        line_no++;
        if (len == 0) {
            continue;
        }
        records++;
        epd_diagnostics_set_line(diags, line_no);
        st = epd_record_parse_into(rec, line, len, mode, diags);
        printf("line %lu: %s\n", line_no, st == EPD_STATUS_OK ? "valid" : "invalid");
        if (st == EPD_STATUS_INVALID_RECORD) {
            invalid++;
            printf("  status %d (%s): %s (column %lu)\n", st, epd_status_message(st),
                   epd_last_error_message(), (unsigned long)epd_last_error_column());
        } else if (st != EPD_STATUS_OK) {
            printf("  status %d (%s): %s\n", st, epd_status_message(st), epd_last_error_message());
            exit_code = 2;
            continue;
        }
        print_record(rec);
        print_diagnostics(diags);
    }
    printf("%lu records, %lu invalid\n", records, invalid);
    if (invalid > 0 && exit_code == 0) {
        exit_code = 1;
    }
    free(line);
    fclose(f);
    epd_diagnostics_free(diags);
    epd_record_free(rec);
    epd_position_free(start);
    return exit_code;
}
