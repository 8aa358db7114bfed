/*
 * referee_client: the skeleton of a chess program talking to an EPD
 * referee (section 8 of the specification). It reads refcom records, one
 * per line, keeps the game state, and writes refreq records: sign_on at
 * the start, a reply (with sm, the move it plays) to each respond, and
 * sign_off on disconnect. Tags sent with inform are kept in the scanning
 * registers. A real client would use a socket; this one uses stdin and
 * stdout, and picks its move by a one-ply material count.
 *
 *   referee_client < COMMANDS
 *
 * ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <stdio.h>
#include <string.h>

#include "epdkit.h"

static const long values[7] = { 0, 100, 300, 310, 500, 900, 0 };

struct client {
    epd_position *pos;        /* the current position */
    epd_registers *registers; /* PGN tags and comments of the game */
    epd_record *last_command;
};

static int fail(const char *what)
{
    fprintf(stderr, "referee_client: %s: %s\n", what, epd_last_error_message());
    return 1;
}

/* Writes a refreq record for `pos`, with `sm` if not NULL, echoing the
 * game selector and swapping sender and receiver of the command. */
static int send_request(struct client *c, const char *request, const epd_move *sm)
{
    epd_record *rec = NULL;
    char *text = NULL;
    size_t i;
    int rc = 1;
    static const char *const echoed[3] = { "tcgs", "tcri", "tcsi" };
    static const char *const renamed[3] = { "tcgs", "tcsi", "tcri" };

    if (epd_record_new(c->pos, &rec) != EPD_STATUS_OK ||
        epd_record_set_identifier(rec, "refreq", request) != EPD_STATUS_OK) {
        epd_record_free(rec);
        return fail("building the request");
    }
    if (sm != NULL && epd_record_set_moves(rec, "sm", sm, 1) != EPD_STATUS_OK) {
        epd_record_free(rec);
        return fail("setting sm");
    }
    for (i = 0; c->last_command != NULL && i < 3; i++) {
        size_t op, j, count = 0;
        epd_operands *operands = NULL;
        if (epd_record_find(c->last_command, echoed[i], &op) != EPD_STATUS_OK ||
            epd_record_operand_count(c->last_command, op, &count) != EPD_STATUS_OK ||
            epd_operands_new(&operands) != EPD_STATUS_OK) {
            continue;
        }
        /* Copy the operands, typed: tcgs has an integer, tcri and tcsi
         * two strings (address, name). */
        for (j = 0; j < count; j++) {
            const char *value;
            size_t len;
            epd_int64 n;
            if (epd_record_operand_integer(c->last_command, op, j, &n) == EPD_STATUS_OK) {
                epd_operands_push_integer(operands, n);
            } else if (epd_record_operand_text(c->last_command, op, j, &value, &len) == EPD_STATUS_OK) {
                epd_operands_push_string(operands, value, len);
            }
        }
        if (epd_record_set(rec, renamed[i], operands) != EPD_STATUS_OK) {
            fail(renamed[i]);
        }
        epd_operands_free(operands);
    }
    if (epd_record_canonical(rec, &text, NULL) == EPD_STATUS_OK) {
        printf("%s\n", text);
        fflush(stdout);
        epd_string_free(text);
        rc = 0;
    }
    epd_record_free(rec);
    return rc;
}

/* Sets the current position from a command, then plays its sm if any. */
static int take_position(struct client *c, const epd_record *cmd)
{
    epd_position *pos = NULL;
    size_t op;
    epd_move sm;

    if (epd_record_position(cmd, &pos) != EPD_STATUS_OK) {
        return fail("position");
    }
    epd_position_free(c->pos);
    c->pos = pos;
    if (epd_record_find(cmd, "sm", &op) == EPD_STATUS_OK) {
        if (epd_record_operand_move(cmd, op, 0, &sm) != EPD_STATUS_OK ||
            epd_position_play(c->pos, sm) != EPD_STATUS_OK) {
            return fail("supplied move");
        }
    }
    return 0;
}

/* Picks the legal move that wins the most material at once (the first of
 * equals); returns 0 if there is none (mate or stalemate). */
