"""Threads sharing one object: no crash, no torn state.

ctypes lets go of the GIL during every library call, so before each
object serialised the calls on its handle, four threads writing to one
Record killed the process (double free) and a shared Position ended with
two white kings. Eight threads here share one Record, one Position, one
Engine and the records of one read() batch, with mixed operations, for
$EPDKIT_STRESS_SECONDS (10 by default); then the state is checked against
what a serial replay of each thread's own operations gives.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import io
import os
import random
import threading
import time
from typing import Dict, List, Tuple

import chess

import epdkit

WAC = '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
THREADS = 8


def _seconds() -> float:
    return float(os.environ.get("EPDKIT_STRESS_SECONDS", "10"))


def test_eight_threads_share_a_record_a_position_an_engine_and_a_batch() -> None:
    rec = epdkit.Record.parse(WAC)
    pos = epdkit.Position()
    start_fen = pos.fen
    engine = epdkit.Engine.builtin(depth=1)
    lines = [WAC.replace('"WAC.001"', f'"B.{i}"') for i in range(64)]
    batch = list(epdkit.read(io.StringIO("\n".join(lines) + "\n")))
    assert len(batch) == 64
    expected_batch = [(str(r), r["id"]) for r in epdkit.read(io.StringIO("\n".join(lines) + "\n"))]
    deadline = time.monotonic() + _seconds()
    last: Dict[int, str] = {}
    errors: List[BaseException] = []
    counts: List[Tuple[int, int]] = []

    def work(k: int) -> None:
        rng = random.Random(k)
        done = pushes = 0
        try:
            while time.monotonic() < deadline:
                done += 1
                op = rng.randrange(10)
                if op == 0:
                    value = f"t{k} {done}"
                    rec[f"c{k}"] = value
                    last[k] = value
                elif op == 1:
                    text = str(rec)
                    assert text.startswith("2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -"), text
                    assert epdkit.Record.parse(text)["bm"] == ["Qg6"]
                elif op == 2:
                    copy = rec.copy()
                    assert copy.position.fen.startswith("2rr3k/")
                    assert len(list(copy)) == len(copy)
                elif op == 3:
                    # A move of the position as it is now; another thread
                    # may have changed it since, so the move may be refused.
                    moves = pos.legal_moves()
                    if moves:
                        try:
                            pos.push(moves[rng.randrange(len(moves))])
                            pushes += 1
                        except epdkit.MoveError:
                            pass
                elif op == 4 and pushes > 0:
                    try:
                        pos.pop()
                        pushes -= 1
                    except IndexError:
                        pass
                elif op == 5:
                    # Whatever the position is, it is a legal one.
                    board = chess.Board(pos.fen)
                    assert board.is_valid(), pos.fen
                elif op == 6:
                    analysed = engine.analyze_record(rec.copy())
                    assert analysed["pv"], str(analysed)
                elif op == 7:
                    i = rng.randrange(len(batch))
                    assert (str(batch[i]), batch[i]["id"]) == expected_batch[i]
                elif op == 8:
                    assert "bm" in rec and rec["bm"] == ["Qg6"]
                else:
                    placement = pos.copy().fen.split()[0]
                    assert placement.count("K") == 1 and placement.count("k") == 1, placement
                    _ = pos.status
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)
        counts.append((k, done))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]
    assert len(counts) == THREADS and all(n > 0 for _, n in counts)
    # The serial replay: each thread wrote only its own comment, so the
    # record holds each thread's last value, and nothing else changed.
    for k, value in last.items():
        assert rec[f"c{k}"] == [value]
    assert rec["bm"] == ["Qg6"] and rec["id"] == ["WAC.001"]
    assert set(rec) == {"bm", "id"} | {f"c{k}" for k in last}
    # The position: every move pushed can be taken back, to the start.
    while pos.move_stack:
        pos.pop()
    assert pos.fen == start_fen
    assert [(str(r), r["id"]) for r in batch] == expected_batch
