"""Records and positions as python-chess users expect them (issue 45):
the bridge to python-chess's objects, Record as a whole MutableMapping
with snapshot views, FEN counters never dropped without a word, and
perft. python-chess (GPL) is the oracle here, never a dependency.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import collections.abc
import random
import threading
import time
from typing import List

import chess
import pytest

import epdkit

KIWIPETE = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"


def _random_boards(n: int, seed: int) -> List[chess.Board]:
    rng = random.Random(seed)
    boards = []
    for _ in range(n):
        board = chess.Board()
        for _ in range(rng.randrange(0, 80)):
            moves = list(board.legal_moves)
            if not moves:
                break
            board.push(rng.choice(moves))
        boards.append(board)
    return boards


# ---------------------------------------------------------------- bridge


def test_positions_cross_to_python_chess_and_back() -> None:
    """from_board keeps the position and its moves (pop takes them back);
    to_board gives python-chess the same position and move stack; push
    takes a chess.Move. Over 300 random games."""
    for board in _random_boards(300, 45):
        pos = epdkit.Position.from_board(board)
        assert chess.Board(pos.fen).epd() == board.epd()
        assert len(pos.move_stack) == len(board.move_stack)
        back = pos.to_board()
        assert back.move_stack == board.move_stack and back.fen() == board.fen()
        if board.move_stack:
            before = board.copy()
            last = before.pop()
            pos.pop()
            assert pos.fen == epdkit.Position.from_board(before).fen
            assert pos.push(last) == before.san(last)


def test_push_takes_a_chess_move_and_refuses_other_objects() -> None:
    pos = epdkit.Position()
    assert pos.push(chess.Move.from_uci("g1f3")) == "Nf3"
    assert pos.is_legal(chess.Move.from_uci("e7e5"))
    assert not pos.is_legal(chess.Move.from_uci("e7e4"))
    with pytest.raises(epdkit.MoveError):
        pos.push(chess.Move.from_uci("e7e4"))
    with pytest.raises(TypeError, match="str or chess.Move"):
        pos.push(42)  # type: ignore[arg-type]


def test_record_from_board_equals_python_chess_epd() -> None:
    """Record.from_board(board, **ops) reads as python-chess's
    board.epd(**ops) does: moves (bm, a list; pv, a variation) in SAN."""
    board = chess.Board(KIWIPETE)
    best = chess.Move.from_uci("e2a6")
    line = [best, chess.Move.from_uci("b4c3"), chess.Move.from_uci("d2c3")]
    rec = epdkit.Record.from_board(board, bm=best, am=[chess.Move.from_uci("e1g1")], pv=line, id="kiwi", ce=35)
    peer = epdkit.parse(board.epd(bm=best, am=[chess.Move.from_uci("e1g1")], pv=line, id="kiwi", ce=35))
    assert rec == peer, (str(rec), str(peer))
    assert rec.bm == ["Bxa6"] and rec.pv == ["Bxa6", "bxc3", "Bxc3"]


# ---------------------------------------------------- Record, MutableMapping


def test_record_is_a_whole_mutable_mapping() -> None:
    rec = epdkit.Record("4k3/8/8/8/8/8/8/4K2R w K -")
    assert isinstance(rec, collections.abc.MutableMapping)
    rec.update({"bm": ["O-O"], "id": "castle"}, ce=12)
    assert str(rec) == '4k3/8/8/8/8/8/8/4K2R w K - bm O-O; ce 12; id "castle";'
    assert rec.setdefault("ce", 99) == [12]
    assert rec.setdefault("acd", 3) == [3]
    assert rec.pop("acd") == [3] and "acd" not in rec
    assert rec.pop("acd", None) is None
    with pytest.raises(KeyError):
        rec.pop("acd")
    assert list(rec) == ["bm", "id", "ce"]
    assert rec.popitem() == ("ce", [12])
    rec.clear()
    assert len(rec) == 0 and str(rec) == "4k3/8/8/8/8/8/8/4K2R w K -"
    with pytest.raises(KeyError):
        rec.popitem()


def test_mapping_views_are_snapshots_while_another_thread_deletes() -> None:
    """dict(rec.items()), list(rec.values()) and list(rec.keys()) while
    another thread adds and deletes opcodes: never a KeyError, and each
    is one state of the record (c0 .. c9 all there or c5 not there)."""
    rec = epdkit.Record("4k3/8/8/8/8/8/8/4K2R w K -")
    for i in range(10):
        rec[f"c{i}"] = f"comment {i}"
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            del rec["c5"]
            rec["c5"] = "comment 5"

    worker = threading.Thread(target=churn)
    worker.start()
    try:
        until = time.monotonic() + 2
        seen = 0
        while time.monotonic() < until:
            items = dict(rec.items())
            assert set(items) in ({f"c{i}" for i in range(10)}, {f"c{i}" for i in range(10) if i != 5})
            assert len(list(rec.values())) in (9, 10)
            assert len(list(rec.keys())) in (9, 10)
            seen += 1
    finally:
        stop.set()
        worker.join()
    assert seen > 10


# ------------------------------------------------------------ FEN counters


def test_fen_counters_are_refused_or_kept_never_dropped() -> None:
    """Record(FEN) with counters: strict refuses with E027 as `epd check`
    does; lenient keeps them as hmvc and fmvn as `epd repair` does (it
    used to drop them, printing `... w - -`)."""
    fen = "7k/8/8/8/8/8/8/K5R1 w - - 7 31"
    with pytest.raises(epdkit.InvalidRecordError) as e:
        epdkit.Record(fen)
    assert "E027" in [d.code for d in e.value.diagnostics]
    rec = epdkit.Record(fen, mode="lenient")
    assert rec["hmvc"] == [7] and rec["fmvn"] == [31]
    assert str(rec) == "7k/8/8/8/8/8/8/K5R1 w - - fmvn 31; hmvc 7;"
    assert rec.position.fen == fen
    # The four position fields alone, and a Position (whose counters are
    # no part of a record), as before.
    assert str(epdkit.Record("7k/8/8/8/8/8/8/K5R1 w - -")) == "7k/8/8/8/8/8/8/K5R1 w - -"
    assert str(epdkit.Record(epdkit.Position(fen))) == "7k/8/8/8/8/8/8/K5R1 w - -"
    with pytest.raises(epdkit.FenError):
        epdkit.Record("7k/8/8/8/8/8/8/K5R1 w - - 7")


# ------------------------------------------------------------------ perft


def test_perft_counts_as_the_cli_does() -> None:
    assert [epdkit.perft(None, d) for d in range(5)] == [1, 20, 400, 8902, 197281]
    assert epdkit.perft(KIWIPETE, 3) == 97862
    assert epdkit.perft(epdkit.Position(KIWIPETE), 1) == 48
    with pytest.raises(ValueError):
        epdkit.perft(None, -1)
    with pytest.raises(TypeError):
        epdkit.perft(None, 2.0)  # type: ignore[arg-type]
