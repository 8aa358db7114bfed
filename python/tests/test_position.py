"""Positions and scores.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import pytest

import epdkit

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"


def test_fen_in_and_out() -> None:
    pos = epdkit.Position()
    assert pos.fen == START and str(pos) == START
    assert repr(pos) == f"Position({START!r})"
    assert pos.epd == "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"
    assert epdkit.Position(START) == pos
    kiwi = epdkit.Position("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 20")
    assert (kiwi.halfmove_clock, kiwi.fullmove_number) == (3, 20)
    assert len(kiwi.legal_moves()) == 48


def test_pieces_and_turn() -> None:
    pos = epdkit.Position()
    assert pos.turn == "white"
    assert pos.piece_at("e1") == "K" and pos.piece_at(60) == "k" and pos.piece_at("e4") is None
    pieces = pos.pieces()
    assert len(pieces) == 32 and pieces["d8"] == "q" and pieces["a2"] == "P"


def test_moves_san_uci_push_pop() -> None:
    pos = epdkit.Position()
    assert len(pos.legal_moves()) == 20 and "g1f3" in pos.legal_moves()
    assert "Nf3" in pos.legal_san()
    assert pos.san("g1f3") == "Nf3" and pos.uci("Nf3") == "g1f3"
    assert pos.push("e4") == "e4"
    assert pos.push("e7e5") == "e5"
    assert pos.turn == "white"
    assert pos.move_stack == ["e4", "e5"]
    assert pos.pop() == "e5"
    assert pos.fen == "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1"
    assert pos.pop() == "e4" and pos.fen == START
    with pytest.raises(IndexError):
        pos.pop()
    with pytest.raises(epdkit.MoveError):
        pos.push("Ke2")
    with pytest.raises(epdkit.MoveError):
        pos.push("e2e5")
    assert pos.fen == START
    assert pos.is_legal("e2e4") and not pos.is_legal("e2e5") and not pos.is_legal("xx")
    castle = epdkit.Position("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1")
    assert castle.uci("O-O") == "e1g1" and castle.san("e1c1") == "O-O-O"
    copy = castle.copy()
    copy.push("O-O")
    assert castle.fen == "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"


def test_status() -> None:
    pos = epdkit.Position()
    for san in ("f3", "e5", "g4", "Qh4#"):
        pos.push(san)
    assert pos.status == ["check", "checkmate"]
    assert pos.is_checkmate() and pos.is_check() and pos.is_game_over()
    stale = epdkit.Position("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1")
    assert stale.is_stalemate() and not stale.is_check() and stale.is_game_over()
    assert epdkit.Position("8/8/8/8/8/8/8/K6k w - - 0 1").is_insufficient_material()
    assert epdkit.Position("8/8/8/8/8/8/6R1/K6k w - - 100 80").is_fifty_moves()


def test_bad_fen_raises_fen_error_with_column() -> None:
    with pytest.raises(epdkit.FenError) as e:
        epdkit.Position("8/8/8/8/8/8/8/K7 w - -")
    assert e.value.status == 6
    with pytest.raises(epdkit.FenError) as e:
        epdkit.Position("8/8/8/8/8/8/8/K6k x - -")
    assert e.value.column == 19


def test_score_mate_arithmetic() -> None:
    S = epdkit.Score
    assert S.mate_in(3).ce == 32762 and S.mated_in(2).ce == -32763
    assert S.from_ce(32762) == S.mate_in(3)
    assert S.from_ce(-32767).kind == "checkmated"
    assert S.mate_in(3).after_move() == S.mated_in(2)
    assert S.mated_in(2).after_move() == S.mate_in(2)
    assert -S.centipawns(35) == S.centipawns(-35)
    assert S.mate_in(3).dm == 3 and S.mated_in(3).dm is None and S.centipawns(5).dm is None
    assert S.from_dm(4) == S.mate_in(4)
    assert S.mate_in(2).to_uci() == ("mate", 2) and S.mated_in(2).to_uci() == ("mate", -2)
    assert S.centipawns(-12).to_uci() == ("cp", -12)
    assert sorted([S.mate_in(1), S.centipawns(50), S.mated_in(1), S.mate_in(5), S.centipawns(-3)]) == [
        S.mated_in(1),
        S.centipawns(-3),
        S.centipawns(50),
        S.mate_in(5),
        S.mate_in(1),
    ]
    assert str(S.centipawns(35)) and repr(S.mate_in(3)) == "Score.mate_in(3)"
    with pytest.raises(epdkit.EpdError):
        S.from_ce(40000)
    with pytest.raises(ValueError):
        S.mate_in(0)
