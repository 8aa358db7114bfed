"""UCI engines and the built-in one: searches, analysis of records and
the analyze and target verbs.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import contextlib
import os
import shutil
from ctypes import byref, c_char_p, c_long, c_size_t, c_ulong, c_void_p
from dataclasses import dataclass
from typing import (
    Any,
    Callable,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    overload,
    Sequence,
    Tuple,
    Union,
)

from . import _ffi as _c
from .errors import _check
from ._common import (
    PathLike,
    Text,
    _bytes,
    _input,
    _lock_of,
    _path,
    _serialized,
    _take,
    _with_cancel,
)
from .positions import Position, Score, _position_of
from .records import Record, _int64

__all__ = [
    "AnalysisInfo",
    "AnalysisSummary",
    "Engine",
    "analyze",
    "analyze_text",
    "target",
    "target_text",
]


# ---------------------------------------------------------------- engines


def _find_program(name: str) -> str:
    if os.sep in name:
        return name
    found = shutil.which(name) or shutil.which(name, path="/usr/games:/usr/local/games")
    return found or name


def _add_options(ptr: c_void_p, options: Optional[Mapping[str, Any]]) -> None:
    """Gives the new engine `ptr` its UCI options (True and False as UCI's
    true and false); on failure frees it and raises."""
    try:
        for k, v in (options or {}).items():
            value = ("true" if v else "false") if isinstance(v, bool) else str(v)
            _check(_c.engine_add_uci_option(ptr, str(k).encode(), value.encode()))
    except BaseException:
        _c.engine_free(ptr)
        raise


@_serialized
class Engine:
    """An engine for analyze/target: the built-in search or a UCI program.

    >>> with Engine.builtin(depth=4) as e:
    ...     e.play("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -")
    'Rd8#'

    `Engine.uci("stockfish", nodes=100_000, options={"Threads": 1})` is a
    UCI engine, found on PATH or in /usr/games.

    Limits: `depth` (plies), `nodes`, `movetime` (seconds per position;
    the default when no limit is given is 1 s); `jobs` engines run at once
    on the file verbs.
    """

    __slots__ = ("_ptr", "name", "_lock", "_limits", "_game")
    _ptr: Optional[c_void_p]
    name: str
    _limits: Tuple[Optional[int], Optional[int], Optional[float]]
    _game: object

    def __init__(self) -> None:
        raise TypeError("use Engine.builtin(...) or Engine.uci(...)")

    @classmethod
    def _make(cls, ptr: c_void_p, name: str, depth: Optional[int], nodes: Optional[int], movetime: Optional[float],
              jobs: int) -> "Engine":
        self = cls.__new__(cls)
        self._ptr = ptr
        self.name = name
        self._game = None
        try:
            self._set_limits(depth, nodes, movetime, "movetime")
            if jobs < 1:
                raise ValueError("jobs must be at least 1")
            _check(_c.engine_set_jobs(ptr, jobs))
        except BaseException:
            _c.engine_free(ptr)
            self._ptr = None
            raise
        self._limits = (depth, nodes, movetime)
        return self

    @classmethod
    def builtin(
        cls,
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime: Optional[float] = None,
        jobs: int = 1,
        hash_mb: int = 16,
        options: Optional[Mapping[str, Any]] = None,
    ) -> "Engine":
        """EPD Kit's own alpha-beta search. `options` are those `epd uci`
        declares (Hash, Threads, MultiPV, PawnValue, KnightValue,
        BishopValue, RookValue, QueenValue, MobilityWeight,
        FutilityMargin); one it does not declare, or a value out of its
        range, raises EngineError here."""
        ptr = c_void_p()
        _check(_c.engine_new_builtin(hash_mb, byref(ptr)))
        _add_options(ptr, options)
        engine = cls._make(ptr, "builtin", depth, nodes, movetime, jobs)
        if options:
            engine._interruptibly(lambda: _c.engine_start(engine._ptr))
        return engine

    @classmethod
    def uci(
        cls,
        program: str,
        *args: str,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime: Optional[float] = None,
        jobs: int = 1,
        options: Optional[Mapping[str, Any]] = None,
    ) -> "Engine":
        """A UCI engine: a path, or a name looked up on PATH and in
        /usr/games; `options` are sent as setoption after the handshake.

        The program is started here and kept for `analyze_record` (one
        process for every record, its hash kept) until `close()`, the end
        of a `with` block, or the engine's end: a program that cannot be
        started, that does not declare an option given, or that declares
        it with a type or range the value is outside of (a spin's min and
        max, a check's true and false, a combo's vars) raises EngineError
        here, as python-chess does. Ctrl-C ends a handshake the program
        never answers at once (the program killed). The file verbs start
        instances of their own."""
        engine = cls._uci(program, args, depth, nodes, movetime, jobs, options)
        engine._interruptibly(lambda: _c.engine_start(engine._ptr))
        return engine

    @classmethod
    def _uci(
        cls,
        program: str,
        args: Sequence[str],
        depth: Optional[int],
        nodes: Optional[int],
        movetime: Optional[float],
        jobs: int,
        options: Optional[Mapping[str, Any]],
    ) -> "Engine":
        """Engine.uci without starting the program (for the file verbs,
        which start instances of their own)."""
        path = _find_program(program)
        argv = (c_char_p * max(1, len(args)))(*[a.encode() for a in args])
        ptr = c_void_p()
        _check(_c.engine_new_uci(path.encode(), argv, len(args), byref(ptr)))
        _add_options(ptr, options)
        return cls._make(ptr, program, depth, nodes, movetime, jobs)

    def _set_limits(
        self, depth: Optional[int], nodes: Optional[int], movetime: Optional[float], time_name: str = "time"
    ) -> None:
        """Checks the limits (_check_limits) and gives them to the library
        (None: no such limit)."""
        _check_limits(depth, nodes, movetime, time_name=time_name)
        _check(_c.engine_set_depth(self._ptr, depth or 0))
        _check(_c.engine_set_node_limit(self._ptr, _int64("nodes", nodes if nodes is not None else -1)))
        _check(_c.engine_set_time_limit(self._ptr, max(1, int(round(movetime * 1000))) if movetime else 0))

    def configure(self, options: Mapping[str, Any]) -> None:
        """Sets options from now on, as python-chess's `configure`: a
        running UCI program is sent `setoption` at once (only for a value
        it does not have already), the built-in engine is made again with
        them; the values hold for later starts too. An option the program
        does not declare, or a value outside its declared type or range,
        raises EngineError (the options before it are set)."""
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a mapping, not {type(options).__name__}")
        for k, v in options.items():
            value = ("true" if v else "false") if isinstance(v, bool) else str(v)
            _check(_c.engine_set_uci_option(self._ptr, str(k).encode(), value.encode()))

    def new_game(self) -> None:
        """Starts a new game: the next search (analyse, play,
        analyze_record) sends the program `ucinewgame` and `isready` first
        (the built-in engine clears its hash). Searches between two new
        games are one game, the engine's hash kept, as in python-chess;
        the first search after the program starts is a new game without
        this call. `game=` of analyse does the same when the object
        changes."""
        _check(_c.engine_new_game(self._ptr))

    def _enter_game(self, game: object) -> None:
        """python-chess's `game=`: a search with another game object than
        the last one's starts a new game (None is a game object too, the
        default: searches that never name one are one game)."""
        if game is not self._game and game != self._game:
            _check(_c.engine_new_game(self._ptr))
        self._game = game

    def _interruptibly(self, call: Callable[[], int]) -> None:
        """Runs `call`, a library call on this engine, so that Ctrl-C ends
        it (see _interruptible): with a cancel flag of its own, watched by
        the engine for this call only."""
        _with_cancel(lambda _: call(), lambda c: _c.engine_set_cancel(self._ptr, c))

    @contextlib.contextmanager
    def _per_call(self, counters: bool = False, solution_time: bool = False) -> Iterator[None]:
        """Sets the counters and solution-time flags for one call and puts
        them back as the engine keeps them (off) after it, whatever
        happens, so that a later analyze_record writes what it always does."""
        with _lock_of(self):
            try:
                _check(_c.engine_set_counters(self._ptr, 1 if counters else 0))
                _check(_c.engine_set_solution_time(self._ptr, 1 if solution_time else 0))
                yield
            finally:
                _c.engine_set_counters(self._ptr, 0)
                _c.engine_set_solution_time(self._ptr, 0)

    @overload
    def analyse(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = ...,
        nodes: Optional[int] = ...,
        time: Optional[float] = ...,
        mate: Optional[int] = ...,
        multipv: None = ...,
        game: object = ...,
    ) -> "AnalysisInfo": ...

    @overload
    def analyse(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = ...,
        nodes: Optional[int] = ...,
        time: Optional[float] = ...,
        mate: Optional[int] = ...,
        multipv: int,
        game: object = ...,
    ) -> List["AnalysisInfo"]: ...

    def analyse(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
        mate: Optional[int] = None,
        multipv: Optional[int] = None,
        game: object = None,
    ) -> Union["AnalysisInfo", List["AnalysisInfo"]]:
        """Analyses `position` (a Position, or FEN or EPD text), as
        python-chess's `engine.analyse(board, Limit(...), multipv=...)`.

        Limits: `depth` (plies), `nodes`, `time` (seconds), `mate` (stop
        at a mate in at most this many moves); when none is given, the
        engine's own (1 s when it has none). `mate` alone bounds nothing:
        where there is no such mate the search takes the other limits, 1 s
        without. They hold for this call only: nothing of the engine
        changes. The engine's program is the one kept for analyze_record.

        `game` is python-chess's: searches with the same game object (None
        by default) are one game, the engine's hash kept from one to the
        next; another object starts a new game (`ucinewgame`), as
        new_game() does.

        Returns an AnalysisInfo (score as Score, pv in SAN, best move,
        depth, seldepth, nodes, nps, time, multipv); with `multipv` (1 to
        256 lines) a list of them, best first, each line starting with
        another move (fewer when the position has fewer legal moves).
        """
        _check_limits(depth, nodes, time, mate=mate, multipv=multipv)
        if not isinstance(position, (Position, str, bytes)):
            raise TypeError(f"position must be a Position, or FEN or EPD text, not {type(position).__name__}")
        pos = position if isinstance(position, Position) else _position_of(position)
        if depth is None and nodes is None and time is None and mate is None:
            depth, nodes, time = self._limits
        limits = c_void_p()
        _check(_c.limits_new(byref(limits)))
        analysis = c_void_p()
        try:
            _check(_c.limits_set_depth(limits, depth or 0))
            _check(_c.limits_set_nodes(limits, _int64("nodes", nodes if nodes is not None else -1)))
            _check(_c.limits_set_time(limits, max(1, int(round(time * 1000))) if time else 0))
            _check(_c.limits_set_mate(limits, mate or 0))
            _check(_c.limits_set_lines(limits, multipv or 1))
            self._enter_game(game)
            with _lock_of(pos):
                self._interruptibly(lambda: _c.engine_analyze_position(self._ptr, pos._ptr, limits, byref(analysis)))
                start = pos.copy()
            infos = _infos(analysis, start)
        finally:
            _c.limits_free(limits)
            _c.analysis_free(analysis)
        return infos if multipv is not None else infos[0]

    def play(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
        mate: Optional[int] = None,
        game: object = None,
    ) -> Optional[str]:
        """The move the engine plays in `position` (SAN), with these limits
        and `game` (as analyse); None in a position without a legal move."""
        return self.analyse(position, depth=depth, nodes=nodes, time=time, mate=mate, game=game).best

    def close(self) -> None:
        """Stops the engine's program (a UCI engine is sent quit); a later
        `analyze_record` starts it again. Closing twice does nothing."""
        if self._ptr:
            _check(_c.engine_stop(self._ptr))

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            _c.engine_free(ptr)
            self._ptr = None

    def __repr__(self) -> str:
        return f"<epdkit.Engine {self.name}>"

    def analyze_record(self, record: Record, *, game: object = None) -> Record:
        """Analyses one record in place (pv, pm, ce; acd/acn/acs with
        counters) and returns it. `game` as for analyse: records analysed
        one after another are one game, the engine's hash kept."""
        if not isinstance(record, Record):
            raise TypeError(f"analyze_record takes a Record, not {type(record).__name__}")
        self._enter_game(game)
        with _lock_of(record):
            handle = record._p  # here: the worker thread must take no lock the caller holds
            self._interruptibly(lambda: _c.engine_analyze_record(self._ptr, handle))
        return record


