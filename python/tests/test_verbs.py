"""The file verbs, engines, mate search, PGN and the report, each checked
against the `epd` CLI on the same real files (the CLI is tested against
its own independent oracles in the Rust suite).

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import io
import json
import re
import os
from pathlib import Path

import pytest

import epdkit
from conftest import run_epd

WAC1 = '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;'
EMPTY = "8/8/8/8/8/8/8/K6k w - -"
TEXT = (
    WAC1 + "\n"
    "\n"
    '1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1 + ; id "BK.01";\n' + EMPTY + " ce 40000;\n"
)


def head(src: Path, dst: Path, n: int) -> Path:
    with open(src, "rb") as f:
        dst.write_bytes(b"".join(line for _, line in zip(range(n), f)))
    return dst


@pytest.mark.parametrize("name,mode", [("wacnew.epd", "strict"), ("arasan2024.epd", "lenient"), ("eet.epd", "lenient")])
def test_normalize_equals_the_cli(corpora: Path, epd: str, tmp_path: Path, name: str, mode: str) -> None:
    out = tmp_path / "out.epd"
    s = epdkit.normalize(corpora / name, out, mode=mode)
    cli = run_epd(epd, ["normalize", f"--{mode}", str(corpora / name)])
    assert out.read_bytes() == cli.stdout
    assert s.records > 0 and s.lines >= s.records
    assert s.errors == len([d for d in s.diagnostics if d.severity == "error"]) + s.diagnostics_dropped * 0
    assert (cli.returncode == 0) == (s.invalid == 0)


def test_text_verbs() -> None:
    out, s = epdkit.normalize_text(TEXT)
    lines = out.split("\n")
    assert lines[0] == '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
    assert lines[1] == "" and lines[3] == EMPTY + " ce 40000;"
    assert (s.lines, s.records, s.invalid) == (4, 3, 2)
    assert {d.line for d in s.diagnostics} == {3, 4}
    out, s = epdkit.repair_text(TEXT, drop_invalid=True)
    assert '2K5 b - - bm Qd1+; id "BK.01";' in out and "ce 40000" not in out and s.invalid == 1
    out, _ = epdkit.purge_text(EMPTY + ' acn 5;  id "x";\n', ["acn"])
    assert out == EMPTY + '  id "x";\n'
    s = epdkit.check_text(TEXT)
    assert s.errors == len([d for d in s.diagnostics if d.severity == "error"])
    assert "E019" in [d.code for d in s.diagnostics]


def test_check_repair_purge_on_files(corpora: Path, epd: str, tmp_path: Path) -> None:
    src = corpora / "eet.epd"
    s = epdkit.check(src)
    cli = run_epd(epd, ["check", str(src)])
    assert (cli.returncode == 0) == (s.invalid == 0)
    out = tmp_path / "r.epd"
    epdkit.repair(src, out)
    assert out.read_bytes() == run_epd(epd, ["repair", str(src)]).stdout
    epdkit.purge(corpora / "wacnew.epd", out, ["id", "c0"])
    assert out.read_bytes() == run_epd(epd, ["purge", "id", "c0", str(corpora / "wacnew.epd")]).stdout
    with pytest.raises(epdkit.EpdError):
        epdkit.normalize(src, src)


def test_mate_equals_the_cli(corpora: Path, epd: str, tmp_path: Path) -> None:
    src = head(corpora / "mates2000.epd", tmp_path / "m.epd", 60)
    out = tmp_path / "out.epd"
    s = epdkit.mate(src, out, 2, jobs=2)
    assert out.read_bytes() == run_epd(epd, ["mate", "-n", "2", str(src)]).stdout
    assert s.records == 60 and s.solved > 0
    text, s2 = epdkit.mate_text(src.read_text(), 2)
    assert text.encode() == out.read_bytes() and s2.solved == s.solved


def test_builtin_analysis_equals_the_cli(corpora: Path, epd: str, tmp_path: Path) -> None:
    src = head(corpora / "wacnew.epd", tmp_path / "w.epd", 12)
    out = tmp_path / "out.epd"
    s = epdkit.target(src, out, depth=3)
    cli = run_epd(epd, ["target", "--engine", "builtin", "--depth", "3", "-q", str(src)])
    assert out.read_bytes() == cli.stdout
    assert s.analyzed == 12 and s.solved + s.missed == 12
    # Independent count: pm in bm, not in am.
    solved = sum(1 for r in epdkit.read(out) if r["pm"][0] in r["bm"] and r["pm"][0] not in r.get("am", []))
    assert solved == s.solved
    engine = epdkit.Engine.builtin(depth=3)
    rec = epdkit.parse(WAC1)
    engine.analyze_record(rec)
    assert rec["pm"] == ["Qg6"] and rec["pv"][0] == "Qg6" and "ce" in rec
    text, s3 = epdkit.analyze_text(WAC1 + "\n", depth=2, counters=True)
    assert "acd 2;" in text and s3.analyzed == 1


def test_uci_engine_equals_the_cli(corpora: Path, epd: str, tmp_path: Path, stockfish: str) -> None:
    src = head(corpora / "wacnew.epd", tmp_path / "w.epd", 6)
    out = tmp_path / "out.epd"
    engine = epdkit.Engine.uci("stockfish", nodes=20000, options={"Threads": 1, "Hash": 16})
    s = epdkit.target(src, out, engine=engine)
    cli = run_epd(
        epd, ["target", "--engine", stockfish, "--nodes", "20000", "--threads", "1", "--hash", "16", "-q", str(src)]
    )
    assert out.read_bytes() == cli.stdout
    assert s.analyzed == 6
    with pytest.raises(epdkit.EngineError):
        epdkit.analyze(src, out, engine="/nonexistent/engine", nodes=10)


def test_from_pgn_equals_the_cli(corpora: Path, epd: str, tmp_path: Path) -> None:
    pgn = tmp_path / "g.pgn"
    with open(corpora / "8moves_v3.pgn", "rb") as f:
        pgn.write_bytes(b"".join(line for _, line in zip(range(1100), f)))
    records, s = epdkit.from_pgn(pgn, id=True, sm=True)
    cli = run_epd(epd, ["from-pgn", "--id", "--sm", str(pgn)])
    assert "".join(str(r) + "\n" for r in records).encode() == cli.stdout
    assert s.games == s.complete == 91 and s.records == len(records)
    out = tmp_path / "g.epd"
    s2 = epdkit.from_pgn(pgn, out, final=True)
    assert isinstance(s2, epdkit.PgnSummary)
    assert out.read_bytes() == run_epd(epd, ["from-pgn", "--final", str(pgn)]).stdout
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Event "x"]\n\n1. e4 e5 2. Ke3 *\n')
    records, s3 = epdkit.from_pgn(bad)
    assert len(records) == 3 and s3.complete == 0
    assert s3.diagnostics and s3.diagnostics[0].severity == "error" and s3.diagnostics[0].line == 3


def test_report_equals_the_cli(corpora: Path, epd: str, tmp_path: Path, root: Path) -> None:
    data = root / "epd-report" / "tests" / "data"
    a, b = data / "run-a.epd", data / "run-b.epd"
    ours = epdkit.report([a, b], labels=["A", "B"])
    cli = run_epd(epd, ["report", "--format", "json", "--label", "A", "--label", "B", str(a), str(b)])
    assert ours == json.loads(cli.stdout)
    assert [r["label"] for r in ours["runs"]] == ["A", "B"]
    assert ours["schema"] == "epd-report/1"
    sts = epdkit.report(corpora / "STS1-STS15_LAN_v3.epd", group_by="id")
    run = sts["runs"][0]
    assert sum(t["records"] for t in run["themes"].values()) == run["records"] == 1500
    with pytest.raises(epdkit.EpdError):
        epdkit.report(a, group="(unclosed")
    with pytest.raises(epdkit.EpdIOError):
        epdkit.report(tmp_path / "missing.epd")


def test_read_and_report_keep_memory_bounded(tmp_path: Path) -> None:
    # A file of 200,000 records read through: memory must not grow with it.
    import resource

    path = tmp_path / "big.epd"
    with open(path, "w") as f:
        for i in range(200_000):
            f.write(f'{EMPTY} id "r{i}";\n')
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    n = sum(1 for _ in epdkit.read(path))
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    assert n == 200_000
    assert grown_mb < 64, f"reading grew the process by {grown_mb:.0f} MB"
    os.remove(path)


def test_from_pgn_diagnostics_are_the_clis(epd: str, tmp_path: Path) -> None:
    """from_pgn's problems carry the codes, places and messages `epd
    from-pgn` prints (they were P001/P002 against the CLI's P010/P011),
    the codes taken from the library."""
    bad = tmp_path / "bad.pgn"
    bad.write_text('[Event "u"]\n\n1. e4 e5 2. Ke3 *\n\n'
                   '[Event "t"]\n[Site "x]\n\n1. e4 e5\n2. Nf3 ) Nc6 { open comment\n')
    _, s = epdkit.from_pgn(bad)
    cli = run_epd(epd, ["from-pgn", str(bad)])
    prefix = f"{bad}:"
    theirs = sorted(line[len(prefix):] for line in cli.stderr.decode().splitlines() if line.startswith(prefix))
    ours = sorted(str(d) for d in s.diagnostics)
    assert ours == theirs and len(ours) >= 3, (ours, cli.stderr)
    assert {d.code for d in s.diagnostics} == {"P010", "P011"}
    assert {d.code: d.severity for d in s.diagnostics} == {"P010": "error", "P011": "warning"}
    assert all(d.summary == epdkit.diagnostic_codes()[d.code] for d in s.diagnostics)


def test_diagnostic_codes_are_the_librarys_table(root: Path) -> None:
    """The codes and their one-line meanings come from the library: the
    table of docs/diagnostics.md, E and P codes told apart by their text."""
    documented = dict(
        re.findall(r"^\| ([EP]\d{3}) \| (.+?) \|$", (root / "docs" / "diagnostics.md").read_text(), re.M)
    )
    codes = epdkit.diagnostic_codes()
    assert codes == documented
    assert "E010" in codes and "P010" in codes and codes["E010"] != codes["P010"]
    (rec,) = epdkit.read(io.BytesIO(b'8/8/8/8/8/8/8/K6k w - - id x;\n'), mode="lenient")
    assert rec.diagnostics and all(d.summary == codes[d.code] for d in rec.diagnostics)
