#!/usr/bin/env python3
"""Oracle for `epd target`: the same target search with python-chess.

Runs a UCI engine over an EPD suite with python-chess's
chess.engine.SimpleEngine (one engine, `ucinewgame` before every record,
as `epd target` does) and counts solved records by the same rule: the
engine's move is in bm (when bm is present) and not in am (when am is
present); records with neither are not scored.

    python3 bench/python/wac_target.py --engine /usr/games/stockfish --movetime 200 wac_arasan.epd
    python3 bench/python/wac_target.py --engine /usr/games/stockfish --nodes 100000 --moves out.txt wac_arasan.epd

Prints `NAME: S/N solved` on standard output; with --moves, one line per
record: its id and the move played in SAN.
"""

import argparse
import os
import sys

import chess
import chess.engine


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("file")
    ap.add_argument("--engine", default="/usr/games/stockfish")
    ap.add_argument("--movetime", type=int, help="milliseconds per position")
    ap.add_argument("--nodes", type=int, help="nodes per position")
    ap.add_argument("--depth", type=int, help="plies per position")
    ap.add_argument("--moves", help="write each record's id and move here")
    args = ap.parse_args()
    if args.movetime is None and args.nodes is None and args.depth is None:
        ap.error("give --movetime, --nodes or --depth")
    limit = chess.engine.Limit(
        time=None if args.movetime is None else args.movetime / 1000.0,
        nodes=args.nodes,
        depth=args.depth,
    )
    solved = scored = 0
    out = open(args.moves, "w") if args.moves else None
    with chess.engine.SimpleEngine.popen_uci(args.engine) as engine:
        with open(args.file) as f:
            for line in f:
                if not line.strip():
                    continue
                board, ops = chess.Board.from_epd(line)
                bm, am = ops.get("bm"), ops.get("am")
                # A fresh game object per record: python-chess then sends ucinewgame.
                result = engine.play(board, limit, game=object())
                move = result.move
                if bm is not None or am is not None:
                    scored += 1
                    if (bm is None or move in bm) and (am is None or move not in am):
                        solved += 1
                if out:
                    out.write(f"{ops.get('id', '')}\t{board.san(move) if move else '-'}\n")
    if out:
        out.close()
    print(f"{os.path.basename(args.file)}: {solved}/{scored} solved")
    return 0


if __name__ == "__main__":
    sys.exit(main())
