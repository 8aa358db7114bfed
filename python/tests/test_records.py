"""Records: parsing, the mapping API, building and changing, reading
files with diagnostics, and misuse that must raise, never crash.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import datetime
import io
import os
import re
from pathlib import Path

import pytest

import epdkit

WAC1 = '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;'
WAC1_CANONICAL = '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
EMPTY = "8/8/8/8/8/8/8/K6k w - -"


def test_the_installed_package_is_imported(root: Path) -> None:
    here = Path(epdkit.__file__).resolve()
    assert "site-packages" in here.parts, here
    assert root not in here.parents, f"{here} is the source tree, not the installed wheel"
    assert epdkit.library_version() == epdkit.__version__


def test_parse_and_mapping() -> None:
    rec = epdkit.parse(WAC1)
    assert rec["bm"] == ["Qg6"]
    assert rec.get("id") == ["WAC.001"]
    assert rec.get("ce") is None and rec.get("ce", 0) == 0
    three: object = 3
    assert "bm" in rec and "ce" not in rec and three not in rec
    assert sorted(rec) == ["bm", "id"]
    assert dict(rec.items()) == {"id": ["WAC.001"], "bm": ["Qg6"]}
    assert len(rec) == 2
    assert str(rec) == WAC1_CANONICAL
    assert repr(rec) == f"Record({WAC1_CANONICAL!r})"
    assert rec.fields == "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -"
    assert rec.position.fen == "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - 0 1"
    with pytest.raises(KeyError):
        rec["ce"]
    assert rec == epdkit.parse(WAC1_CANONICAL)


def test_typed_operands() -> None:
    rec = epdkit.parse(
        EMPTY + " acn 8031647685; ce -35; ts 1995.11.26 14:30:00; cc 001:01:30:00 000:00:00:05;"
        ' c0 "say \\"hi\\""; refcom respond;'
    )
    ops = {o.opcode: o for o in rec.operations()}
    assert ops["acn"].operands == (8031647685,)
    assert ops["ce"].operands == (-35,)
    assert ops["ts"].operands == (datetime.date(1995, 11, 26), datetime.time(14, 30))
    assert ops["ts"].kinds == ("date", "time")
    assert ops["cc"].operands[0] == datetime.timedelta(days=1, hours=1, minutes=30)
    assert ops["c0"].operands == ('say "hi"',)
    assert ops["refcom"].kinds == ("identifier",)
    score = rec.score
    assert score is not None and score.kind == "centipawns" and score.value == -35


def test_invalid_record_raises_with_line_column_code() -> None:
    with pytest.raises(epdkit.InvalidRecordError) as e:
        epdkit.parse(EMPTY + " ce 40000;")
    err = e.value
    assert (err.line, err.column, err.code) == (1, 28, "E019")
    assert [d.code for d in err.diagnostics] == ["E019"]
    assert "E019" in str(err)
    assert isinstance(err, ValueError) and isinstance(err, epdkit.EpdError)
    with pytest.raises(epdkit.InvalidRecordError) as e:
        epdkit.parse("not a record")
    assert e.value.code == "E001"


def test_lenient_reading_warns() -> None:
    rec = epdkit.parse(EMPTY.replace(" w", "  w") + " id WAC1;", mode="lenient")
    assert str(rec) == EMPTY + ' id "WAC1";'
    assert rec.diagnostics and all(d.severity == "warning" for d in rec.diagnostics)
    with pytest.raises(ValueError):
        epdkit.parse(WAC1, mode="sloppy")


def test_non_utf8_and_huge_lines() -> None:
    latin1 = (EMPTY + ' c0 "Caf\xe9";').encode("latin-1")
    with pytest.raises(epdkit.InvalidRecordError) as e:
        epdkit.parse(latin1)
    assert "E007" in [d.code for d in e.value.diagnostics]
    assert epdkit.parse(latin1, mode="lenient")["c0"] == ["Café"]


def test_build_and_change_a_record() -> None:
    rec = epdkit.Record()
    rec["pv"] = "e4 e5 Nf3"
    rec["acn"] = 1 << 40
    rec["id"] = "start"
    rec["refreq"] = "reply"
    rec["c1"] = "one"
    assert str(rec) == (
        'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - acn 1099511627776; c1 "one"; id "start"; '
        "pv e4 e5 Nf3; refreq reply;"
    )
    rec["bm"] = ["e4", "d4"]
    assert rec["bm"] == ["e4", "d4"]
    del rec["pv"]
    assert "pv" not in rec
    with pytest.raises(KeyError):
        del rec["pv"]
    with pytest.raises(epdkit.EpdError) as e:
        rec["ce"] = 99999
    assert "ce" in e.value.message
    with pytest.raises(epdkit.MoveError):
        rec["bm"] = "Ke2"
    with pytest.raises(TypeError):
        rec["ce"] = 1.5
    with pytest.raises(TypeError):
        rec["ce"] = True
    with pytest.raises(TypeError):
        rec[3] = 1  # type: ignore[index]
    copy = rec.copy()
    copy["ce"] = 12
    assert "ce" not in rec and copy["ce"] == [12]
    on_fields = epdkit.Record("8/8/8/8/8/8/8/K6k b - -")
    assert str(on_fields) == "8/8/8/8/8/8/8/K6k b - -"
    # FEN's counters are no EPD field: kept as hmvc/fmvn leniently,
    # refused (E027) strictly, never dropped (issue 45; test_bridge.py).
    on_fen = epdkit.Record("8/8/8/8/8/8/8/K6k b - - 0 1", mode="lenient")
    assert str(on_fen) == "8/8/8/8/8/8/8/K6k b - - fmvn 1; hmvc 0;"


def test_an_edit_the_reader_would_refuse_raises_with_its_code() -> None:
    # Issue 33: pm must be the first move of pv (E012), for an edit as for
    # the reader; the record is left as it was.
    rec = epdkit.parse(WAC1 + " pv Qg6 fxg6;")
    with pytest.raises(epdkit.EpdValueError) as e:
        rec["pm"] = "Rae1"
    assert e.value.code == "E012" and "E012" in str(e.value), str(e.value)
    assert "pm" not in rec
    rec["pm"] = "Qg6"
    assert epdkit.parse(str(rec)) == rec
    # A removal that breaks a rule is refused too: draw_offer needs sm.
    rec["sm"] = "Qg6"
    rec["draw_offer"] = []
    with pytest.raises(epdkit.EpdValueError) as e:
        del rec["sm"]
    assert e.value.code == "E024"
    assert rec["sm"] == ["Qg6"]


def _write(tmp: Path, name: str, text: str) -> Path:
    p = tmp / name
    p.write_bytes(text.encode())
    return p


BROKEN = (
    WAC1 + "\n"
    "\n"
    "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1 + ; id \"BK.01\";\n"
    + EMPTY + " ce 40000;\n"
    + EMPTY + " bm Kb2;\r\n"
)


def test_read_raises_at_the_first_invalid_line(tmp_path: Path) -> None:
    path = _write(tmp_path, "broken.epd", BROKEN)
    seen = []
    with pytest.raises(epdkit.InvalidRecordError) as e:
        for rec in epdkit.read(path):
            seen.append(rec.line)
    assert seen == [1]
    err = e.value
    assert (err.path, err.line, err.column, err.code) == (str(path), 3, 53, "E021")
    assert str(err) == f"{path}:3:53: error[E021]: bm operand 1 is not canonical SAN: expected Qd1+"


def test_read_yields_every_line_with_errors_yield(tmp_path: Path) -> None:
    path = _write(tmp_path, "broken.epd", BROKEN)
    items = list(epdkit.read(path, errors="yield"))
    assert [type(i).__name__ for i in items] == ["Record", "Invalid", "Invalid", "Record"]
    assert [i.line for i in items] == [1, 3, 4, 5]
    bad = items[2]
    assert isinstance(bad, epdkit.Invalid)
    assert bad.text == EMPTY + " ce 40000;"
    assert [(d.line, d.column, d.code) for d in bad.diagnostics] == [(4, 28, "E019")]
    assert str(items[3]) == EMPTY + " bm Kb2;"
    # Lenient: the spaced check mark reads, with a warning.
    lenient = list(epdkit.read(path, mode="lenient", errors="yield"))
    assert isinstance(lenient[1], epdkit.Record)
    assert lenient[1]["bm"] == ["Qd1+"]
    assert lenient[1].diagnostics and lenient[1].diagnostics[0].line == 3


def test_read_file_objects_text_and_binary() -> None:
    text = WAC1 + "\n" + EMPTY + " ce 5;"  # no final newline
    from_text = [str(r) for r in epdkit.read(io.StringIO(text))]
    from_bytes = [str(r) for r in epdkit.read(io.BytesIO(text.encode()))]
    assert from_text == from_bytes == [WAC1_CANONICAL, EMPTY + " ce 5;"]


def test_read_records_outlive_their_batch_and_change(tmp_path: Path) -> None:
    path = _write(tmp_path, "two.epd", WAC1 + "\n" + EMPTY + " ce 5;\n")
    recs = list(epdkit.read(path))
    recs[1]["ce"] = 6
    assert str(recs[1]) == EMPTY + " ce 6;"
    assert recs[0]["bm"] == ["Qg6"]
    assert recs[0].position.legal_san()[:1]


def test_read_a_line_over_one_mebibyte(tmp_path: Path) -> None:
    path = tmp_path / "long.epd"
    with open(path, "wb") as f:
        f.write((WAC1 + "\n").encode())
        f.write(b"x" * (3 << 20) + b"\n")
        f.write((EMPTY + " ce 1;\n").encode())
    items = list(epdkit.read(path, errors="yield"))
    assert [i.line for i in items] == [1, 2, 3]
    assert isinstance(items[1], epdkit.Invalid)
    assert items[1].diagnostics[0].code == "E003" and "line longer" in items[1].diagnostics[0].message
    assert str(items[2]) == EMPTY + " ce 1;"


def test_read_matches_the_cli_on_a_real_suite(corpora: Path, epd: str) -> None:
    import subprocess

    path = corpora / "wacnew.epd"
    ours = [str(r) for r in epdkit.read(path, mode="lenient", errors="yield") if isinstance(r, epdkit.Record)]
    cli = subprocess.run([epd, "repair", "--drop-invalid", str(path)], capture_output=True, check=False)
    theirs = [line for line in cli.stdout.decode().split("\n") if line.strip()]
    assert ours == theirs and len(ours) == 300


@pytest.mark.parametrize(
    "call",
    [
        lambda: epdkit.parse(None),  # type: ignore[arg-type]
        lambda: epdkit.parse(42),  # type: ignore[arg-type]
        lambda: list(epdkit.read(None)),  # type: ignore[call-overload]
        lambda: list(epdkit.read(3.5)),  # type: ignore[call-overload]
        lambda: epdkit.Position(None).push(None),  # type: ignore[arg-type]
        lambda: epdkit.Position().piece_at("z9"),
        lambda: epdkit.Position().piece_at(64),
        lambda: epdkit.Record(42),  # type: ignore[arg-type]
        lambda: epdkit.normalize(None, None),  # type: ignore[arg-type]
        lambda: epdkit.check("/nonexistent/file.epd"),
        lambda: epdkit.report([]),
        lambda: epdkit.mate("a", "b", 0),
        lambda: epdkit.Engine(),
    ],
)
def test_misuse_raises_an_exception(call: object) -> None:
    with pytest.raises((TypeError, ValueError, OSError, epdkit.EpdError)):
        call()  # type: ignore[operator]


def test_a_closed_file_raises(tmp_path: Path) -> None:
    path = _write(tmp_path, "one.epd", WAC1 + "\n")
    f = open(path, "rb")
    f.close()
    with pytest.raises(ValueError):
        list(epdkit.read(f))


def test_check_on_a_missing_file_is_an_io_error() -> None:
    with pytest.raises(epdkit.EpdIOError) as e:
        epdkit.check("/nonexistent/file.epd")
    assert isinstance(e.value, OSError)
    assert "/nonexistent/file.epd" in e.value.message


def test_constants_and_structs_match_the_header(root: Path) -> None:
    from epdkit import _ffi

    header = (root / "include" / "epdkit.h").read_text()
    defined = dict(re.findall(r"^#define (EPD_[A-Z0-9_]+) (-?\d+)$", header, re.M))
    statuses = {k[len("EPD_STATUS_"):]: int(v) for k, v in defined.items() if k.startswith("EPD_STATUS_")}
    for name, value in statuses.items():
        assert getattr(_ffi, name) == value, name
    assert _ffi.STRICT == int(defined["EPD_PARSE_STRICT"]) and _ffi.LENIENT == int(defined["EPD_PARSE_LENIENT"])
    for struct, cls in [
        ("epd_batch_entry", _ffi.BatchEntry),
        ("epd_diagnostic", _ffi.Diagnostic),
        ("epd_verb_summary", _ffi.VerbSummary),
        ("epd_analysis_summary", _ffi.AnalysisSummary),
        ("epd_mate_summary", _ffi.MateSummary),
        ("epd_pgn_summary", _ffi.PgnSummary),
        ("epd_move", _ffi.Move),
        ("epd_score", _ffi.Score),
    ]:
        m = re.search(r"typedef struct " + struct + r" \{(.*?)\} " + struct + ";", header, re.S)
        assert m, struct
        fields = re.findall(r"^\s+[a-z_ 0-9]+?\**\s*\b([a-z_0-9]+)(?:\[\d+\])?;", m.group(1), re.M)
        ours = [f[0].rstrip("_") for f in cls._fields_]
        assert ours == fields, struct