static int choose_move(const epd_position *pos, epd_move *out)
{
    epd_move moves[EPD_MAX_LEGAL_MOVES];
    size_t count = 0, i;
    long best = -1;

    if (epd_position_legal_moves(pos, moves, EPD_MAX_LEGAL_MOVES, &count) != EPD_STATUS_OK) {
        return 0;
    }
    for (i = 0; i < count; i++) {
        epd_piece victim;
        long gain = 0;
        if (epd_position_piece_at(pos, moves[i].to, &victim) == EPD_STATUS_OK &&
            moves[i].kind != EPD_MOVE_CASTLE) {
            gain = values[victim.role];
        }
        if (gain > best) {
            best = gain;
            *out = moves[i];
        }
    }
    return count > 0;
}

static void print_tags(const epd_registers *regs)
{
    size_t n = 0, i;
    epd_registers_tag_count(regs, &n);
    for (i = 0; i < n; i++) {
        const char *name, *value;
        size_t name_len, value_len;
        if (epd_registers_tag_at(regs, i, &name, &name_len, &value, &value_len) == EPD_STATUS_OK) {
            fprintf(stderr, "  tag %.*s = \"%.*s\"\n", (int)name_len, name, (int)value_len, value);
        }
    }
}

/* Handles one command; returns 1 to stop (disconnect). */
static int handle(struct client *c, epd_record *cmd)
{
    size_t op;
    char command[32];
    const char *text;
    size_t len;
    epd_move mv;

    if (epd_record_find(cmd, "refcom", &op) != EPD_STATUS_OK ||
        epd_record_operand_text(cmd, op, 0, &text, &len) != EPD_STATUS_OK || len >= sizeof command) {
        fprintf(stderr, "not a referee command: %s\n", epd_last_error_message());
        return 0;
    }
    memcpy(command, text, len);
    command[len] = '\0';
    fprintf(stderr, "command %s\n", command);
    epd_registers_apply(c->registers, cmd); /* ptp tags may come with any command */

    if (strcmp(command, "reset") == 0) {
        epd_registers_reset(c->registers);
        take_position(c, cmd);
    } else if (strcmp(command, "inform") == 0) {
        print_tags(c->registers);
    } else if (strcmp(command, "execute") == 0) {
        take_position(c, cmd);
    } else if (strcmp(command, "respond") == 0) {
        if (take_position(c, cmd) == 0) {
            if (choose_move(c->pos, &mv)) {
                send_request(c, "reply", &mv);
                epd_position_play(c->pos, mv);
            } else {
                send_request(c, "reply", NULL);
            }
        }
    } else if (strcmp(command, "conclude") == 0) {
        const char *result;
        if (epd_registers_tag(c->registers, "Result", &result, &len) == EPD_STATUS_OK) {
            fprintf(stderr, "  game over: %.*s\n", (int)len, result);
        } else {
            fprintf(stderr, "  game over\n");
        }
    } else if (strcmp(command, "fault") == 0) {
        fprintf(stderr, "  referee fault: human intervention needed\n");
    } else if (strcmp(command, "disconnect") == 0) {
        send_request(c, "sign_off", NULL);
        return 1;
    } else {
        fprintf(stderr, "  unknown command %s\n", command);
    }
    return 0;
}

int main(void)
{
    struct client c;
    char line[4096];
    epd_diagnostics *diags = NULL;

    memset(&c, 0, sizeof c);
    if (epd_position_new(&c.pos) != EPD_STATUS_OK || epd_registers_new(&c.registers) != EPD_STATUS_OK ||
        epd_diagnostics_new(&diags) != EPD_STATUS_OK) {
        return fail("start-up");
    }
    send_request(&c, "sign_on", NULL);
    while (fgets(line, sizeof line, stdin) != NULL) {
        epd_record *cmd = NULL;
        epd_status st;
        int stop;
        size_t len = strcspn(line, "\r\n");
        if (len == 0) {
            continue;
        }
        st = epd_record_parse(line, len, EPD_PARSE_STRICT, diags, &cmd);
        if (st != EPD_STATUS_OK) {
            fprintf(stderr, "rejected: %s\n", epd_last_error_message());
            continue;
        }
        epd_record_free(c.last_command);
        c.last_command = cmd;
        stop = handle(&c, cmd);
        if (stop) {
            break;
        }
    }
    epd_record_free(c.last_command);
    epd_diagnostics_free(diags);
    epd_registers_free(c.registers);
    epd_position_free(c.pos);
    return 0;
}
