"""Driving a UCI engine from Python, side by side in one run: epdkit
(Engine.uci, then analyse) against python-chess (SimpleEngine.popen_uci,
then analyse; GPL, used here as a benchmark peer only), on the
positions of WAC (wacnew.epd of the shared corpora).

Cases, each at Hash 16 and Hash 256 (Threads 1):
  - 200 x analyse(nodes=1): the cost of a call, where the engine does
    next to nothing (and, before issue 45, epdkit's ucinewgame per call
    cleared the hash: 9x python-chess's time at Hash 256);
  - 20 x analyse(depth=12): real searches, one game, the hash kept.

Each round starts both engines (not timed), times the case on one and
then the other (which one goes first alternates), and stops them. Prints
each round, the medians and their ratio, and how many best moves of the
depth-12 case the two agree on.

    python engine_bench.py [--engine stockfish] [--rounds 5] [--corpora DIR]

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import time
from pathlib import Path
from typing import Callable, Dict, List, Optional, Tuple

import chess
import chess.engine

import epdkit

CASES: List[Tuple[str, int, Dict[str, int]]] = [
    ("200 x analyse(nodes=1)", 200, {"nodes": 1}),
    ("20 x analyse(depth=12)", 20, {"depth": 12}),
]


def _corpora(given: Optional[str]) -> Path:
    for p in [given, os.environ.get("EPDKIT_CORPORA"), Path(__file__).resolve().parents[2].parent / "shared" / "corpora"]:
        if p and (Path(p) / "wacnew.epd").is_file():
            return Path(p)
    raise SystemExit("wacnew.epd not found: pass --corpora DIR (the shared/corpora folder)")


def _epdkit(program: str, hash_mb: int, fens: List[str], limit: Dict[str, int]) -> Tuple[float, List[Optional[str]]]:
    positions = [epdkit.Position(f) for f in fens]
    with epdkit.Engine.uci(program, options={"Hash": hash_mb, "Threads": 1}) as engine:
        engine.analyse(positions[0], nodes=1)  # the first search (ucinewgame) outside the timing
        t = time.perf_counter()
        best = [engine.analyse(p, **limit).best for p in positions]  # type: ignore[call-overload]
        return time.perf_counter() - t, best


def _python_chess(
    program: str, hash_mb: int, fens: List[str], limit: Dict[str, int]
) -> Tuple[float, List[Optional[str]]]:
    boards = [chess.Board(f) for f in fens]
    with chess.engine.SimpleEngine.popen_uci(program) as engine:
        engine.configure({"Hash": hash_mb, "Threads": 1})
        engine.analyse(boards[0], chess.engine.Limit(nodes=1))
        t = time.perf_counter()
        infos = [engine.analyse(b, chess.engine.Limit(**limit)) for b in boards]
        took = time.perf_counter() - t
    best = [b.san(i["pv"][0]) if i.get("pv") else None for b, i in zip(boards, infos)]
    return took, best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--engine", default="stockfish")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--corpora")
    a = ap.parse_args()
    program = shutil.which(a.engine) or shutil.which(a.engine, path="/usr/games") or a.engine
    wac = [epdkit.Position(" ".join(line.split()[:4])).fen for line in
           (_corpora(a.corpora) / "wacnew.epd").read_text().splitlines() if line.strip()]
    results = []
    for hash_mb in (16, 256):
        for name, count, limit in CASES:
            fens = [wac[i % len(wac)] for i in range(count)]
            ours: List[float] = []
            theirs: List[float] = []
            agree = 0
            for r in range(a.rounds):
                runs: List[Callable[[], Tuple[float, List[Optional[str]]]]] = [
                    lambda: _epdkit(program, hash_mb, fens, limit),
                    lambda: _python_chess(program, hash_mb, fens, limit),
                ]
                order = [0, 1] if r % 2 == 0 else [1, 0]
                got = {i: runs[i]() for i in order}
                ours.append(got[0][0])
                theirs.append(got[1][0])
                agree = sum(x == y for x, y in zip(got[0][1], got[1][1]))
                print(f"Hash {hash_mb}, {name}, round {r + 1}: epdkit {ours[-1] * 1000:.1f} ms, "
                      f"python-chess {theirs[-1] * 1000:.1f} ms", flush=True)
            mo, mt = statistics.median(ours), statistics.median(theirs)
            results.append((hash_mb, name, mo, mt, agree, count))
    print(f"\n{program}, medians of {a.rounds} rounds (engine start and stop not timed):")
    print("| case | Hash | epdkit | python-chess | ratio | same best move |")
    print("|---|--:|--:|--:|--:|--:|")
    for hash_mb, name, mo, mt, agree, count in results:
        print(f"| {name} | {hash_mb} | {mo * 1000:.1f} ms | {mt * 1000:.1f} ms | {mo / mt:.2f} | {agree}/{count} |")


if __name__ == "__main__":
    main()
