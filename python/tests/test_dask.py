"""epdkit.dask on a LocalCluster of 2 worker processes: the example's
output equals the `epd` CLI's byte for byte.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
import runpy
import subprocess
from pathlib import Path

import pytest

if os.environ.get("EPDKIT_REQUIRE_DASK"):
    import dask  # noqa: F401
    import distributed  # noqa: F401
else:
    pytest.importorskip("dask")
    pytest.importorskip("distributed")

import epdkit
import epdkit.dask as ed


def shards(corpora: Path, tmp: Path) -> list[str]:
    # Three shards: a real suite with invalid and non-canonical lines
    # (copied through / rewritten as the CLI does) and two slices of STS.
    out = []
    sts = (corpora / "STS1-STS15_LAN_v3.epd").read_bytes().splitlines(keepends=True)
    for i, data in enumerate([(corpora / "eet.epd").read_bytes(), b"".join(sts[:700]), b"".join(sts[700:1500])]):
        p = tmp / f"shard{i}.epd"
        p.write_bytes(data)
        out.append(str(p))
    return out


def test_example_on_a_local_cluster_equals_the_cli(corpora: Path, epd: str, root: Path, tmp_path: Path) -> None:
    files = shards(corpora, tmp_path)
    out = tmp_path / "out"
    example = root / "python" / "examples" / "dask_cluster.py"
    main = runpy.run_path(str(example))["main"]
    assert main([*files, "--out", str(out), "--nodes", "300", "--blocksize", "64KiB"]) == 0
    cli_norm = subprocess.run([epd, "normalize", *files], capture_output=True).stdout
    assert (out / "normalized.epd").read_bytes() == cli_norm
    analyzed = subprocess.run(
        [epd, "analyze", "--engine", "builtin", "--nodes", "300", "--counters", "-q", "-"],
        input=cli_norm,
        capture_output=True,
    ).stdout

    def without_acs(text: bytes) -> list[bytes]:
        # acs (seconds) is the one field that depends on the machine's speed.
        import re

        return [re.sub(rb" acs \d+;", b"", line) for line in text.splitlines()]

    assert without_acs((out / "analyzed.epd").read_bytes()) == without_acs(analyzed)


def test_bag_dataframe_and_files(corpora: Path, epd: str, tmp_path: Path) -> None:
    import dask
    import dask.bag as db
    import dask.dataframe as dd
    import pandas as pd

    files = shards(corpora, tmp_path)
    cli = subprocess.run([epd, "repair", *files], capture_output=True).stdout.decode()
    with dask.config.set(scheduler="processes", num_workers=2):
        lines = db.read_text(files, blocksize="32KiB")
        assert lines.npartitions > 3
        assert "".join(ed.map_bag(lines, "repair").compute()) == cli
        # The module's own way to files: each partition's lines, once each.
        ed.to_textfiles(ed.map_bag(lines, "repair"), str(tmp_path / "bagout" / "*.epd"))
        parts = sorted((tmp_path / "bagout").iterdir(), key=lambda p: int(p.stem))
        assert len(parts) == lines.npartitions
        assert "".join(p.read_text() for p in parts) == cli
        summaries = ed.map_bag(lines, "check").compute()
        assert sum(s.records for s in summaries) == sum(1 for f in files for l in open(f) if l.strip())
        rows = [l.rstrip("\n") for f in files for l in open(f)]
        df = dd.from_pandas(pd.DataFrame({"epd": rows}), npartitions=4)
        out = ed.map_series(df["epd"], "repair").compute()
        assert "".join(s + "\n" for s in out) == cli
        (tmp_path / "files").mkdir()
        tasks = ed.map_files(files, "normalize", tmp_path / "files", mode="lenient")
        results = dask.base.compute(*tasks)
    for f, s in zip(files, results):
        assert isinstance(s, epdkit.Summary)
        got = (tmp_path / "files" / os.path.basename(f)).read_bytes()
        assert got == subprocess.run([epd, "normalize", "--lenient", f], capture_output=True).stdout
    with pytest.raises(ValueError):
        ed.map_bag(lines, "mate")
    with pytest.raises(ValueError):
        ed.map_bag(lines, "fly")
