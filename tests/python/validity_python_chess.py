"""Oracle side of tests/tests/python_chess_validity.rs.

Reads lines `SECTION<TAB>FEN<TAB>FLAGS` (FLAGS: epd-core's problems as
python-chess's status names, comma-separated) and compares them with
python-chess's Board.status() for the same FEN, read as Chess960 (epd-core
holds castling rights as rook squares, Chess960 and standard alike; the
FEN names each right's rook by its file, so both read the same rights).

Where the comparison is narrowed, and why (docs/kit.md lists the same):
- STATUS_EMPTY is not compared: an empty board has no kings, which both
  report.
- Without exactly one king a side, the check and castling flags are not
  compared: python-chess then judges by one of the kings (the highest
  square), epd-core by none; both call the position invalid.
- epd-core's own rules, which python-chess does not apply:
  PROMOTION_BUDGET (more promoted pieces than missing pawns) and
  IMPOSSIBLE_CHECK for two pawns or two knights checking at once (no
  single move gives that check).

Prints `N positions, D with differences`, the flag counts per section,
and exits 1 on any difference or when the generated section misses a
hard case it is meant to cover.
"""

import collections
import sys

import chess

NAMES = {
    name[len("STATUS_"):]: getattr(chess, name)
    for name in dir(chess)
    if name.startswith("STATUS_") and name != "STATUS_VALID"
}
VARIANT_ONLY = {"RACE_CHECK", "RACE_OVER", "RACE_MATERIAL"}
CHECK_AND_CASTLING = {"OPPOSITE_CHECK", "TOO_MANY_CHECKERS", "IMPOSSIBLE_CHECK", "BAD_CASTLING_RIGHTS"}

# What the generated positions must contain at least this often, so the
# test cannot pass without meeting the hard cases.
COVERAGE = {
    "IMPOSSIBLE_CHECK": 2000,
    "TOO_MANY_CHECKERS": 200,
    "INVALID_EP_SQUARE": 2000,
    "PAWNS_ON_BACKRANK": 2000,
    "BAD_CASTLING_RIGHTS": 2000,
    "OPPOSITE_CHECK": 2000,
    "NO_WHITE_KING": 200,
    "TOO_MANY_KINGS": 200,
    "VALID_EP_WITH_CHECK": 400,
    "EP_IMPOSSIBLE_CHECK": 1000,
    "VALID_DOUBLE_CHECK": 500,
    "VALID_CASTLING": 2000,
}


def status_names(board: chess.Board) -> set:
    status = board.status()
    return {n for n, bit in NAMES.items() if status & bit and n not in VARIANT_ONLY}


def one_king_each(board: chess.Board) -> bool:
    return all(len(board.pieces(chess.KING, c)) == 1 for c in chess.COLORS)


def leaper_pair(board: chess.Board) -> bool:
    """Two checkers, both pawns or both knights, not on one line with the king."""
    checkers = list(board.checkers())
    if len(checkers) != 2:
        return False
    kinds = {board.piece_type_at(sq) for sq in checkers}
    king = board.king(board.turn)
    aligned = chess.ray(checkers[0], checkers[1]) & chess.BB_SQUARES[king]
    return len(kinds) == 1 and kinds <= {chess.PAWN, chess.KNIGHT} and not aligned


def main() -> int:
    total = 0
    differ = []
    counts = collections.defaultdict(collections.Counter)
    for line in open(sys.argv[1], encoding="ascii"):
        section, fen, ours = line.rstrip("\n").split("\t")
        ours = set(ours.split(",")) - {""}
        total += 1
        board = chess.Board(fen, chess960=True)
        theirs = status_names(board) - {"EMPTY"}
        mine = set(ours)
        mine.discard("PROMOTION_BUDGET")
        if "IMPOSSIBLE_CHECK" in mine and "IMPOSSIBLE_CHECK" not in theirs and leaper_pair(board):
            mine.discard("IMPOSSIBLE_CHECK")
            counts[section]["epd-core only: two pawns or knights check"] += 1
        if not one_king_each(board):
            mine -= CHECK_AND_CASTLING
            theirs -= CHECK_AND_CASTLING
            # python-chess's TOO_MANY_KINGS is "more than two in all",
            # epd-core's "more than one of a side": they part only where
            # a side has none, which both report.
            if {"NO_WHITE_KING", "NO_BLACK_KING"} & theirs:
                mine.discard("TOO_MANY_KINGS")
                theirs.discard("TOO_MANY_KINGS")
        if mine != theirs:
            differ.append((section, fen, sorted(ours), sorted(theirs)))
        for name in theirs:
            counts[section][name] += 1
        if "IMPOSSIBLE_CHECK" in theirs and board.ep_square is not None and "INVALID_EP_SQUARE" not in theirs:
            counts[section]["EP_IMPOSSIBLE_CHECK"] += 1
        if not theirs:
            counts[section]["VALID"] += 1
            if board.is_check() and board.ep_square is not None:
                counts[section]["VALID_EP_WITH_CHECK"] += 1
            if len(board.checkers()) == 2:
                counts[section]["VALID_DOUBLE_CHECK"] += 1
            if board.castling_rights:
                counts[section]["VALID_CASTLING"] += 1
        if "PROMOTION_BUDGET" in ours:
            counts[section]["epd-core only: promotion budget"] += 1
    for section in sorted(counts):
        print(f"{section}: " + ", ".join(f"{k} {v}" for k, v in sorted(counts[section].items())))
    patterns = collections.defaultdict(list)
    for section, fen, ours, theirs in differ:
        patterns[(tuple(ours), tuple(theirs))].append(f"{section} {fen}")
    for (ours, theirs), where in sorted(patterns.items(), key=lambda kv: -len(kv[1])):
        print(f"DIFF x{len(where)} epd-core {list(ours)}, python-chess {list(theirs)}: e.g. {where[0]}")
    print(f"{total} positions, {len(differ)} with differences")
    short = {k: counts["generated"][k] for k, n in COVERAGE.items() if counts["generated"][k] < n}
    if short:
        print(f"generated positions miss hard cases: {short}")
    return 1 if differ or short else 0


if __name__ == "__main__":
    sys.exit(main())
