"""PGN games converted to EPD records, as `epd from-pgn`.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import ctypes
import io
import os
from ctypes import byref, c_size_t, c_ulong, c_void_p
from dataclasses import dataclass, field
from typing import Any, Callable, IO, List, Optional, overload, Tuple, Union

from . import _ffi as _c
from .errors import Diagnostic, _check, _os_error, _pgn_code
from ._common import PathLike, _bytes, _input, _path, _take, _with_cancel
from .records import Record, read

__all__ = [
    "PgnSummary",
    "from_pgn",
]


# -------------------------------------------------------------------- PGN


@dataclass
class PgnSummary:
    """Counts of a PGN conversion, and its problems: each a Diagnostic
    with the code `epd from-pgn` prints, P010 for an error that cut a game
    short, P011 for an irregularity that was accepted."""

    games: int
    complete: int
    records: int
    repeated: int
    diagnostics: List[Diagnostic] = field(default_factory=list)


_ULONG_MAX = (1 << (8 * ctypes.sizeof(c_ulong))) - 1


def _pgn_flags(sm: bool, counters: bool, id: bool, c0: bool, unique: bool, final: bool) -> int:
    return (1 if sm else 0) | (2 if counters else 0) | (4 if id else 0) | (8 if c0 else 0) | (
        16 if unique else 0
    ) | (32 if final else 0)


def _convert(flags: int, first: int, last: int, callback: Any, call: Callable[[c_void_p], int]) -> None:
    """Runs `call` with an epd_pgn_config of these settings, so that
    Ctrl-C ends it between two games (see _with_cancel)."""
    cfg = c_void_p()
    _check(_c.pgn_config_new(byref(cfg)))
    try:
        _check(_c.pgn_config_set_flags(cfg, flags))
        _check(_c.pgn_config_set_plies(cfg, first, last))
        _check(_c.pgn_config_set_reporter(cfg, callback, None))
        _with_cancel(lambda _: call(cfg), lambda c: _c.pgn_config_set_cancel(cfg, c))
    finally:
        _c.pgn_config_free(cfg)


@overload
def from_pgn(
    source: Union[PathLike, IO[Any]],
    output: None = None,
    *,
    sm: bool = False,
    counters: bool = False,
    id: bool = False,
    c0: bool = False,
    unique: bool = False,
    plies: Optional[Tuple[int, int]] = None,
    final: bool = False,
) -> Tuple[List[Record], PgnSummary]: ...


@overload
def from_pgn(
    source: Union[PathLike, IO[Any]],
    output: PathLike,
    *,
    sm: bool = False,
    counters: bool = False,
    id: bool = False,
    c0: bool = False,
    unique: bool = False,
    plies: Optional[Tuple[int, int]] = None,
    final: bool = False,
) -> PgnSummary: ...


def from_pgn(
    source: Union[PathLike, IO[Any]],
    output: Optional[PathLike] = None,
    *,
    sm: bool = False,
    counters: bool = False,
    id: bool = False,
    c0: bool = False,
    unique: bool = False,
    plies: Optional[Tuple[int, int]] = None,
    final: bool = False,
) -> Union[PgnSummary, Tuple[List[Record], PgnSummary]]:
    """PGN games to EPD records (`epd from-pgn`): one record for the start
    position and after every mainline move. With `output`, writes the file
    and returns the summary; without, returns (records, summary). `source`
    is a path or a file object. `plies=(a, b)` keeps plies a..b (0 is the
    start position); `final` only the last position of each game."""
    if plies is not None and final:
        raise ValueError("plies and final exclude each other")
    first, last = (0, _ULONG_MAX) if plies is None else plies
    if first < 0 or last < first:
        raise ValueError(f"plies {plies} is empty")
    flags = _pgn_flags(sm, counters, id, c0, unique, final)
    found: List[Diagnostic] = []

    def report(_user: Any, line: int, column: int, error: int, message: bytes) -> int:
        found.append(
            Diagnostic("error" if error else "warning", _pgn_code(bool(error)), int(line), int(column),
                       message.decode("utf-8", "replace"))
        )
        return 0

    callback = _c.PGN_REPORT(report)
    s = _c.PgnSummary()
    if output is not None:
        if not isinstance(source, (str, bytes, os.PathLike)):
            raise TypeError("with output, source must be a path")
        src, dst = _input(source, "source"), _path(output, "output")
        _convert(flags, first, last, callback, lambda cfg: int(_c.pgn_to_epd_files(cfg, src, dst, byref(s))))
        return PgnSummary(s.games, s.complete, s.records, s.repeated, found)
    if isinstance(source, (str, bytes, os.PathLike)):
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as e:
            raise _os_error(e) from None
    elif hasattr(source, "read"):
        data = _bytes(source.read())
    else:
        raise TypeError(f"source must be a path or a file object, not {type(source).__name__}")
    out = c_void_p()
    n = c_size_t()
    _convert(
        flags,
        first,
        last,
        callback,
        lambda cfg: int(_c.pgn_to_epd_memory(cfg, data, len(data), byref(out), byref(n), byref(s))),
    )
    text = _take(out, n.value)
    import io

    records = [r for r in read(io.BytesIO(text)) if isinstance(r, Record)]
    return records, PgnSummary(s.games, s.complete, s.records, s.repeated, found)
