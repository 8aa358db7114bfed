"""What a python-chess user expects of the data model and the errors:
what a getter returns the setter takes, records and positions pickle and
deep-copy, missing files are FileNotFoundError with errno and filename,
bad values are ValueError and bad types TypeError, in Python's words.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import copy
import errno
import io
import pickle
from pathlib import Path
from typing import Any, Callable, List

import pytest

import epdkit

EVERY_KIND = (
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - ce 35; sv e4 e5; pv e4 e5; "
    'cc 000:00:01:00 000:00:02:00; gn 3; tcgs 4; c0 "x"; c1 "a b"; id "q"; tcsi "h" "n"; fmvn 1; '
    "refcom respond; ts 2026.11.25 12:01:02; Foo bar 1; noop a b;"
)


def test_what_a_getter_returns_the_setter_takes() -> None:
    rec = epdkit.parse(EVERY_KIND)
    before = str(rec)
    for opcode in list(rec):
        value = rec[opcode]
        rec[opcode] = value
        assert rec[opcode] == value, opcode
    assert str(rec) == before
    # Unquoted operands stay unquoted; a str becomes a string.
    assert isinstance(rec["refcom"][0], epdkit.Unquoted) and isinstance(rec["Foo"][0], epdkit.Unquoted)
    rec["Foo"] = ["bar", "1"]
    assert 'Foo "bar" "1";' in str(rec)
    rec["ce"] = [36]
    assert rec["ce"] == [36]


def test_records_and_positions_pickle_and_deep_copy() -> None:
    lenient = next(epdkit.read(io.StringIO("B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1 ;D1 6\n"), mode="lenient"))
    for rec in (epdkit.parse(EVERY_KIND), lenient):
        for twin in (pickle.loads(pickle.dumps(rec)), copy.deepcopy(rec)):
            assert twin == rec and twin is not rec
            assert (twin.line, twin.diagnostics) == (rec.line, rec.diagnostics)
            twin["c9"] = "changed"
            assert "c9" not in rec
    pos = epdkit.Position()
    pos.push("e4")
    pos.push("c5")
    for twin in (pickle.loads(pickle.dumps(pos)), copy.deepcopy(pos)):
        assert twin == pos and twin.move_stack == ["e4", "c5"]
        assert twin.pop() == "c5" and pos.move_stack == ["e4", "c5"]
    assert pickle.loads(pickle.dumps(epdkit.Score.mate_in(3))) == epdkit.Score.mate_in(3)


def test_records_and_positions_are_equal_and_hash_alike_by_text(corpora: Path) -> None:
    """Equality and hashing by canonical text (records) and FEN
    (positions): a set of a suite read twice, once with its operations
    reordered, has one record per distinct canonical line."""
    lines = (corpora / "wacnew.epd").read_text().splitlines()
    first = list(epdkit.read(io.StringIO("\n".join(lines) + "\n"), mode="lenient"))

    def reordered(rec: epdkit.Record) -> str:
        parts = str(rec).split(" ")
        head = " ".join(parts[:4])
        ops = [o.strip() for o in str(rec)[len(head):].split(";") if o.strip()]
        return head + " " + "; ".join(reversed(ops)) + ";"

    texts = [reordered(r) for r in first]
    assert sum(t != str(r) for t, r in zip(texts, first)) > 250, "the operations were reordered"
    again = [epdkit.parse(t, mode="lenient") for t in texts]
    assert again == first and [hash(a) for a in again] == [hash(r) for r in first]
    distinct = {r.canonical() for r in first}
    assert len(set(first + again)) == len(distinct) and len(distinct) > 250
    index = {r: r.id for r in first}
    assert all(index[a] == a.id for a in again)
    changed = first[0].copy()
    changed["c9"] = "x"
    assert changed != first[0] and changed not in index
    p, q = epdkit.Position(), epdkit.Position()
    p.push("e4")
    q.push("e2e4")
    assert p == q and hash(p) == hash(q) and len({p, q, epdkit.Position()}) == 2


def _raises(kind: type, call: Callable[[], Any]) -> BaseException:
    with pytest.raises(kind) as info:
        call()
    return info.value


def test_missing_files_and_directories_are_os_errors_with_errno_and_filename(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.epd")
    out = str(tmp_path / "out.epd")
    calls: List[Callable[[], Any]] = [
        lambda: list(epdkit.read(missing)),
        lambda: epdkit.check(missing),
        lambda: epdkit.normalize(missing, out),
        lambda: epdkit.purge(missing, out, ["id"]),
        lambda: epdkit.from_pgn(missing),
    ]
    for call in calls:
        e = _raises(FileNotFoundError, call)
        assert isinstance(e, epdkit.EpdIOError) and isinstance(e, epdkit.EpdError)
        assert (e.errno, e.filename) == (errno.ENOENT, missing), e
        assert missing in str(e)
    for call in [lambda: list(epdkit.read(str(tmp_path))), lambda: epdkit.check(str(tmp_path))]:
        e = _raises(IsADirectoryError, call)
        assert isinstance(e, epdkit.EpdIOError) and e.errno == errno.EISDIR and e.filename == str(tmp_path)


def test_bad_values_are_value_errors_and_bad_types_type_errors() -> None:
    rec = epdkit.parse("8/8/8/8/8/8/8/K6k w - - ce 3;")
    for opcode, value in [("ce", 40000), ("acd", -1), ("ce", 10**30)]:
        e = _raises(ValueError, lambda: rec.__setitem__(opcode, value))
        assert isinstance(e, epdkit.EpdError)
        assert "..=" not in str(e) and "int64" not in str(e), str(e)
    assert rec["ce"] == [3]
    assert "from 0 to" in str(_raises(ValueError, lambda: epdkit.Score(9, 9)))
    _raises(TypeError, lambda: epdkit.Engine.builtin(depth=1).analyze_record(None))  # type: ignore[arg-type]
    text = '8/8/8/8/8/8/8/K6k w - - id "x";'
    assert "single str" in str(_raises(TypeError, lambda: epdkit.purge_text(text, "id")))
    assert epdkit.purge_text(text, ["id"])[0].strip() == "8/8/8/8/8/8/8/K6k w - -"


def test_legal_moves_is_a_property_that_iterates() -> None:
    pos = epdkit.Position()
    moves = pos.legal_moves
    assert len(moves) == 20 and "g1f3" in moves and sorted(m for m in pos.legal_moves) == sorted(moves)
    assert pos.legal_moves() == moves  # the call form still works
    assert "Nf3" in pos.legal_san and len(pos.legal_san) == 20


def test_typed_accessors_beside_the_mapping() -> None:
    rec = epdkit.parse('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";')
    assert (rec.id, rec.bm, rec.am, rec.pv, rec.pm, rec.ce, rec.acd) == ("WAC.001", ["Qg6"], [], [], None, None, None)
    rec.ce = 35
    rec.pv = ["Qg6", "fxg6"]
    rec.pm = "Qg6"
    rec.id = "renamed"
    assert (rec["ce"], rec["pv"], rec["pm"], rec["id"]) == ([35], ["Qg6", "fxg6"], ["Qg6"], ["renamed"])
    rec.ce = None
    del rec.id
    rec.bm = []
    assert "ce" not in rec and "id" not in rec and "bm" not in rec


def test_write_keeps_every_line_read(tmp_path: Path) -> None:
    text = "8/8/8/8/8/8/8/K6k w - - id \"a\";\nnot a record\n8/8/8/8/8/8/8/K6k b - - ce 5;\n"
    items = list(epdkit.read(io.StringIO(text), errors="yield"))
    assert [type(i).__name__ for i in items] == ["Record", "Invalid", "Record"]
    path = tmp_path / "out.epd"
    assert epdkit.write(items, path) == 3
    assert path.read_text() == text
    buf = io.BytesIO()
    epdkit.write(items, buf)
    assert buf.getvalue() == text.encode()
    sio = io.StringIO()
    epdkit.write([str(items[0])], sio)
    assert sio.getvalue() == text.splitlines(keepends=True)[0]
    with pytest.raises(TypeError):
        epdkit.write([42], io.StringIO())  # type: ignore[list-item]
    with pytest.raises(FileNotFoundError):
        epdkit.write(items, tmp_path / "no" / "such" / "dir.epd")


def test_an_invalid_line_keeps_its_bytes(tmp_path: Path) -> None:
    data = b"8/8/8/8/8/8/8/K6k w - - c0 \"caf\xe9\";\r\nnot \xff a record\n"
    src = tmp_path / "in.epd"
    src.write_bytes(data)
    items = list(epdkit.read(src, errors="yield"))
    bad = [i for i in items if isinstance(i, epdkit.Invalid)]
    assert bad and all("\ufffd" in i.text for i in bad)
    # Both lines are invalid (a string must be UTF-8); each keeps its bytes.
    assert [i.raw for i in bad] == [line.rstrip(b"\r") for line in data.splitlines()]
    out = tmp_path / "out.epd"
    epdkit.write(items, out)
    assert out.read_bytes() == data.replace(b"\r\n", b"\n")
