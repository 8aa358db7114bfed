/*
 * referee_client: a chess program that plays under an EPD referee
 * (section 8 of the specification) over TCP, through libepdkit's
 * referee client API. It signs on, answers every respond with the legal
 * move that wins the most material at once, accepts a draw offer when
 * material is level, and leaves when the referee disconnects.
 *
 *   referee_client --referee HOST:PORT --name NAME [--token TOKEN]
 *
 * (`epd referee` starts it with those arguments when the event file names
 * it as a player's command.)
 *
 * ANSI C (C89). Licensed under MIT OR Apache-2.0.
 */
#include <stdio.h>
#include <string.h>

#include "epdkit.h"

static const long values[7] = { 0, 100, 300, 310, 500, 900, 0 };

static int fail(const char *what)
{
    fprintf(stderr, "referee_client: %s: %s\n", what, epd_last_error_message());
    return 1;
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

/* Material of White less material of Black. */
static long balance(const epd_position *pos)
{
    long sum = 0;
    unsigned int sq;
    for (sq = 0; sq < 64; sq++) {
        epd_piece p;
        if (epd_position_piece_at(pos, sq, &p) == EPD_STATUS_OK && p.role != EPD_ROLE_NONE) {
            sum += p.color == EPD_WHITE ? values[p.role] : -values[p.role];
        }
    }
    return sum;
}

/* Answers a respond: a move, or a draw accepted when material is level. */
static int respond(epd_referee_client *client)
{
    epd_position *pos = NULL;
    epd_move mv;
    int offered = 0;
    int rc = 0;

    if (epd_referee_position(client, &pos) != EPD_STATUS_OK) {
        return fail("position");
    }
    epd_referee_draw_offered(client, &offered);
    if (offered && balance(pos) == 0) {
        if (epd_referee_accept_draw(client) != EPD_STATUS_OK) {
            rc = fail("accepting a draw");
        }
    } else if (choose_move(pos, &mv)) {
        if (epd_referee_reply(client, mv, 0) != EPD_STATUS_OK) {
            rc = fail("reply");
        }
    }
    epd_position_free(pos);
    return rc;
}

int main(int argc, char **argv)
{
    const char *address = NULL, *name = NULL, *token = NULL;
    epd_referee_client *client = NULL;
    epd_refcom command;
    int i, games = 0;

    for (i = 1; i + 1 < argc; i += 2) {
        if (strcmp(argv[i], "--referee") == 0) {
            address = argv[i + 1];
        } else if (strcmp(argv[i], "--name") == 0) {
            name = argv[i + 1];
        } else if (strcmp(argv[i], "--token") == 0) {
            token = argv[i + 1];
        }
    }
    if (address == NULL || name == NULL) {
        fprintf(stderr, "usage: referee_client --referee HOST:PORT --name NAME [--token TOKEN]\n");
        return 2;
    }
    if (epd_referee_connect(address, name, token, 10000, &client) != EPD_STATUS_OK) {
        return fail(address);
    }
    for (;;) {
        if (epd_referee_next(client, &command) != EPD_STATUS_OK) {
            fail("next");
            break;
        }
        if (command == EPD_REFCOM_RESPOND) {
            if (respond(client) != 0) {
                break;
            }
        } else if (command == EPD_REFCOM_CONCLUDE) {
            char *result = NULL;
            games++;
            if (epd_referee_tag(client, "Result", &result) == EPD_STATUS_OK) {
                fprintf(stderr, "referee_client: game %d over: %s\n", games, result);
                epd_string_free(result);
            }
        } else if (command == EPD_REFCOM_FAULT) {
            char *why = NULL;
            if (epd_referee_message(client, &why) == EPD_STATUS_OK) {
                fprintf(stderr, "referee_client: the referee reports: %s\n", why);
                epd_string_free(why);
            }
        } else if (command == EPD_REFCOM_DISCONNECT) {
            epd_referee_close(client);
            return 0;
        }
    }
    epd_referee_close(client);
    return 1;
}
