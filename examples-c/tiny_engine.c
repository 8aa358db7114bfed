/*
 * tiny_engine: a two-ply material search plugged into the analysis hook.
 * For each record of an EPD file it runs epd_engine_analyze_record, which
 * calls search() below and writes pv, pm, ce, and (as the engine is set to
 * write its counters) acd, acn and acs into the record, then prints the
 * record in canonical form.
 *
 *   tiny_engine FILE
 *
 * Given an output file too, it runs the library's target search (pfts)
 * over the whole file with the same callback, writes the analysed records
 * (as analyze_record writes them) to OUT and prints the solved/missed
 * counts:
 *
 *   tiny_engine FILE OUT
 *
 * Exit status: 0 on success, 1 if a record could not be analyzed, 2 on
 * usage or I/O errors. ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "epdkit.h"

#define MATE 32767L
#define MAX_PLY 8

/* Piece values by epd_role (none, pawn, knight, bishop, rook, queen, king). */
static const long values[7] = { 0, 100, 300, 310, 500, 900, 0 };

struct search_state {
    unsigned long records_seen; /* searches that could read their record */
    unsigned long nodes;
    epd_move pv[MAX_PLY][MAX_PLY];
    size_t pv_len[MAX_PLY];
};

/* Material balance from the side to move's point of view. */
static long evaluate(const epd_position *pos)
{
    unsigned int sq;
    long score = 0;
    epd_color turn = EPD_WHITE;
    epd_piece p;

    epd_position_turn(pos, &turn);
    for (sq = 0; sq < 64; sq++) {
        if (epd_position_piece_at(pos, sq, &p) == EPD_STATUS_OK && p.role != EPD_ROLE_NONE) {
            score += p.color == turn ? values[p.role] : -values[p.role];
        }
    }
    return score;
}

/* Negamax to `depth` plies; fills st->pv[ply]. Mates score MATE - ply, so a
 * mate found at ply N reads as the ce of a mate in (N + 1) / 2. */
static long search(struct search_state *st, const epd_position *pos, int depth, int ply)
{
    epd_move moves[EPD_MAX_LEGAL_MOVES];
    size_t count = 0, i;
    long best = -MATE - 1;
    unsigned int flags = 0;

    st->nodes++;
    st->pv_len[ply] = 0;
    epd_position_legal_moves(pos, moves, EPD_MAX_LEGAL_MOVES, &count);
    if (count == 0) {
        epd_position_status(pos, &flags);
        return (flags & EPD_POSITION_CHECK) ? -(MATE - ply) : 0;
    }
    if (depth == 0 || ply + 1 >= MAX_PLY) {
        return evaluate(pos);
    }
    for (i = 0; i < count; i++) {
        epd_position *child = NULL;
        long score;
        if (epd_position_clone(pos, &child) != EPD_STATUS_OK) {
            return best;
        }
        epd_position_play(child, moves[i]);
        score = -search(st, child, depth - 1, ply + 1);
        epd_position_free(child);
        if (score > best) {
            best = score;
            st->pv[ply][0] = moves[i];
            memcpy(&st->pv[ply][1], st->pv[ply + 1], st->pv_len[ply + 1] * sizeof(epd_move));
            st->pv_len[ply] = st->pv_len[ply + 1] + 1;
        }
    }
    return best;
}

/* The epd_search_callback: position in, pv, score, nodes and depth out. */
static int engine_search(void *user, const epd_search_request *request, epd_search_result *result)
{
    struct search_state *st = (struct search_state *)user;
    const epd_position *pos = NULL;
    const epd_record *rec = NULL;
    unsigned int depth = 0;
    unsigned long seen = st->records_seen;
    long score;
    epd_int64 nodes;

    if (epd_search_request_position(request, &pos) != EPD_STATUS_OK ||
        epd_search_request_limits(request, &depth, NULL, NULL) != EPD_STATUS_OK) {
        return 1;
    }
    if (epd_search_request_record(request, &rec) == EPD_STATUS_OK && rec != NULL) {
        seen++;
    }
    if (depth == 0) {
        depth = 2;
    }
    memset(st, 0, sizeof *st);
    st->records_seen = seen;
    score = search(st, pos, (int)depth, 0);
    if (st->pv_len[0] == 0) {
        epd_search_result_set_error(result, "no move found");
        return 1;
    }
    nodes.hi = 0;
    nodes.lo = st->nodes;
    if (epd_search_result_set_pv(result, st->pv[0], st->pv_len[0]) != EPD_STATUS_OK ||
        epd_search_result_set_ce(result, score) != EPD_STATUS_OK ||
        epd_search_result_set_nodes(result, nodes) != EPD_STATUS_OK ||
        epd_search_result_set_depth(result, depth) != EPD_STATUS_OK) {
        return 1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct search_state *state;
    epd_engine *engine = NULL;
    epd_record *rec = NULL;
    FILE *f;
    char line[4096];
    int failures = 0;

    if (argc != 2 && argc != 3) {
        fprintf(stderr, "usage: tiny_engine FILE [OUT]\n");
        return 2;
    }
    f = fopen(argv[1], "rb");
    if (f == NULL) {
        perror(argv[1]);
        return 2;
    }
    state = (struct search_state *)malloc(sizeof *state);
    if (state == NULL || epd_engine_new(engine_search, state, &engine) != EPD_STATUS_OK ||
        epd_engine_set_depth(engine, 2) != EPD_STATUS_OK || epd_engine_set_counters(engine, 1) != EPD_STATUS_OK) {
        fprintf(stderr, "tiny_engine: %s\n", epd_last_error_message());
        free(state);
        fclose(f);
        return 2;
    }
    if (argc == 3) {
        /* The whole file through the library's pfts with this callback. */
        epd_analysis_summary sum;
        epd_status st;
        fclose(f);
        memset(state, 0, sizeof *state);
        st = epd_engine_run_files(engine, EPD_SEARCH_TARGET, argv[1], argv[2], &sum);
        if (st != EPD_STATUS_OK) {
            fprintf(stderr, "tiny_engine: %s\n", epd_last_error_message());
            epd_engine_free(engine);
            free(state);
            return 2;
        }
        printf("records %lu, invalid %lu, analyzed %lu, faults %lu\n", sum.records, sum.invalid, sum.analyzed,
               sum.faults);
        printf("solved %lu, missed %lu, unscored %lu\n", sum.solved, sum.missed, sum.unscored);
        printf("searches that read their record: %lu\n", state->records_seen);
        epd_engine_free(engine);
        free(state);
        return 0;
    }
    while (fgets(line, sizeof line, f) != NULL) {
        epd_status st;
        char *text = NULL;
        size_t len = strcspn(line, "\r\n");
        if (len == 0) {
            continue;
        }
        st = epd_record_parse(line, len, EPD_PARSE_STRICT, NULL, &rec);
        if (st == EPD_STATUS_OK) {
            st = epd_engine_analyze_record(engine, rec);
        }
        if (st == EPD_STATUS_OK && epd_record_canonical(rec, &text, NULL) == EPD_STATUS_OK) {
            printf("%s\n", text);
            epd_string_free(text);
        } else {
            printf("error: %s: %s\n", epd_status_message(st), epd_last_error_message());
            failures++;
        }
        epd_record_free(rec);
        rec = NULL;
    }
    epd_engine_free(engine);
    free(state);
    fclose(f);
    return failures ? 1 : 0;
}
