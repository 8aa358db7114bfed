"""Scale-out on Dask: any verb of epdkit mapped over a Dask bag or
dataframe of EPD lines, or over files, on a laptop's LocalCluster or on a
real cluster; order is kept within each partition (and so overall).

    >>> import dask.bag as db, epdkit.dask as ed
    >>> lines = db.from_sequence(['4k3/8/8/8/8/8/8/4K2R w K - id "a"; bm O-O;',
    ...                           '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id "b";'], npartitions=2)
    >>> ed.map_bag(lines, "normalize").compute(scheduler="sync")
    ['4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "a";\\n', '6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - id "b";\\n']
    >>> solved = ed.map_bag(lines, "mate", moves=1).compute(scheduler="sync")
    >>> [line.split("dm ")[1][:18] if "dm " in line else None for line in solved]
    [None, '1; id "b"; pm Rd8#']

Over sharded files, `lines = db.read_text("shards/*.epd",
blocksize="16MiB")` and `ed.to_textfiles(ed.map_bag(lines, "normalize"),
"out/*.epd")` write one output file per partition; `ed.map_bag(lines,
"analyze", engine="builtin", nodes=20_000)` analyses.

Verbs (`VERBS`): "normalize", "repair", "purge" (opcodes=[...]), "mate" (moves=N),
"analyze" and "target" (engine, depth, nodes, movetime, counters,
solution_time), and "check" (which writes nothing: map_bag then gives one
Summary per partition). Options are plain values, so tasks pickle; each
task makes its own engine. Install with `pip install ./python[dask]`.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
from typing import Any, Dict, Iterable, List, Sequence, Union

import epdkit

__all__ = ["VERBS", "run_lines", "run_text", "map_bag", "map_series", "map_files", "to_textfiles"]

VERBS = ("normalize", "repair", "purge", "mate", "analyze", "target", "check")


def _check_verb(verb: str, options: Dict[str, Any]) -> None:
    if verb not in VERBS:
        raise ValueError(f"unknown verb {verb!r}: one of {', '.join(VERBS)}")
    if verb == "mate" and "moves" not in options:
        raise ValueError('the "mate" verb needs moves=N')
    if verb == "purge" and "opcodes" not in options:
        raise ValueError('the "purge" verb needs opcodes=[...]')


def run_text(verb: str, text: Union[str, bytes], **options: Any) -> Any:
    """Runs `verb` over a text of EPD lines; returns the output text (for
    check: the Summary). Every line in gives one line out (blank and
    invalid lines are copied through unless drop_invalid=True)."""
    _check_verb(verb, options)
    if verb == "normalize":
        return epdkit.normalize_text(text, **options)[0]
    if verb == "repair":
        return epdkit.repair_text(text, **options)[0]
    if verb == "purge":
        opts = dict(options)
        return epdkit.purge_text(text, opts.pop("opcodes"), **opts)[0]
    if verb == "mate":
        opts = dict(options)
        return epdkit.mate_text(text, opts.pop("moves"), **opts)[0]
    if verb == "analyze":
        return epdkit.analyze_text(text, **options)[0]
    if verb == "target":
        return epdkit.target_text(text, **options)[0]
    return epdkit.check_text(text, **options)


def run_lines(verb: str, lines: Iterable[str], **options: Any) -> Any:
    """Runs `verb` over lines (with or without their newline); returns the
    output lines, each ending in a newline (for check: the Summary)."""
    text = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    out = run_text(verb, text, **options)
    if verb == "check":
        return out
    return out.splitlines(keepends=True)


def map_bag(bag: Any, verb: str, **options: Any) -> Any:
    """Maps `verb` over a dask.bag.Bag of EPD lines, partition by
    partition: a bag of output lines in the same order (for check: a bag
    with one Summary per partition)."""
    _check_verb(verb, options)
    if verb == "check":
        return bag.map_partitions(lambda part: [run_lines(verb, part, **options)])
    return bag.map_partitions(lambda part: run_lines(verb, part, **options))


def to_textfiles(bag: Any, path: Any, **kwargs: Any) -> Any:
    """Writes a bag of lines from map_bag, one file per partition, each
    line once with its newline. (Dask's own Bag.to_textfiles puts a
    newline between elements, and map_bag's lines end with one already:
    it would write a blank line after every record.) `kwargs` go to
    Bag.to_textfiles (compression, encoding, compute, ...)."""
    return bag.map(lambda line: line.rstrip("\n")).to_textfiles(path, last_endline=True, **kwargs)


def _series_part(part: Any, verb: str, options: Dict[str, Any]) -> Any:
    import pandas as pd

    out = run_lines(verb, list(part), **options)
    return pd.Series([line.rstrip("\n") for line in out], index=part.index, dtype=object)


def map_series(series: Any, verb: str, **options: Any) -> Any:
    """Maps `verb` over a dask.dataframe Series of EPD lines (one record
    per row, without newlines): a Series of output lines with the same
    index. check is not offered here (use map_bag)."""
    _check_verb(verb, options)
    if verb == "check":
        raise ValueError("map_series needs a verb that writes lines; use map_bag for check")
    if options.get("drop_invalid"):
        raise ValueError("map_series keeps one row per row: drop_invalid is not allowed")
    return series.map_partitions(_series_part, verb, options, meta=(series.name, "object"))


def _run_file(verb: str, src: str, dst: str, options: Dict[str, Any]) -> Any:
    opts = dict(options)
    if verb == "normalize":
        return epdkit.normalize(src, dst, **opts)
    if verb == "repair":
        return epdkit.repair(src, dst, **opts)
    if verb == "purge":
        return epdkit.purge(src, dst, opts.pop("opcodes"), **opts)
    if verb == "mate":
        return epdkit.mate(src, dst, opts.pop("moves"), **opts)
    if verb == "analyze":
        return epdkit.analyze(src, dst, **opts)
    if verb == "target":
        return epdkit.target(src, dst, **opts)
    return epdkit.check(src, **opts)


def map_files(paths: Sequence[Union[str, "os.PathLike[str]"]], verb: str, output_dir: Union[str, "os.PathLike[str]"],
              **options: Any) -> List[Any]:
    """One task per file: `verb` from each path to a file of the same name
    in `output_dir` (check writes nothing). Returns the dask.delayed
    summaries; compute them (dask.compute(*tasks)) on any scheduler."""
    from dask.delayed import delayed

    _check_verb(verb, options)
    names = [os.path.basename(os.fspath(p)) for p in paths]
    if len(set(names)) != len(names):
        raise ValueError("two input files have the same name: their outputs would collide")
    tasks = []
    for p, name in zip(paths, names):
        dst = os.path.join(os.fspath(output_dir), name)
        tasks.append(delayed(_run_file)(verb, os.fspath(p), dst, options))
    return tasks
