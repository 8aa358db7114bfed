"""Driving a UCI engine from Python, side by side in one run: epdkit
(Engine.uci, then analyze_record on one kept process) against
python-chess (SimpleEngine.popen_uci, then analyse; GPL, used here as a
benchmark peer only). Each round starts the engine, analyses the same
positions with the same node limit, and stops it; the figure is the
round's wall time. Rounds alternate between the two.

    python engine_bench.py [--engine stockfish] [--positions 20] [--nodes 1] [--rounds 11]

Prints each round and the medians, then the ratio of the medians.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import time
from typing import List

import chess
import chess.engine

import epdkit

FENS = [
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1",
    "8/8/8/8/8/8/6k1/4K2R w K - 0 1",
]


def epdkit_round(program: str, n: int, nodes: int) -> float:
    recs = [epdkit.parse(" ".join(FENS[i % len(FENS)].split()[:4])) for i in range(n)]
    t = time.perf_counter()
    with epdkit.Engine.uci(program, nodes=nodes, options={"Hash": 16, "Threads": 1}) as engine:
        for rec in recs:
            engine.analyze_record(rec)
    return time.perf_counter() - t


def python_chess_round(program: str, n: int, nodes: int) -> float:
    boards = [chess.Board(FENS[i % len(FENS)]) for i in range(n)]
    t = time.perf_counter()
    with chess.engine.SimpleEngine.popen_uci(program) as engine:
        engine.configure({"Hash": 16, "Threads": 1})
        for board in boards:
            engine.analyse(board, chess.engine.Limit(nodes=nodes))
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="stockfish")
    ap.add_argument("--positions", type=int, default=20)
    ap.add_argument("--nodes", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=11)
    a = ap.parse_args()
    program = shutil.which(a.engine) or shutil.which(a.engine, path="/usr/games") or a.engine
    ours: List[float] = []
    theirs: List[float] = []
    for r in range(a.rounds):
        ours.append(epdkit_round(program, a.positions, a.nodes))
        theirs.append(python_chess_round(program, a.positions, a.nodes))
        print(f"round {r + 1}: epdkit {ours[-1] * 1000:.1f} ms, python-chess {theirs[-1] * 1000:.1f} ms")
    mo, mt = statistics.median(ours), statistics.median(theirs)
    print(f"{a.positions} analyses at nodes={a.nodes} with {program}, start and stop included, "
          f"medians of {a.rounds} rounds:")
    print(f"epdkit {mo * 1000:.1f} ms, python-chess {mt * 1000:.1f} ms, epdkit / python-chess = {mo / mt:.2f}")


if __name__ == "__main__":
    main()
