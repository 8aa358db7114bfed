"""A UCI engine from Python is one process for every record, started at
once (so a missing program or an option it does not declare fails there),
and stopped by close() or a with block.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

import epdkit

START = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -"


def _counting_engine(tmp_path: Path, epd: str) -> Path:
    """`epd uci` behind a script that counts its starts in tmp_path/starts."""
    script = tmp_path / "engine"
    script.write_text(f"#!/bin/sh\necho started >> '{tmp_path / 'starts'}'\nexec '{epd}' uci\n")
    os.chmod(script, 0o755)
    return script


def _starts(tmp_path: Path) -> int:
    p = tmp_path / "starts"
    return len(p.read_text().splitlines()) if p.exists() else 0


def test_one_process_for_every_record_until_close(tmp_path: Path, epd: str) -> None:
    script = _counting_engine(tmp_path, epd)
    with epdkit.Engine.uci(str(script), nodes=200, options={"Hash": 16}) as engine:
        assert _starts(tmp_path) == 1, "started by Engine.uci"
        for _ in range(20):
            rec = engine.analyze_record(epdkit.parse(START))
            assert rec["pv"] and "ce" in rec
        assert _starts(tmp_path) == 1, "one process for twenty records"
    engine.close()  # twice: nothing happens
    engine.analyze_record(epdkit.parse(START))
    assert _starts(tmp_path) == 2, "started again after the with block"
    engine.close()


def test_a_missing_program_or_an_unknown_option_fails_at_once(tmp_path: Path, epd: str) -> None:
    with pytest.raises(epdkit.EngineError):
        epdkit.Engine.uci(str(tmp_path / "no-such-engine"))
    script = _counting_engine(tmp_path, epd)
    with pytest.raises(epdkit.EngineError, match='no option "Hsh"'):
        epdkit.Engine.uci(str(script), options={"Hsh": 16})


def test_the_builtin_engine_has_the_same_interface() -> None:
    with epdkit.Engine.builtin(depth=2) as engine:
        assert engine.analyze_record(epdkit.parse(START))["pv"]


def test_the_builtin_engine_takes_the_options_epd_uci_declares(epd: str) -> None:
    """Engine.builtin(options=...) searches as `epd uci` given the same
    options over UCI (a fixed depth: the same tree), and not as without
    them; an option it lacks, or a value out of range, raises at once."""
    options = {"KnightValue": 200, "MobilityWeight": 20, "FutilityMargin": 0}
    pos = epdkit.Position("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
    with epdkit.Engine.builtin(options=options) as mine, epdkit.Engine.uci(epd, "uci", options=options) as theirs, \
            epdkit.Engine.builtin() as plain:
        lines = [e.analyse(pos, depth=6) for e in (mine, theirs, plain)]
    assert (lines[0].score, lines[0].pv) == (lines[1].score, lines[1].pv)
    assert (lines[0].score, lines[0].pv) != (lines[2].score, lines[2].pv), "the options changed nothing"
    with pytest.raises(epdkit.EngineError, match='no option "Skill Level"'):
        epdkit.Engine.builtin(options={"Skill Level": 3})
    with pytest.raises(epdkit.EngineError, match='"9" is not a whole number from 10 to 400'):
        epdkit.Engine.builtin(options={"PawnValue": 9})


def test_analyse_and_play_take_limits_per_call(tmp_path: Path, epd: str) -> None:
    with epdkit.Engine.builtin(depth=2) as engine:
        deep = engine.analyse(epdkit.Position(), depth=4)
        assert deep.depth == 4 and deep.pv and deep.best == deep.pv[0]
        assert isinstance(deep.score, epdkit.Score)
        assert engine.analyse(epdkit.Position()).depth == 2, "the engine's own limits come back"
        # A mate in one is found and played; a mated side has no move.
        mate = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
        assert engine.play(mate, depth=3) == "Rd8#"
        assert engine.analyse(mate, depth=3).score == epdkit.Score.mate_in(1)
        assert engine.play("3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1", depth=3) is None
    script = _counting_engine(tmp_path, epd)
    with epdkit.Engine.uci(str(script)) as engine:
        info = engine.analyse(epdkit.Position(), nodes=500)
        assert info.pv and info.best in epdkit.Position().legal_san
        assert engine.play(epdkit.Position(), depth=2) in epdkit.Position().legal_san
    with pytest.raises(ValueError):
        epdkit.Engine.builtin().analyse(epdkit.Position(), depth=0)


def test_analyse_leaves_the_engine_as_it_was(tmp_path: Path) -> None:
    """analyse asks for the counters and may take limits for one call; the
    file verbs may ask for counters and solution times: none of it stays
    with the engine."""
    counters = {"acd", "acn", "acs"}
    with epdkit.Engine.builtin(depth=2) as engine:
        assert not counters & set(engine.analyze_record(epdkit.parse(START)))
        info = engine.analyse(epdkit.Position(), depth=3)
        assert info.depth == 3 and info.nodes
        rec = engine.analyze_record(epdkit.parse(START))
        assert rec["pv"] and not counters & set(rec), "analyse left the counters on"
        assert engine.analyse(epdkit.Position()).depth == 2, "the engine's own depth is back"
        text, _ = epdkit.analyze_text(START + "\n", engine=engine, counters=True, solution_time=True)
        assert "acd" in text and "Solve_ms" in text
        rec = engine.analyze_record(epdkit.parse(START))
        assert not counters & set(rec) and "Solve_ms" not in rec, "analyze_text left its flags on"
        # A per-call limit that is refused changes nothing.
        with pytest.raises(ValueError, match="nodes must be at least 1"):
            engine.analyse(epdkit.Position(), nodes=0)
        assert engine.analyse(epdkit.Position()).depth == 2


def test_limits_are_checked_alike_everywhere() -> None:
    """Engine.builtin, Engine.uci and analyse check limits in one place,
    with the same messages (the time limit named as the caller named it)."""
    cases: list[tuple[dict[str, Any], str]] = [
        ({"depth": 0}, "depth must be at least 1"),
        ({"nodes": 0}, "nodes must be at least 1"),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=message):
            epdkit.Engine.builtin(**bad)
        with pytest.raises(ValueError, match=message):
            epdkit.Engine._uci("stockfish", (), bad.get("depth"), bad.get("nodes"), None, 1, None)
        with epdkit.Engine.builtin(depth=1) as engine, pytest.raises(ValueError, match=message):
            engine.analyse(epdkit.Position(), **bad)
    for t in (0, -1.0, float("nan")):
        with pytest.raises(ValueError, match="movetime must be positive"):
            epdkit.Engine.builtin(movetime=t)
        with epdkit.Engine.builtin(depth=1) as engine, pytest.raises(ValueError, match="time must be positive"):
            engine.analyse(epdkit.Position(), time=t)


def test_an_engine_without_limits_searches_one_second() -> None:
    with epdkit.Engine.builtin() as engine:
        started = time.monotonic()
        info = engine.analyse(epdkit.Position())
        took = time.monotonic() - started
        assert info.best and 0.9 <= took < 5, took


MATE_IN_2 = "r4kr1/1b2R1n1/pq4p1/4Q3/1p4P1/5P2/PPP4P/1K2R3 w - -"  # Rf7+ Kxf7 Qe7#
WAC_001 = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -"


def _engines(stockfish: str) -> "list[epdkit.Engine]":
    return [epdkit.Engine.builtin(), epdkit.Engine.uci(stockfish, options={"Threads": 1, "Hash": 16})]


def test_mate_finds_a_mate_in_two(stockfish: str) -> None:
    for engine in _engines(stockfish):
        with engine:
            info = engine.analyse(MATE_IN_2, mate=2)
            assert info.score == epdkit.Score.mate_in(2), (engine, info)
            assert info.best == "Rf7+" and info.pv[-1].endswith("#"), (engine, info)
            assert engine.play(MATE_IN_2, mate=2) == "Rf7+"


def test_multipv_gives_distinct_lines_best_first(stockfish: str) -> None:
    for engine in _engines(stockfish):
        with engine:
            infos = engine.analyse(WAC_001, depth=6, multipv=3)
            assert isinstance(infos, list) and len(infos) == 3, (engine, infos)
            assert [i.multipv for i in infos] == [1, 2, 3]
            firsts = [i.best for i in infos]
            assert len(set(firsts)) == 3 and None not in firsts, (engine, firsts)
            scores = [i.score for i in infos]
            assert all(isinstance(s, epdkit.Score) for s in scores), (engine, scores)
            assert scores == sorted(scores, reverse=True), (engine, [str(s) for s in scores])  # type: ignore[type-var]
            assert infos[0].best == "Qg6", (engine, infos[0])
            for i in infos:
                assert i.pv and i.pv[0] == i.best and i.depth and i.depth >= 6 and i.seldepth
                assert i.nodes and i.nps and i.time > 0 and isinstance(i.time, float)
            # The engine is back to one line afterwards.
            single = engine.analyse(WAC_001, depth=4)
            assert isinstance(single, epdkit.AnalysisInfo) and single.multipv == 1
            rec = engine.analyze_record(epdkit.parse(WAC_001))
            assert "pv2" not in rec and rec.pv
            # multipv=1 is a list of one, as in python-chess; fewer lines
            # than asked for where there are fewer moves.
            assert len(engine.analyse(WAC_001, depth=2, multipv=1)) == 1
            two_moves = "7k/8/8/8/8/8/8/K7 w - -"  # Ka2, Kb1, Kb2: three
            assert len(engine.analyse(two_moves, depth=2, multipv=5)) == 3


def test_analyse_of_a_position_without_moves_and_bad_limits() -> None:
    with epdkit.Engine.builtin(depth=2) as engine:
        mated = engine.analyse("3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1")
        assert mated.pv == [] and mated.best is None and mated.score is not None
        assert mated.score.kind == "checkmated"
        for bad in ({"mate": 0}, {"multipv": 0}, {"multipv": 257}):
            with pytest.raises(ValueError):
                engine.analyse(epdkit.Position(), **bad)
        with pytest.raises(TypeError):
            engine.analyse(epdkit.Position(), multipv=2.0)  # type: ignore[call-overload]


_INTERRUPTED = """
import sys, time, epdkit
started = time.monotonic()
try:
    if sys.argv[1] == "target":
        epdkit.target(sys.argv[2], sys.argv[3], engine="builtin", movetime=0.2)
    elif sys.argv[1] == "normalize":
        epdkit.normalize(sys.argv[2], sys.argv[3])
    elif sys.argv[1] == "select":
        epdkit.select(sys.argv[2], sys.argv[3], has="bm")
    elif sys.argv[1] == "mate":
        epdkit.mate(sys.argv[2], sys.argv[3], 7)
    elif sys.argv[1] == "from_pgn":
        epdkit.from_pgn(sys.argv[2], sys.argv[3], id=True)
    else:
        with epdkit.Engine.builtin() as engine:
            engine.analyse(epdkit.Position(), time=60)
