/*
 * san_roundtrip: reads lines "POSITION | MOVE MOVE ..." (a FEN or the four
 * EPD fields, then moves in any SAN dialect), and for each move prints the
 * text as written, its canonical SAN and its UCI form, after checking that
 * strict decoding of the canonical SAN gives the same move back; then
 * plays it. Ends each line with the FEN reached and its status.
 *
 *   san_roundtrip < FILE
 *
 * Exit status: 0 if every line went through, 1 otherwise.
 * ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <stdio.h>
#include <string.h>

#include "epdkit.h"

static int same_move(epd_move a, epd_move b)
{
    return a.from == b.from && a.to == b.to && a.role == b.role && a.promotion == b.promotion &&
           a.kind == b.kind;
}

static void print_status(const epd_position *pos)
{
    unsigned int flags = 0;
    epd_position_status(pos, &flags);
    if (flags & EPD_POSITION_CHECKMATE) {
        printf(" checkmate");
    } else if (flags & EPD_POSITION_CHECK) {
        printf(" check");
    }
    if (flags & EPD_POSITION_STALEMATE) {
        printf(" stalemate");
    }
    if (flags & EPD_POSITION_INSUFFICIENT_MATERIAL) {
        printf(" insufficient-material");
    }
    if (flags & EPD_POSITION_FIFTY_MOVES) {
        printf(" fifty-moves");
    }
    if (flags == 0) {
        printf(" ongoing");
    }
}

/* Handles one line; returns 0 on success. */
static int roundtrip(char *line)
{
    char *bar = strchr(line, '|');
    char *moves, *tok;
    epd_position *pos = NULL;
    epd_status st;
    char *fen = NULL;
    int ok = 1;

    if (bar == NULL) {
        printf("no '|' in line\n");
        return 1;
    }
    *bar = '\0';
    moves = bar + 1;
    while (bar > line && bar[-1] == ' ') {
        *--bar = '\0';
    }
    st = epd_position_from_fen(line, strlen(line), EPD_PARSE_LENIENT, &pos);
    if (st != EPD_STATUS_OK) {
        printf("position: %s: %s (column %lu)\n", epd_status_message(st), epd_last_error_message(),
               (unsigned long)epd_last_error_column());
        return 1;
    }
    for (tok = strtok(moves, " \t\r\n"); tok != NULL; tok = strtok(NULL, " \t\r\n")) {
        epd_move m, back;
        char *san = NULL, *uci = NULL;

        st = epd_position_parse_san(pos, tok, strlen(tok), EPD_SAN_LENIENT, &m);
        if (st != EPD_STATUS_OK) {
            printf("  %-8s %s: %s\n", tok, epd_status_message(st), epd_last_error_message());
            ok = 0;
            break;
        }
        if (epd_position_san(pos, m, &san) != EPD_STATUS_OK ||
            epd_position_uci(pos, m, &uci) != EPD_STATUS_OK ||
            epd_position_parse_san(pos, san, strlen(san), EPD_SAN_STRICT, &back) != EPD_STATUS_OK ||
            !same_move(m, back)) {
            printf("  %-8s round trip failed: %s\n", tok, epd_last_error_message());
            ok = 0;
        } else {
            printf("  %-8s -> %-8s %s%s\n", tok, san, uci, strcmp(tok, san) == 0 ? "" : " (rewritten)");
        }
        /* Strict decoding names what is not canonical. */
        if (ok && strcmp(tok, san) != 0 &&
            epd_position_parse_san(pos, tok, strlen(tok), EPD_SAN_STRICT, &back) != EPD_STATUS_OK) {
            printf("           strict: %s\n", epd_last_error_message());
        }
        epd_string_free(san);
        epd_string_free(uci);
        if (!ok || epd_position_play(pos, m) != EPD_STATUS_OK) {
            ok = 0;
            break;
        }
    }
    if (epd_position_fen(pos, &fen) == EPD_STATUS_OK) {
        printf("  fen %s", fen);
        print_status(pos);
        printf("\n");
        epd_string_free(fen);
    }
    epd_position_free(pos);
    return ok ? 0 : 1;
}

int main(void)
{
    char line[4096];
    int failures = 0;

    while (fgets(line, sizeof line, stdin) != NULL) {
        line[strcspn(line, "\r\n")] = '\0';
        if (line[0] == '\0') {
            continue;
        }
        printf("%s\n", line);
        failures += roundtrip(line);
    }
    printf("%d line%s failed\n", failures, failures == 1 ? "" : "s");
    return failures ? 1 : 0;
}
