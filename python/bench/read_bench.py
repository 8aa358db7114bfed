"""Reading and validating an EPD file from Python, side by side in one run:

- epdkit.read (every record validated by libepdkit, strict), iterated;
- python-chess (the peer; GPL, used here as a benchmark only):
  chess.Board.from_epd on every line (parses the position and every
  operation, SAN moves included);
- the `epd normalize` CLI (a process: start, read, validate, write to
  /dev/null) and `epd check`.

    python read_bench.py [FILE] [--rounds N] [--epd PATH]

FILE defaults to ../shared/bench/bench-100k.epd beside the checkout.
Prints each round and the medians, then the ratios of the medians.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, Dict, List

ROOT = Path(__file__).resolve().parents[2]


def timed(f: Callable[[], int]) -> float:
    start = time.perf_counter()
    n = f()
    elapsed = time.perf_counter() - start
    assert n > 0
    return elapsed


def main() -> int:
    import chess

    import epdkit

    ap = argparse.ArgumentParser()
    ap.add_argument("file", nargs="?", default=str(ROOT.parent / "shared" / "bench" / "bench-100k.epd"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--epd", default=str(ROOT / "target" / "release" / "epd"))
    args = ap.parse_args()
    path = args.file
    with open(path) as f:
        lines = [line for line in f if line.strip()]
    records = len(lines)

    def epdkit_read() -> int:
        return sum(1 for _ in epdkit.read(path))

    def python_chess() -> int:
        n = 0
        with open(path) as f:
            for line in f:
                if line.strip():
                    chess.Board.from_epd(line)
                    n += 1
        return n

    def cli(verb: str) -> Callable[[], int]:
        def run() -> int:
            extra = ["-o", os.devnull] if verb == "normalize" else []
            subprocess.run([args.epd, verb, path, *extra], check=True, capture_output=True)
            return 1

        return run

    cases: Dict[str, Callable[[], int]] = {
        "epdkit.read": epdkit_read,
        "python-chess from_epd": python_chess,
        "epd normalize (CLI)": cli("normalize"),
        "epd check (CLI)": cli("check"),
    }
    assert epdkit_read() == records
    times: Dict[str, List[float]] = {k: [] for k in cases}
    for r in range(args.rounds):
        for name, f in cases.items():
            times[name].append(timed(f))
        print(f"round {r + 1}: " + ", ".join(f"{k} {v[-1]:.3f} s" for k, v in times.items()), file=sys.stderr)
    med = {k: statistics.median(v) for k, v in times.items()}
    print(f"{records} records of {path}, medians of {args.rounds} rounds:")
    for k, v in med.items():
        print(f"  {k:24} {v:8.3f} s  {records / v:>12,.0f} records/s")
    print(f"  python-chess / epdkit.read: {med['python-chess from_epd'] / med['epdkit.read']:.1f}x")
    print(f"  epdkit.read / epd normalize: {med['epdkit.read'] / med['epd normalize (CLI)']:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