except KeyboardInterrupt:
    print("KeyboardInterrupt after %.1f s" % (time.monotonic() - started), flush=True)
    sys.exit(3)
print("finished", flush=True)
"""


def _interrupt(args: "list[str]", after: float) -> "tuple[int, str, float]":
    """Runs _INTERRUPTED with `args`, sends it SIGINT `after` seconds in;
    its exit status, its output, and the seconds from SIGINT to its end."""
    proc = subprocess.Popen(
        [sys.executable, "-c", _INTERRUPTED, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        time.sleep(after)
        assert proc.poll() is None, proc.communicate()
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
        return proc.returncode, out + err, time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()


def test_ctrl_c_ends_a_file_function_at_once_with_whole_records(tmp_path: Path, corpora: Path) -> None:
    """SIGINT two seconds into target(..., movetime=0.2) over WAC's 300
    records: KeyboardInterrupt within a second, and the output holds the
    records finished, each whole (it used to run all 300, a minute)."""
    out = tmp_path / "out.epd"
    code, text, took = _interrupt(["target", str(corpora / "wacnew.epd"), str(out)], 2.0)
    assert code == 3 and "KeyboardInterrupt" in text, text
    assert took < 1.5, f"{took:.2f} s from SIGINT to exit"
    lines = out.read_bytes().split(b"\n")
    assert lines[-1] == b"", "the last record is whole"
    records = [epdkit.parse(line) for line in lines[:-1]]
    assert 1 <= len(records) < 300, len(records)
    for rec in records:
        assert rec.pm and rec.pv and rec.id, str(rec)


def _interrupt_reading_a_pipe(tmp_path: Path, function: str, chunk: bytes) -> "tuple[int, str, float, bytes]":
    """Runs `function` of _INTERRUPTED over a named pipe that a slow
    producer feeds (`chunk` every 20 ms), with SIGINT two seconds in: its
    exit status, output, seconds from SIGINT to its end, and what it
    wrote."""
    fifo = tmp_path / "in"
    os.mkfifo(fifo)
    out = tmp_path / "out.epd"
    stop = threading.Event()

    def produce() -> None:
        try:
            with open(fifo, "wb", buffering=0) as w:
                while not stop.is_set():
                    w.write(chunk)
                    time.sleep(0.02)
        except BrokenPipeError:
            pass

    producer = threading.Thread(target=produce, daemon=True)
    producer.start()
    try:
        code, text, took = _interrupt([function, str(fifo), str(out)], 2.0)
    finally:
        stop.set()
        producer.join(timeout=5)
    return code, text, took, out.read_bytes()


@pytest.mark.parametrize("verb", ["normalize", "select"])
def test_ctrl_c_ends_a_stream_verb_between_records(tmp_path: Path, verb: str) -> None:
    """A verb reading a pipe that a slow producer feeds (a record every
    20 ms): SIGINT two seconds in ends it with KeyboardInterrupt at the
    next record, the records before written whole."""
    record = b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5;\n"
    code, text, took, written = _interrupt_reading_a_pipe(tmp_path, verb, record)
    assert code == 3 and "KeyboardInterrupt" in text, text
    assert took < 1.0, f"{took:.2f} s from SIGINT to exit"
    assert written.endswith(b"\n") and written.count(b"\n") >= 10, written[-200:]
    assert set(written.splitlines()) == {record.rstrip(b"\n")}, "whole records only"


def test_ctrl_c_ends_a_mate_search_at_once(tmp_path: Path) -> None:
    """mate(..., 7) proves a mate in 1, then searches an opening position
    (a mate-in-7 search of it takes seconds): SIGINT a second in ends the
    search with KeyboardInterrupt at once, the proven record written."""
    quick = "6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"quick\";\n"
    slow = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - id \"slow\";\n"
    src, out = tmp_path / "in.epd", tmp_path / "out.epd"
    src.write_text(quick + slow * 3)
    code, text, took = _interrupt(["mate", str(src), str(out)], 1.0)
    assert code == 3 and "KeyboardInterrupt" in text, text
    assert took < 1.0, f"{took:.2f} s from SIGINT to exit"
    assert out.read_text() == '6k1/5ppp/8/8/8/8/8/R5K1 w - - acn 1; acs 0; dm 1; id "quick"; pm Ra8#; pv Ra8#;\n'


def test_ctrl_c_ends_from_pgn_between_games(tmp_path: Path) -> None:
    """from_pgn reading a pipe that a slow producer feeds (a game of four
    plies every 20 ms): SIGINT two seconds in ends it with
    KeyboardInterrupt before the next game, every game before written
    whole."""
    game = b'[Event "e"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n'
    code, text, took, written = _interrupt_reading_a_pipe(tmp_path, "from_pgn", game)
    assert code == 3 and "KeyboardInterrupt" in text, text
    assert took < 1.0, f"{took:.2f} s from SIGINT to exit"
    lines = written.decode().splitlines()
    assert len(lines) >= 5 * 10 and len(lines) % 5 == 0, f"{len(lines)} records: not whole games"
    for i, line in enumerate(lines):
        assert epdkit.parse(line).id.endswith(f"ply {i % 5}"), line


def test_a_named_pipe_is_read_whole(tmp_path: Path) -> None:
    """A named pipe as input is opened once, by the library (checking it
    by opening it first took the writer's records, or hung)."""
    fifo = tmp_path / "in.epd"
    os.mkfifo(fifo)
    record = b"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5;\n"

    def produce() -> None:
        with open(fifo, "wb") as w:
            w.write(record * 5)

    summaries: "list[epdkit.Summary]" = []

    def consume() -> None:
        summaries.append(epdkit.normalize(fifo, tmp_path / "out.epd"))

    threads = [threading.Thread(target=f, daemon=True) for f in (produce, consume)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=10)
    assert summaries and summaries[0].records == 5, "the run ended, with every record"
    assert (tmp_path / "out.epd").read_bytes() == record * 5


def test_ctrl_c_ends_a_long_analyse() -> None:
    code, text, took = _interrupt(["analyse"], 1.0)
    assert code == 3 and "KeyboardInterrupt" in text, text
    assert took < 1.5, f"{took:.2f} s from SIGINT to exit"
