"""epdkit's Engine against python-chess's, on a real engine (issue 45).

The transcript test runs one script of engine calls through
epdkit.Engine and through python-chess's SimpleEngine, each against
Stockfish behind a recording wrapper (a shell script that logs every
line the engine is sent, then execs it), and compares the UCI commands
sent, apart from the differences docs/python.md lists (see _canonical).
The other tests pin what the engine keeps between calls (one game, its
hash, until a new game), what its death raises, and which options and
limits are refused.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from typing import List

import chess
import chess.engine
import pytest

import epdkit

WAC1 = "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"
MATE2 = "r2qkb1r/pp2nppp/3p4/2pNN1B1/2BnP3/3P4/PPP2PPP/R2bK2R w KQkq - 1 10"


def _wrapper(tmp_path: Path, stockfish: str, name: str) -> "tuple[str, Path, Path]":
    """A recording wrapper of `stockfish`: it writes its pid to
    `name`.pid and execs the engine (the same process, so killing that pid
    kills the engine), its standard input fed by tee, which copies every
    line to `name`.log."""
    log = tmp_path / f"{name}.log"
    pid = tmp_path / f"{name}.pid"
    script = tmp_path / f"{name}.sh"
    script.write_text(f'#!/bin/bash\necho $$ > "{pid}"\nexec "{stockfish}" < <(exec tee -a "{log}")\n')
    script.chmod(0o755)
    return str(script), log, pid


def _sent(log: Path) -> List[str]:
    return [line.strip() for line in log.read_text().splitlines() if line.strip()]


# ------------------------------------------------------------ transcript


def _run_epdkit(program: str) -> None:
    with epdkit.Engine.uci(program, options={"Hash": 16, "Threads": 1}) as engine:
        engine.analyse(epdkit.Position(), depth=6)
        engine.analyse(WAC1, nodes=5000)
        engine.analyse(WAC1, time=0.05)
        engine.analyse(WAC1, depth=5, multipv=3)
        engine.analyse(MATE2, mate=2)
        engine.configure({"Hash": 32})
        engine.analyse(WAC1, depth=4)
        game = object()
        engine.analyse(WAC1, depth=4, game=game)
        pos = epdkit.Position()
        for m in ("e4", "e5", "Nf3"):
            pos.push(m)
        engine.analyse(pos, depth=4, game=game)


def _run_python_chess(program: str) -> None:
    with chess.engine.SimpleEngine.popen_uci(program) as engine:
        engine.configure({"Hash": 16, "Threads": 1})
        engine.analyse(chess.Board(), chess.engine.Limit(depth=6))
        engine.analyse(chess.Board(WAC1), chess.engine.Limit(nodes=5000))
        engine.analyse(chess.Board(WAC1), chess.engine.Limit(time=0.05))
        engine.analyse(chess.Board(WAC1), chess.engine.Limit(depth=5), multipv=3)
        engine.analyse(chess.Board(MATE2), chess.engine.Limit(mate=2))
        engine.configure({"Hash": 32})
        engine.analyse(chess.Board(WAC1), chess.engine.Limit(depth=4))
        game = object()
        engine.analyse(chess.Board(WAC1), chess.engine.Limit(depth=4), game=game)
        board = chess.Board()
        for m in ("e4", "e5", "Nf3"):
            board.push_san(m)
        engine.analyse(board, chess.engine.Limit(depth=4), game=game)


def _canonical(commands: List[str]) -> List[str]:
    """The commands with the differences docs/python.md lists taken out:
    a `position` command is written as the FEN of the position it sets
    (epdkit sends the position's FEN, python-chess `startpos` or the
    root's FEN and the moves); the `isready` epdkit sends at the end of
    its handshake is left out (epdkit waits for the options to be taken
    before `Engine.uci` returns); `mate` alone is bounded by a second in
    epdkit (`go movetime 1000 mate N`, where python-chess sends `go mate
    N`, which may never end); at the end epdkit sends `quit` (and kills
    the program if it has not exited 0.2 s later), where python-chess's
    SimpleEngine closes the pipes."""
    out = []
    if commands[-1:] == ["quit"]:
        commands = commands[:-1]
    for i, c in enumerate(commands):
        words = c.split()
        if words[0] == "position":
            if words[1] == "startpos":
                board, rest = chess.Board(), words[2:]
            else:
                board, rest = chess.Board(" ".join(words[2:8])), words[8:]
            if rest[:1] == ["moves"]:
                for m in rest[1:]:
                    board.push_uci(m)
            out.append(f"position fen {board.fen()}")
        elif c == "isready" and i > 0 and out and out[-1] != "ucinewgame":
            continue
        elif words[0] == "go" and words[1:3] == ["movetime", "1000"] and "mate" in words:
            out.append(" ".join(["go", *words[3:]]))
        else:
            out.append(c)
    return out


def test_transcript_equals_python_chess(tmp_path: Path, stockfish: str) -> None:
    """The same engine calls through epdkit and python-chess send the
    same UCI commands to Stockfish, but for the documented differences:
    one `ucinewgame` for the first search and one when the game changes,
    never one per call."""
    ours, our_log, _ = _wrapper(tmp_path, stockfish, "epdkit")
    theirs, their_log, _ = _wrapper(tmp_path, stockfish, "python-chess")
    _run_epdkit(ours)
    _run_python_chess(theirs)
    # tee may log `quit` a moment after the engine has ended on it.
    for _ in range(200):
        if _sent(our_log)[-1:] == ["quit"]:
            break
        time.sleep(0.01)
    a, b = _sent(our_log), _sent(their_log)
    assert a[-1] == "quit" and "quit" not in b
    assert a.count("ucinewgame") == b.count("ucinewgame") == 2, (a, b)
    assert _canonical(a) == _canonical(b), "\n".join(f"{x!r:70} {y!r}" for x, y in zip(_canonical(a), _canonical(b)))


# ------------------------------------------------------- one game, hash kept


def test_searches_are_one_game_until_a_new_game(tmp_path: Path, stockfish: str) -> None:
    """ucinewgame (and isready) go with the first search and with a new
    game only: ten analyse calls and five analyze_record calls send one;
    new_game() and another game= object one more each (it was one per
    call, wiping the hash)."""
    program, log, _ = _wrapper(tmp_path, stockfish, "games")
    with epdkit.Engine.uci(program, nodes=200) as engine:
        for _ in range(10):
            engine.analyse(WAC1, nodes=200)
        for _ in range(5):
            engine.analyze_record(epdkit.parse(WAC1.rsplit(" ", 2)[0]))
        assert _sent(log).count("ucinewgame") == 1
        engine.new_game()
        engine.analyse(WAC1, nodes=200)
        engine.analyse(WAC1, nodes=200)
        assert _sent(log).count("ucinewgame") == 2
        first, second = object(), object()
        engine.analyse(WAC1, nodes=200, game=first)
        engine.analyse(WAC1, nodes=200, game=first)
        engine.analyse(WAC1, nodes=200, game=second)
        assert _sent(log).count("ucinewgame") == 4
    sent = _sent(log)
    assert sent.count("go nodes 200") == 20


def test_the_builtin_engine_keeps_its_hash_between_calls() -> None:
    """The built-in engine's second search of a position in one game finds
    its table filled: fewer nodes to the same depth; after new_game() it
    searches as the first time did."""
    with epdkit.Engine.builtin() as engine:
        first = engine.analyse(WAC1, depth=7)
        again = engine.analyse(WAC1, depth=7)
        engine.new_game()
        fresh = engine.analyse(WAC1, depth=7)
    assert first.nodes is not None and again.nodes is not None and fresh.nodes is not None
    assert again.nodes < first.nodes, (first.nodes, again.nodes)
    assert fresh.nodes == first.nodes, (first.nodes, fresh.nodes)


# ---------------------------------------------------------------- death


def _kill(pid_file: Path) -> None:
    pid = int(pid_file.read_text())
    os.kill(pid, signal.SIGKILL)
    # Until it is gone (its parent, the library, reaps it on the next call).
    for _ in range(200):
        try:
            with open(f"/proc/{pid}/status") as f:
                if "State:\tZ" in f.read():
                    return
        except FileNotFoundError:
            return
        time.sleep(0.01)


def test_an_engine_killed_between_calls_raises_engine_terminated(tmp_path: Path, stockfish: str) -> None:
    """Killed between two calls, the next call raises
    EngineTerminatedError (an EngineError), as python-chess does; the
    call after it starts the engine again, in a new game."""
    program, log, pid = _wrapper(tmp_path, stockfish, "killed")
    with epdkit.Engine.uci(program) as engine:
        assert engine.analyse(WAC1, nodes=100).best
        _kill(pid)
        with pytest.raises(epdkit.EngineTerminatedError) as e:
            engine.analyse(WAC1, nodes=100)
        assert isinstance(e.value, epdkit.EngineError)
        assert engine.analyse(WAC1, nodes=100).best
    assert _sent(log).count("uci") == 2 and _sent(log).count("ucinewgame") == 2


def test_an_engine_killed_mid_search_raises_engine_terminated(tmp_path: Path, stockfish: str) -> None:
    """Killed during a search, that call raises EngineTerminatedError at
    once; the next call starts the engine again: the same behaviour as
    a kill between calls."""
    program, _, pid = _wrapper(tmp_path, stockfish, "mid")
    with epdkit.Engine.uci(program) as engine:
        engine.analyse(WAC1, nodes=100)
        threading.Timer(0.5, _kill, (pid,)).start()
        started = time.monotonic()
        with pytest.raises(epdkit.EngineTerminatedError):
            engine.analyse(epdkit.Position(), time=10)
        assert time.monotonic() - started < 3
        assert engine.analyse(WAC1, nodes=100).best
        rec = epdkit.parse(WAC1.rsplit(" ", 2)[0])
        _kill(pid)
        with pytest.raises(epdkit.EngineTerminatedError):
            engine.analyze_record(rec)
        assert engine.analyze_record(rec).pm


# -------------------------------------------------- refused options, limits


@pytest.mark.parametrize(
    "options", [{"Hash": -5}, {"Hash": "lots"}, {"Threads": 0}, {"Ponder": "maybe"}, {"Hash": 1 << 40}]
)
def test_an_option_value_outside_its_declaration_is_refused(stockfish: str, options: "dict[str, object]") -> None:
    """A value outside the option's declared range or type raises
    EngineError at Engine.uci, as python-chess refuses it (it was sent
    as given, and Stockfish ignored it)."""
    with pytest.raises(epdkit.EngineError, match=f"option {next(iter(options))}"):
        epdkit.Engine.uci(stockfish, options=options)
    with pytest.raises(chess.engine.EngineError):
        with chess.engine.SimpleEngine.popen_uci(stockfish) as peer:
            peer.configure(options)  # type: ignore[arg-type]
    with epdkit.Engine.uci(stockfish) as engine:
        with pytest.raises(epdkit.EngineError):
            engine.configure(options)
        engine.configure({"Hash": 8, "Ponder": True})
        assert engine.analyse(WAC1, nodes=100).best


def test_bad_limits_and_positions_raise_value_and_type_errors() -> None:
    """time=inf is a ValueError and a position of None a TypeError, with
    messages that say so (they were OverflowError and AttributeError)."""
    with epdkit.Engine.builtin(depth=1) as engine:
        for bad in (float("inf"), float("nan"), -1.0, 0):
            with pytest.raises(ValueError, match="time must be"):
                engine.analyse(WAC1, time=bad)
        with pytest.raises(TypeError, match="time must be a number"):
            engine.analyse(WAC1, time="1")  # type: ignore[call-overload]
        with pytest.raises(TypeError, match="position must be a Position"):
            engine.analyse(None)  # type: ignore[call-overload]
        with pytest.raises(TypeError, match="position must be a Position"):
            engine.play(42)  # type: ignore[arg-type]



def test_the_builtin_engine_checks_configured_values_at_once() -> None:
    """configure() on the built-in engine, started or not, refuses a
    value out of its range there, and nothing changes."""
    engine = epdkit.Engine.builtin(depth=2)
    with pytest.raises(epdkit.EngineError, match="PawnValue"):
        engine.configure({"PawnValue": 5})
    engine.configure({"PawnValue": 120})
    assert engine.play("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -") == "Rd8#"
    with pytest.raises(epdkit.EngineError, match="no option"):
        engine.configure({"Nope": 1})
    engine.close()
