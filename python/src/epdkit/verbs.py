"""The file verbs of `epd` (check, normalize, repair, purge, select,
mate) and the report, on files and on text.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import json
import os
from ctypes import byref, c_size_t, c_void_p
from dataclasses import dataclass, field
from typing import Any, Callable, cast, Dict, Iterable, List, Optional, Sequence, Tuple, Union

from . import _ffi as _c
from .errors import Diagnostic, _check
from ._common import PathLike, Text, _bytes, _input, _path, _run_config, _take, _with_cancel
from .records import _mode, _opcode_list

__all__ = [
    "MateSummary",
    "SelectSummary",
    "Summary",
    "check",
    "check_text",
    "mate",
    "mate_text",
    "normalize",
    "normalize_text",
    "purge",
    "purge_text",
    "repair",
    "repair_text",
    "report",
    "select",
    "select_text",
]


# ------------------------------------------------------------------ verbs


@dataclass
class Summary:
    """Counts of a stream verb, and its diagnostics (the first
    `max_diagnostics`; `diagnostics_dropped` counts the rest)."""

    lines: int
    records: int
    invalid: int
    changed: int
    warnings: int
    errors: int
    diagnostics: List[Diagnostic] = field(default_factory=list)
    diagnostics_dropped: int = 0


_VERBS = {"check": 0, "normalize": 1, "purge": 2, "repair": 3}


class _Collector:
    def __init__(self, limit: int) -> None:
        self.found: List[Diagnostic] = []
        self.limit = limit
        self.dropped = 0
        self.error: Optional[BaseException] = None

        def report(_user: Any, diag: Any, _line: Any, _len: Any) -> int:
            try:
                if len(self.found) < self.limit:
                    self.found.append(Diagnostic._from_c(diag.contents))
                else:
                    self.dropped += 1
                return 0
            except BaseException as e:  # stop the run; re-raised after it
                self.error = e
                return 1

        self.callback = _c.REPORT(report)


def _verb_config(verb: str, mode: str, drop_invalid: bool, opcodes: Iterable[str], collector: _Collector) -> c_void_p:
    cfg = c_void_p()
    _check(_c.verb_config_new(_VERBS[verb], byref(cfg)))
    try:
        _check(_c.verb_config_set_mode(cfg, _mode(mode)))
        _check(_c.verb_config_set_drop_invalid(cfg, 1 if drop_invalid else 0))
        for opcode in opcodes:
            _check(_c.verb_config_add_purge_opcode(cfg, opcode.encode()))
        _check(_c.verb_config_set_reporter(cfg, collector.callback, None))
    except BaseException:
        _c.verb_config_free(cfg)
        raise
    return cfg


def _summary(s: _c.VerbSummary, c: _Collector) -> Summary:
    return Summary(s.lines, s.records, s.invalid, s.changed, s.warnings, s.errors, c.found, c.dropped)


def _run_files(
    verb: str,
    input: PathLike,
    output: Optional[PathLike],
    mode: str,
    drop_invalid: bool,
    opcodes: Iterable[str] = (),
    max_diagnostics: int = 1000,
) -> Summary:
    c = _Collector(max_diagnostics)
    cfg = _verb_config(verb, mode, drop_invalid, opcodes, c)
    try:
        s = _c.VerbSummary()
        paths = (_input(input), None if output is None else _path(output, "output"))
        _run_config(_c.verb_config_set_cancel, cfg, lambda: int(_c.verb_run_files(cfg, *paths, byref(s))), c)
    finally:
        _c.verb_config_free(cfg)
    return _summary(s, c)


def _run_text(
    verb: str, text: Text, mode: str, drop_invalid: bool, opcodes: Iterable[str] = (), max_diagnostics: int = 1000
) -> Tuple[str, Summary]:
    data = _bytes(text)
    c = _Collector(max_diagnostics)
    cfg = _verb_config(verb, mode, drop_invalid, opcodes, c)
    out = c_void_p()
    n = c_size_t()
    s = _c.VerbSummary()
    try:
        # Ctrl-C ends the run between two records (see _run_config).
        run = lambda: int(_c.verb_run_memory(cfg, data, len(data), byref(out), byref(n), byref(s)))  # noqa: E731
        _run_config(_c.verb_config_set_cancel, cfg, run, c)
    finally:
        _c.verb_config_free(cfg)
    return _take(out, n.value).decode("utf-8", "replace"), _summary(s, c)


def check(input: PathLike, *, mode: str = "strict", max_diagnostics: int = 1000) -> Summary:
    """Validates every record of the file at `input` (`epd check`)."""
    return _run_files("check", input, None, mode, False, (), max_diagnostics)


def normalize(
    input: PathLike, output: PathLike, *, mode: str = "strict", drop_invalid: bool = False, max_diagnostics: int = 1000
) -> Summary:
    """pfdn (`epd normalize`): writes the canonical form of each valid
    record of `input` to `output`; invalid records are copied through
    unchanged unless `drop_invalid`."""
    return _run_files("normalize", input, output, mode, drop_invalid, (), max_diagnostics)


def repair(input: PathLike, output: PathLike, *, drop_invalid: bool = False, max_diagnostics: int = 1000) -> Summary:
    """pfdr (`epd repair`): reads leniently and writes canonical records."""
    return _run_files("repair", input, output, "lenient", drop_invalid, (), max_diagnostics)


def purge(
    input: PathLike, output: PathLike, opcodes: Iterable[str], *, mode: str = "strict", max_diagnostics: int = 1000
) -> Summary:
    """pfop (`epd purge`): removes the operations with these opcodes,
    leaving the rest of each line as written."""
    return _run_files("purge", input, output, mode, False, _opcode_list(opcodes), max_diagnostics)


def check_text(text: Text, *, mode: str = "strict") -> Summary:
    """check over a text in memory."""
    return _run_text("check", text, mode, False)[1]


def normalize_text(text: Text, *, mode: str = "strict", drop_invalid: bool = False) -> Tuple[str, Summary]:
    """normalize over a text in memory: (output, summary)."""
    return _run_text("normalize", text, mode, drop_invalid)


def repair_text(text: Text, *, drop_invalid: bool = False) -> Tuple[str, Summary]:
    """repair over a text in memory: (output, summary)."""
    return _run_text("repair", text, "lenient", drop_invalid)


def purge_text(text: Text, opcodes: Iterable[str], *, mode: str = "strict") -> Tuple[str, Summary]:
    """purge over a text in memory: (output, summary)."""
    return _run_text("purge", text, mode, False, _opcode_list(opcodes))


# ----------------------------------------------------------------- select


@dataclass
class SelectSummary:
    """Counts of select, and its diagnostics (the first `max_diagnostics`;
    `diagnostics_dropped` counts the rest)."""

    lines: int
    records: int
    invalid: int
    selected: int
    warnings: int
    errors: int
    diagnostics: List[Diagnostic] = field(default_factory=list)
    diagnostics_dropped: int = 0


Filters = Union[str, Iterable[str], None]
"""One filter (str) or several of one kind (an iterable of str)."""

LineSpec = Union[str, int, range]
"""Input lines: "A..B", "A..", "..B" or "N" (1-based, inclusive), a line
number, or a range of line numbers (`range(10, 21)` is lines 10 to 20)."""


def _filters(value: Filters, what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    # Iterable, but of ints: refused (the typing says so; a caller may not).
    if isinstance(cast(object, value), bytes):
        raise TypeError(f"{what} must be str or an iterable of str, not bytes")
    out = list(value)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"{what} must be str or an iterable of str, not {type(v).__name__}")
    return out


def _line_spec(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, bool):
        raise TypeError("lines must be str, int or range, not bool")
    if isinstance(spec, int):
        return str(spec)
    if isinstance(spec, range):
        if spec.step != 1 or len(spec) == 0:
            raise ValueError(f"lines {spec!r} is not a non-empty range with step 1")
        return f"{spec.start}..{spec.stop - 1}"
    raise TypeError(f"lines must be str, int or range, not {type(spec).__name__}")


def _line_specs(lines: Union[LineSpec, Iterable[LineSpec], None]) -> List[str]:
    if lines is None:
        return []
    if isinstance(lines, (str, int, range)):
        return [_line_spec(lines)]
    return [_line_spec(x) for x in lines]


def _select_config(
    mode: str,
    id: Filters,
    regex: bool,
    lines: Union[LineSpec, Iterable[LineSpec], None],
    has: Filters,
    lacks: Filters,
    where: Filters,
    invert: bool,
    collector: _Collector,
) -> c_void_p:
    cfg = c_void_p()
    _check(_c.select_config_new(byref(cfg)))
    try:
        _check(_c.select_config_set_mode(cfg, _mode(mode)))
        _check(_c.select_config_set_regex(cfg, 1 if regex else 0))
        for pattern in _filters(id, "id"):
            _check(_c.select_config_add_id(cfg, pattern.encode()))
        for spec in _line_specs(lines):
            _check(_c.select_config_add_lines(cfg, spec.encode()))
        for opcode in _filters(has, "has"):
            _check(_c.select_config_add_has(cfg, opcode.encode()))
        for opcode in _filters(lacks, "lacks"):
            _check(_c.select_config_add_lacks(cfg, opcode.encode()))
        for condition in _filters(where, "where"):
            _check(_c.select_config_add_where(cfg, condition.encode()))
        _check(_c.select_config_set_invert(cfg, 1 if invert else 0))
        _check(_c.select_config_set_reporter(cfg, collector.callback, None))
    except BaseException:
        _c.select_config_free(cfg)
        raise
    return cfg


def _select_summary(s: _c.SelectSummary, c: _Collector) -> SelectSummary:
    return SelectSummary(s.lines, s.records, s.invalid, s.selected, s.warnings, s.errors, c.found, c.dropped)


def select(
    input: PathLike,
    output: PathLike,
    *,
    id: Filters = None,
    regex: bool = False,
    lines: Union[LineSpec, Iterable[LineSpec], None] = None,
    has: Filters = None,
    lacks: Filters = None,
    where: Filters = None,
    invert: bool = False,
    mode: str = "strict",
    max_diagnostics: int = 1000,
) -> SelectSummary:
    """`epd select`: writes to `output` the valid records of `input` that
    match, byte for byte as they were read (blank lines and invalid
    records are left out; their diagnostics are in the summary).

    Each filter is one str or an iterable of them (`lines` also takes
    ints and ranges); filters of different kinds must all hold, and a
    kind holds when any of its filters does:

    - `id`: globs ("WAC.0*": `*` any text, `?` one character) matched
      against the whole id, or with `regex=True` regular expressions
      found anywhere in it; records without id never match;
    - `lines`: input lines, "A..B", "A..", "..B", "N", an int or a range;
    - `has`, `lacks`: opcodes the record has, or lacks;
    - `where`: "OPCODE=VALUE", "OPCODE!=VALUE" (moves compared as moves:
      "bm=Nf3" finds bm Ng1f3) or "<", "<=", ">", ">=" against an integer
      ("ce>100", "dm<=3"); a record without the opcode never matches.

    `invert=True` keeps the valid records that do not match. A filter
    that does not read raises EpdValueError (with `column` for a `where`
    condition or a line range)::

        s = epdkit.select("wacnew.epd", "out.epd", id="WAC.0*", where=["bm=Qg6", "bm=Rxb2"])
        print(s.selected, "of", s.records)
    """
    c = _Collector(max_diagnostics)
    cfg = _select_config(mode, id, regex, lines, has, lacks, where, invert, c)
    try:
        s = _c.SelectSummary()
        paths = (_input(input), _path(output, "output"))
        _run_config(_c.select_config_set_cancel, cfg, lambda: int(_c.select_run_files(cfg, *paths, byref(s))), c)
    finally:
        _c.select_config_free(cfg)
    return _select_summary(s, c)


def select_text(
    text: Text,
    *,
    id: Filters = None,
    regex: bool = False,
    lines: Union[LineSpec, Iterable[LineSpec], None] = None,
    has: Filters = None,
    lacks: Filters = None,
    where: Filters = None,
    invert: bool = False,
    mode: str = "strict",
    max_diagnostics: int = 1000,
) -> Tuple[str, SelectSummary]:
    """select over a text in memory: (the records selected, summary)."""
    data = _bytes(text)
    c = _Collector(max_diagnostics)
    cfg = _select_config(mode, id, regex, lines, has, lacks, where, invert, c)
    out = c_void_p()
    n = c_size_t()
    s = _c.SelectSummary()
    try:
        # Ctrl-C ends the run between two records (see _run_config).
        run = lambda: int(_c.select_run_memory(cfg, data, len(data), byref(out), byref(n), byref(s)))  # noqa: E731
        _run_config(_c.select_config_set_cancel, cfg, run, c)
    finally:
        _c.select_config_free(cfg)
    return _take(out, n.value).decode("utf-8", "replace"), _select_summary(s, c)


@dataclass
class MateSummary:
    """Counts of mate."""

    lines: int
    records: int
    invalid: int
    searched: int
    skipped: int
    solved: int
    nodes: int


def _mate_args(moves: int, jobs: int) -> None:
    if not isinstance(moves, int) or not 1 <= moves <= 60:
        raise ValueError("moves must be 1 to 60")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")


def _mate_config(moves: int, single_pass: bool, jobs: int) -> c_void_p:
    """A new epd_mate_config (free it with mate_config_free)."""
    _mate_args(moves, jobs)
    cfg = c_void_p()
    _check(_c.mate_config_new(moves, byref(cfg)))
    try:
        _check(_c.mate_config_set_single_pass(cfg, 1 if single_pass else 0))
        _check(_c.mate_config_set_jobs(cfg, jobs))
    except BaseException:
        _c.mate_config_free(cfg)
        raise
    return cfg


def _run_mate(cfg: c_void_p, call: Callable[[], int]) -> None:
    """Runs `call`, a run of the mate configuration `cfg`, so that Ctrl-C
    ends it (see _with_cancel), then frees `cfg`."""
    try:
        _with_cancel(lambda _: call(), lambda c: _c.mate_config_set_cancel(cfg, c))
    finally:
        _c.mate_config_free(cfg)


def mate(input: PathLike, output: PathLike, moves: int, *, single_pass: bool = False, jobs: int = 1) -> MateSummary:
    """pfms (`epd mate -n MOVES`): every record whose side to move forces
    mate within `moves` gets dm (the shortest mate), pm and pv."""
    s = _c.MateSummary()
    src, dst = _input(input), _path(output, "output")
    cfg = _mate_config(moves, single_pass, jobs)
    _run_mate(cfg, lambda: int(_c.mate_run_files(cfg, src, dst, byref(s))))
    return MateSummary(*(int(getattr(s, f[0])) for f in _c.MateSummary._fields_))


def mate_text(text: Text, moves: int, *, single_pass: bool = False, jobs: int = 1) -> Tuple[str, MateSummary]:
    """mate over a text in memory: (output, summary)."""
    data = _bytes(text)
    out = c_void_p()
    n = c_size_t()
    s = _c.MateSummary()
    cfg = _mate_config(moves, single_pass, jobs)
    _run_mate(cfg, lambda: int(_c.mate_run_memory(cfg, data, len(data), byref(out), byref(n), byref(s))))
    return _take(out, n.value).decode("utf-8", "replace"), MateSummary(
        *(int(getattr(s, f[0])) for f in _c.MateSummary._fields_)
    )


# ----------------------------------------------------------------- report


def report(
    runs: Union[PathLike, Sequence[PathLike]],
    *,
    labels: Optional[Sequence[str]] = None,
    key: Optional[PathLike] = None,
    group_by: str = "id",
    group: Optional[str] = None,
    strict: bool = False,
    time_scores: bool = False,
) -> Dict[str, Any]:
    """The Gastric report over result files (`epd report --format json`) as
    a dict: per run its label, records, solved with the Wilson interval,
    missed ids, themes, mates, points, distributions and issues; each pair
    of runs compared (McNemar's exact test); the objective for tuners.

    `group_by` is "id", "file" or "opcode"; `group` a regular expression
    over the ids (its first capture group names the theme)."""
    paths = [runs] if isinstance(runs, (str, bytes, os.PathLike)) else list(runs)
    if not paths:
        raise ValueError("report needs at least one run")
    if labels is not None and len(labels) > len(paths):
        raise ValueError(f"{len(labels)} labels for {len(paths)} runs")
    kinds = {"id": 0, "file": 1, "opcode": 2}
    if group_by not in kinds:
        raise ValueError(f'group_by must be "id", "file" or "opcode", not {group_by!r}')
    cfg = c_void_p()
    _check(_c.report_config_new(byref(cfg)))
    try:
        for i, p in enumerate(paths):
            label = labels[i].encode() if labels is not None and i < len(labels) else None
            _check(_c.report_config_add_run(cfg, _input(p, "run"), label))
        if key is not None:
            _check(_c.report_config_set_key(cfg, _path(key, "key")))
        _check(_c.report_config_set_group_by(cfg, kinds[group_by]))
        if group is not None:
            _check(_c.report_config_set_group_regex(cfg, group.encode()))
        _check(_c.report_config_set_strict(cfg, 1 if strict else 0))
        _check(_c.report_config_set_time_scores(cfg, 1 if time_scores else 0))
        out = c_void_p()
        n = c_size_t()
        _check(_c.report_run_json(cfg, byref(out), byref(n)))
        result: Dict[str, Any] = json.loads(_take(out, n.value))
        return result
    finally:
        _c.report_config_free(cfg)
