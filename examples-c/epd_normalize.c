/*
 * epd_normalize: pfdn (data normalization, section 7.1) through the C API.
 *
 *   epd_normalize [--lenient] [--drop-invalid] < IN > OUT   (FILE* callbacks)
 *   epd_normalize [--lenient] [--drop-invalid] IN OUT       (file paths)
 *
 * Diagnostics go to stderr as LINE:COL: error[CODE]: message, then the
 * line. Exit status: 0 all records valid, 1 some invalid (copied through
 * unchanged unless --drop-invalid), 2 usage or I/O errors.
 * ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <stdio.h>
#include <string.h>

#include "epdkit.h"

/* epd_read_callback over a FILE*. */
static int read_file(void *user, char *buf, size_t len, size_t *out_read)
{
    FILE *f = (FILE *)user;
    size_t n = fread(buf, 1, len, f);
    if (n == 0 && ferror(f)) {
        return 1;
    }
    *out_read = n;
    return 0;
}

/* epd_write_callback over a FILE*. */
static int write_file(void *user, const char *buf, size_t len, size_t *out_written)
{
    FILE *f = (FILE *)user;
    size_t n = fwrite(buf, 1, len, f);
    if (n == 0) {
        return 1;
    }
    *out_written = n;
    return 0;
}

/* epd_report_callback: one diagnostic to stderr. */
static int report(void *user, const epd_diagnostic *d, const char *line, size_t len)
{
    const char *name = (const char *)user;
    fprintf(stderr, "%s:%lu:%lu: %s[%s]: %s\n  %.*s\n", name, d->line, (unsigned long)d->column,
            d->severity == EPD_SEVERITY_ERROR ? "error" : "warning", d->code_text, d->message,
            (int)len, line);
    return 0;
}

int main(int argc, char **argv)
{
    epd_verb_config *config = NULL;
    epd_verb_summary summary;
    epd_status st;
    const char *paths[2];
    int npaths = 0, i;

    if (epd_verb_config_new(EPD_VERB_NORMALIZE, &config) != EPD_STATUS_OK) {
        fprintf(stderr, "epd_normalize: %s\n", epd_last_error_message());
        return 2;
    }
    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--lenient") == 0) {
            epd_verb_config_set_mode(config, EPD_PARSE_LENIENT);
        } else if (strcmp(argv[i], "--drop-invalid") == 0) {
            epd_verb_config_set_drop_invalid(config, 1);
        } else if (npaths < 2) {
            paths[npaths++] = argv[i];
        } else {
            npaths = 3;
        }
    }
    if (npaths == 1 || npaths > 2) {
        fprintf(stderr, "usage: epd_normalize [--lenient] [--drop-invalid] [IN OUT]\n");
        epd_verb_config_free(config);
        return 2;
    }
    epd_verb_config_set_reporter(config, report, (void *)(npaths == 2 ? paths[0] : "<stdin>"));
    if (npaths == 2) {
        st = epd_verb_run_files(config, paths[0], paths[1], &summary);
    } else {
        st = epd_verb_run_callbacks(config, read_file, stdin, write_file, stdout, &summary);
        fflush(stdout);
    }
    epd_verb_config_free(config);
    if (st != EPD_STATUS_OK) {
        fprintf(stderr, "epd_normalize: %s: %s\n", epd_status_message(st), epd_last_error_message());
        return 2;
    }
    fprintf(stderr, "%lu lines, %lu records, %lu invalid, %lu changed, %lu warnings, %lu errors\n",
            summary.lines, summary.records, summary.invalid, summary.changed, summary.warnings,
            summary.errors);
    return summary.invalid > 0 ? 1 : 0;
}
