#!/usr/bin/env python3
"""Differential test of epd-core against python-chess (GPL: a test oracle
only, never a dependency of a shipped crate).

Reads the file written by tests/tests/python_chess_diff.rs: one JSON object
per line, a position and epd-core's answers about it:

  {"fen": ..., "check": bool, "checkmate": bool, "stalemate": bool,
   "insufficient": bool, "moves": [[uci, san, fen_after], ...]}

and compares each with python-chess. Prints every difference (the first 20
in full) and exits 1 if there is one, 0 otherwise; exit 2 if python-chess
is missing.

Conventions aligned (each checked, none papering over a difference):
- En passant: epd-core writes the en passant square after every double
  pawn push, legal capture or not, as EPD §4.4 and FEN do. python-chess's
  default board.fen() writes it only when a legal en passant capture
  exists; board.fen(en_passant="fen") writes it after every double push,
  which is what is compared here.
- Castling rights: standard chess only (no Chess960 positions are
  generated), written KQkq by both; python-chess's UCI for castling is
  king-to-destination (e1g1), as epd-core's UCI for standard positions.
- FEN counters: both write full six-field FEN with the halfmove clock
  and the fullmove number.
- Insufficient material: python-chess's Board.is_insufficient_material()
  is true when neither side can ever mate; epd-core's
  Position::is_insufficient_material() is defined the same way (K v K,
  K+minor v K, bishops all on one colour).
- Moves are compared as sets of UCI strings; SAN is compared per move,
  check and mate suffixes included (python-chess's board.san()).
"""

import json
import sys

try:
    import chess
except ImportError:
    print("python-chess is not installed (pip install chess==1.11.2)", file=sys.stderr)
    sys.exit(2)


def compare(entry):
    """The differences for one position, as strings."""
    fen = entry["fen"]
    diffs = []
    board = chess.Board(fen)
    if board.fen(en_passant="fen") != fen:
        diffs.append(f"FEN does not read back: python-chess writes {board.fen(en_passant='fen')}")
    for name, ours, theirs in [
        ("check", entry["check"], board.is_check()),
        ("checkmate", entry["checkmate"], board.is_checkmate()),
        ("stalemate", entry["stalemate"], board.is_stalemate()),
        ("insufficient material", entry["insufficient"], board.is_insufficient_material()),
    ]:
        if ours != theirs:
            diffs.append(f"{name}: epd-core {ours}, python-chess {theirs}")
    ours = {uci: (san, after) for uci, san, after in entry["moves"]}
    theirs = {m.uci(): m for m in board.legal_moves}
    if set(ours) != set(theirs):
        only_ours = sorted(set(ours) - set(theirs))
        only_theirs = sorted(set(theirs) - set(ours))
        diffs.append(f"legal moves: only epd-core {only_ours}, only python-chess {only_theirs}")
    for uci in sorted(set(ours) & set(theirs)):
        move = theirs[uci]
        san, after = ours[uci]
        their_san = board.san(move)
        if san != their_san:
            diffs.append(f"SAN of {uci}: epd-core {san}, python-chess {their_san}")
        board.push(move)
        their_after = board.fen(en_passant="fen")
        board.pop()
        if after != their_after:
            diffs.append(f"FEN after {uci}: epd-core {after}, python-chess {their_after}")
    return diffs


def main():
    if len(sys.argv) != 2:
        print("usage: diff_python_chess.py POSITIONS.jsonl", file=sys.stderr)
        return 2
    positions = moves = bad = 0
    with open(sys.argv[1], encoding="utf-8") as f:
        for line in f:
            entry = json.loads(line)
            positions += 1
            moves += len(entry["moves"])
            diffs = compare(entry)
            if diffs:
                bad += 1
                if bad <= 20:
                    print(f"{entry['fen']}:", file=sys.stderr)
                    for d in diffs[:10]:
                        print(f"  {d}", file=sys.stderr)
    print(f"python-chess {chess.__version__}: {positions} positions, {moves} moves, {bad} with differences")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