@dataclass
class AnalysisInfo:
    """One line of what Engine.analyse found, with python-chess's names:
    the score from the side to move's view (None if the engine gave no
    exact one), the principal variation in SAN and its first move (an
    empty pv and None in a position without a legal move), the depth and
    selective depth in plies, the nodes and nodes per second (None when
    the engine did not say), the time in seconds, and the line's number
    (1 for the best line; the counters are the search's, shared by its
    lines)."""

    score: Optional[Score]
    pv: List[str]
    best: Optional[str]
    depth: Optional[int]
    seldepth: Optional[int]
    nodes: Optional[int]
    nps: Optional[int]
    time: float
    multipv: int = 1

    @property
    def seconds(self) -> int:
        """The whole seconds of `time` (as acs writes them)."""
        return int(self.time)


def _check_limits(
    depth: Optional[int],
    nodes: Optional[int],
    time: Optional[float],
    *,
    mate: Optional[int] = None,
    multipv: Optional[int] = None,
    time_name: str = "time",
) -> None:
    """The one place search limits are checked (Engine.builtin, Engine.uci,
    analyse and play); the time limit named as the caller names it."""
    for name, v in (("depth", depth), ("nodes", nodes), ("mate", mate), ("multipv", multipv)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            raise TypeError(f"{name} must be an int, not {type(v).__name__}")
        if v is not None and v < 1:
            raise ValueError(f"{name} must be at least 1")
    if depth is not None and depth > 0xFFFFFFFF:
        raise ValueError("depth is too large")
    if mate is not None and mate > 0xFFFFFFFF:
        raise ValueError("mate is too large")
    if multipv is not None and multipv > _c.MAX_LINES:
        raise ValueError(f"multipv must be at most {_c.MAX_LINES}")
    if time is not None and (not isinstance(time, (int, float)) or isinstance(time, bool)):
        raise TypeError(f"{time_name} must be a number of seconds, not {type(time).__name__}")
    if time is not None and not time > 0:
        raise ValueError(f"{time_name} must be positive")
    if time is not None and not time * 1000 < 2**32:
        # Also inf: the library takes whole milliseconds in 32 bits.
        raise ValueError(f"{time_name} must be finite and below {2**32 // 1000} s, not {time!r}")


def _infos(analysis: c_void_p, start: Position) -> List[AnalysisInfo]:
    """The lines of an epd_analysis, their moves in SAN from `start`."""
    depth, seldepth, nodes, ms = c_long(), c_long(), _c.Int64(), c_ulong()
    _check(_c.analysis_counters(analysis, byref(depth), byref(seldepth), byref(nodes), byref(ms)))
    n_nodes = (int(nodes.hi) << 32) | int(nodes.lo)
    seconds = int(ms.value) / 1000
    count = c_size_t()
    _check(_c.analysis_line_count(analysis, byref(count)))
    infos = []
    for k in range(count.value):
        s = _c.Score()
        scored = _c.analysis_line_score(analysis, k, byref(s))
        if scored not in (_c.OK, _c.NOT_FOUND):
            _check(scored)
        n = c_size_t()
        status = _c.analysis_line_moves(analysis, k, None, 0, byref(n))
        if status not in (_c.OK, _c.BUFFER_TOO_SMALL):
            _check(status)
        moves = (_c.Move * max(1, n.value))()
        _check(_c.analysis_line_moves(analysis, k, moves, n.value, byref(n)))
        pos = start.copy()
        pv = []
        for i in range(n.value):
            pv.append(pos._san_of(moves[i]))
            _check(_c.position_play(pos._ptr, moves[i]))
        infos.append(
            AnalysisInfo(
                score=Score(s.kind, s.value) if scored == _c.OK else None,
                pv=pv,
                best=pv[0] if pv else None,
                depth=None if depth.value < 0 else int(depth.value),
                seldepth=None if seldepth.value < 0 else int(seldepth.value),
                nodes=None if n_nodes < 0 else n_nodes,
                nps=None if n_nodes < 0 or ms.value == 0 else int(n_nodes * 1000 // ms.value),
                time=seconds,
                multipv=k + 1,
            )
        )
    return infos


@dataclass
class AnalysisSummary:
    """Counts of analyze/target."""

    lines: int
    records: int
    invalid: int
    analyzed: int
    faults: int
    solved: int
    missed: int
    unscored: int


def _engine_of(engine: Union[Engine, str, None], **limits: Any) -> Engine:
    if isinstance(engine, Engine):
        if any(v is not None for v in limits.values()):
            raise ValueError("give the limits to Engine.builtin/Engine.uci, or an engine name here")
        return engine
    lim = {k: v for k, v in limits.items() if v is not None}
    if engine is None or engine == "builtin":
        return Engine.builtin(**lim)
    if isinstance(engine, str):
        # The verb starts its own instances: none is kept here.
        return Engine._uci(engine, (), lim.get("depth"), lim.get("nodes"), lim.get("movetime"), lim.get("jobs", 1), None)
    raise TypeError(f"engine must be an Engine or a name, not {type(engine).__name__}")


def _analysis(
    goal: int,
    input: PathLike,
    output: PathLike,
    engine: Union[Engine, str, None],
    counters: bool,
    solution_time: bool,
    limits: Dict[str, Any],
) -> AnalysisSummary:
    e = _engine_of(engine, **limits)
    s = _c.AnalysisSummary()
    source, target = _input(input), _path(output, "output")
    with e._per_call(counters, solution_time):
        e._interruptibly(lambda: _c.engine_run_files(e._ptr, goal, source, target, byref(s)))
    return AnalysisSummary(*(int(getattr(s, f[0])) for f in _c.AnalysisSummary._fields_))


def _analysis_text(
    goal: int, text: Text, engine: Union[Engine, str, None], counters: bool, solution_time: bool, limits: Dict[str, Any]
) -> Tuple[str, AnalysisSummary]:
    e = _engine_of(engine, **limits)
    data = _bytes(text)
    out = c_void_p()
    n = c_size_t()
    s = _c.AnalysisSummary()
    with e._per_call(counters, solution_time):
        e._interruptibly(lambda: _c.engine_run_memory(e._ptr, goal, data, len(data), byref(out), byref(n), byref(s)))
    summary = AnalysisSummary(*(int(getattr(s, f[0])) for f in _c.AnalysisSummary._fields_))
    return _take(out, n.value).decode("utf-8", "replace"), summary


def analyze(
    input: PathLike,
    output: PathLike,
    *,
    engine: Union[Engine, str, None] = None,
    depth: Optional[int] = None,
    nodes: Optional[int] = None,
    movetime: Optional[float] = None,
    jobs: Optional[int] = None,
    counters: bool = False,
    solution_time: bool = False,
) -> AnalysisSummary:
    """pfga (`epd analyze`): every valid record of `input` is searched and
    written to `output` with pv, pm and ce (acd, acn, acs with `counters`;
    Solve_ms/Solve_acn/Solve_acd with `solution_time`). `engine` is an
    Engine, "builtin" (the default) or a UCI engine's name or path."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime, "jobs": jobs}
    return _analysis(0, input, output, engine, counters, solution_time, lim)


def target(
    input: PathLike,
    output: PathLike,
    *,
    engine: Union[Engine, str, None] = None,
    depth: Optional[int] = None,
    nodes: Optional[int] = None,
    movetime: Optional[float] = None,
    jobs: Optional[int] = None,
    counters: bool = False,
    solution_time: bool = False,
) -> AnalysisSummary:
    """pfts (`epd target`): as analyze, and the move found is judged
    against each record's bm and am (solved/missed in the summary)."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime, "jobs": jobs}
    return _analysis(1, input, output, engine, counters, solution_time, lim)


def analyze_text(
    text: Text, *, engine: Union[Engine, str, None] = None, depth: Optional[int] = None, nodes: Optional[int] = None,
    movetime: Optional[float] = None, counters: bool = False, solution_time: bool = False
) -> Tuple[str, AnalysisSummary]:
    """analyze over a text in memory: (output, summary)."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime}
    return _analysis_text(0, text, engine, counters, solution_time, lim)


def target_text(
    text: Text, *, engine: Union[Engine, str, None] = None, depth: Optional[int] = None, nodes: Optional[int] = None,
    movetime: Optional[float] = None, counters: bool = False, solution_time: bool = False
) -> Tuple[str, AnalysisSummary]:
    """target over a text in memory: (output, summary)."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime}
    return _analysis_text(1, text, engine, counters, solution_time, lim)
