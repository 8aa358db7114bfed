/*
 * A second translation unit of api_test: including epdkit.h twice here
 * and again in api_test.c catches a missing or broken include guard, and
 * duplicate definitions that would only show at link time.
 * Licensed under MIT OR Apache-2.0.
 */
#include "epdkit.h"
#include "epdkit.h"

const char *second_unit_version(void);
int second_unit_parse(const char *line, size_t len);

const char *second_unit_version(void)
{
    return epd_version();
}

/* Parses a record here, so both units call into the library. */
int second_unit_parse(const char *line, size_t len)
{
    epd_record *rec = NULL;
    epd_status st = epd_record_parse(line, len, EPD_PARSE_STRICT, NULL, &rec);
    epd_record_free(rec);
    return st;
}
