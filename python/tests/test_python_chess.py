"""The Python API against python-chess (a test oracle only: GPL) over
random positions: legal moves, SAN, FEN after each move, and status.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
import random

import pytest

import epdkit

chess = pytest.importorskip("chess") if not os.environ.get("EPDKIT_REQUIRE_PYTHON_CHESS") else __import__("chess")

POSITIONS = 5000


def test_random_positions_agree_with_python_chess() -> None:
    rng = random.Random(20261124)
    checked = 0
    moves_checked = 0
    while checked < POSITIONS:
        board = chess.Board()
        pos = epdkit.Position()
        for _ply in range(rng.randint(1, 160)):
            # Everything at this position.
            assert pos.fen == board.fen(en_passant="fen"), (board.fen(), pos.fen)
            ours = sorted(pos.legal_moves())
            theirs = sorted(m.uci() for m in board.legal_moves)
            assert ours == theirs, board.fen()
            for m in board.legal_moves:
                assert pos.san(m.uci()) == board.san(m), (board.fen(), m)
            moves_checked += len(theirs)
            assert pos.is_check() == board.is_check()
            assert pos.is_checkmate() == board.is_checkmate()
            assert pos.is_stalemate() == board.is_stalemate()
            assert pos.is_insufficient_material() == board.is_insufficient_material(), board.fen()
            assert pos.is_fifty_moves() == (board.halfmove_clock >= 100)
            checked += 1
            if not theirs or checked >= POSITIONS:
                break
            move = rng.choice(list(board.legal_moves))
            san = board.san(move)
            assert pos.push(san if rng.random() < 0.5 else move.uci()) == san
            board.push(move)
        # Take every move back: the start position again.
        while pos.move_stack:
            pos.pop()
        assert pos.fen == chess.STARTING_FEN
    assert checked == POSITIONS and moves_checked > 50_000
