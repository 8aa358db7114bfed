"""epdkit.select and epdkit.select_text against `epd select` run on the
same real files: the same bytes out, the same counts, the same refusals.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict, List, Tuple

import pytest

import epdkit
from conftest import run_epd

# (corpus file, keyword arguments of epdkit.select, arguments of `epd select`)
CASES: List[Tuple[str, Dict[str, Any], List[str]]] = [
    ("wacnew.epd", {"id": "WAC.0*"}, ["--id", "WAC.0*"]),
    ("wacnew.epd", {"id": r"^WAC\.(0..|1[0-4].)$", "regex": True}, ["--id", r"^WAC\.(0..|1[0-4].)$", "--regex"]),
    (
        "wacnew.epd",
        {"where": ["bm=Rxb2", "bm=Qg6", "bm=Nf3"], "invert": True},
        ["--where", "bm=Rxb2", "--where", "bm=Qg6", "--where", "bm=Nf3", "-v"],
    ),
    ("wacnew.epd", {"lines": [range(3, 41), "290..", 7]}, ["--lines", "3..40", "--lines", "290..", "--lines", "7"]),
    (
        "STS1-STS15_LAN_v3.epd",
        {"id": r"^STS\(v1[0-5]", "regex": True, "lines": "..1200"},
        ["--id", r"^STS\(v1[0-5]", "--regex", "--lines", "..1200"],
    ),
    (
        "STS1-STS15_LAN_v3.epd",
        {"where": ["bm=f5", "c9=f4f5 d4e5 d4f2 f3g4"]},
        ["--where", "bm=f5", "--where", "c9=f4f5 d4e5 d4f2 f3g4"],
    ),
    (
        "matetrack.epd",
        {"mode": "lenient", "has": "dm", "where": "dm<=2"},
        ["--lenient", "--has", "dm", "--where", "dm<=2"],
    ),
    (
        "mates2000.epd",
        {"mode": "lenient", "where": "dm>=3", "lacks": ["am"], "invert": True},
        ["--lenient", "--where", "dm>=3", "--lacks", "am", "-v"],
    ),
    # Strict: every record of this file is invalid, and none is selected.
    ("bratko-kopec.epd", {"has": "bm"}, ["--has", "bm"]),
    ("arasan2024.epd", {"mode": "lenient", "has": "am", "lines": 20}, ["--lenient", "--has", "am", "--lines", "20"]),
    ("eet.epd", {"mode": "lenient", "id": "E_E_T 0?? - B vs B"}, ["--lenient", "--id", "E_E_T 0?? - B vs B"]),
]


def cli_counts(stderr: bytes) -> Tuple[int, int, int]:
    """(selected, records, invalid) from the CLI's summary line."""
    line = [x for x in stderr.decode("utf-8", "replace").splitlines() if " records selected; " in x][-1]
    found = re.match(r"(\d+) of (\d+) records selected; (\d+) invalid", line)
    assert found, line
    return int(found.group(1)), int(found.group(2)), int(found.group(3))


@pytest.mark.parametrize("name,kwargs,args", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_select_equals_the_cli(
    corpora: Path, epd: str, tmp_path: Path, name: str, kwargs: Dict[str, Any], args: List[str]
) -> None:
    src = corpora / name
    out = tmp_path / "out.epd"
    s = epdkit.select(src, out, max_diagnostics=1 << 30, **kwargs)
    cli = run_epd(epd, ["select", *args, str(src)])
    assert out.read_bytes() == cli.stdout
    assert cli_counts(cli.stderr) == (s.selected, s.records, s.invalid)
    assert cli.returncode == (1 if s.invalid else 0)
    # Every diagnostic the CLI printed, the summary holds.
    printed = [x for x in cli.stderr.decode("utf-8", "replace").splitlines() if x.startswith(f"{src}:")]
    assert len(printed) == len(s.diagnostics) == s.warnings + s.errors
    assert s.lines >= s.records >= s.selected + s.invalid
    # The same in memory, where the file is text.
    data = src.read_bytes()
    if data.isascii():
        text, t = epdkit.select_text(data, **kwargs)
        assert text.encode() == cli.stdout
        assert (t.selected, t.records, t.invalid, t.warnings, t.errors) == (
            s.selected,
            s.records,
            s.invalid,
            s.warnings,
            s.errors,
        )


def test_the_cases_select_some_and_leave_some(corpora: Path) -> None:
    partial = 0
    for name, kwargs, _ in CASES:
        s = epdkit.select(corpora / name, "/dev/null", **kwargs)
        partial += 0 < s.selected < s.records
    assert partial >= len(CASES) - 2


@pytest.mark.parametrize(
    "kwargs,args,column",
    [
        ({"where": "ce>x"}, ["--where", "ce>x"], 4),
        ({"where": ["ce>1", "ce"]}, ["--where", "ce>1", "--where", "ce"], 3),
        ({"where": "9x=1"}, ["--where", "9x=1"], 1),
        ({"lines": "5..3"}, ["--lines", "5..3"], 4),
        ({"lines": 0}, ["--lines", "0"], 1),
        ({"has": "b-m"}, ["--has", "b-m"], 0),
        ({"lacks": ["id", "1x"]}, ["--lacks", "id", "--lacks", "1x"], 0),
    ],
)
def test_refused_filters_are_the_clis(epd: str, kwargs: Dict[str, Any], args: List[str], column: int) -> None:
    with pytest.raises(epdkit.EpdValueError) as e:
        epdkit.select_text("", **kwargs)
    assert e.value.column == column
    cli = run_epd(epd, ["select", *args])
    assert cli.returncode == 2 and cli.stdout == b""
    assert e.value.message in cli.stderr.decode()


def test_regex_errors_and_python_arguments(epd: str) -> None:
    with pytest.raises(epdkit.EpdValueError) as e:
        epdkit.select_text("", id="(", regex=True)
    assert e.value.status == 2 and "(" in e.value.message
    assert epdkit.select_text("", id="(")[1].selected == 0  # a glob
    with pytest.raises(ValueError):
        epdkit.select_text("", lines=range(5, 3))
    with pytest.raises(TypeError):
        epdkit.select_text("", has=[b"bm"])  # type: ignore[list-item]
    with pytest.raises(ValueError):
        epdkit.select_text("", mode="loose")


def test_select_text_keeps_records_as_read(epd: str) -> None:
    text = (
        '4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id "a";\r\n'
        "\n"
        '8/8/8/8/8/8/8/8 w - - id "b";\n'
        '4k3/8/8/8/8/8/8/4K2R w K - id "c"; ce 120;\n'
        '4k3/8/8/8/8/8/8/4K2R w K - bm Rh8+; id "d"; acd 12;\n'
    )
    out, s = epdkit.select_text(text, mode="lenient", where=["bm=0-0", "acd<13"])
    cli = run_epd(epd, ["select", "--lenient", "--where", "bm=0-0", "--where", "acd<13"], text.encode())
    assert out.encode() == cli.stdout
    assert out.startswith('4k3/8/8/8/8/8/8/4K2R  w K -   bm O-O;  id "a";\r\n')
    assert (s.lines, s.records, s.invalid, s.selected, s.warnings, s.errors) == (5, 4, 1, 2, 1, 2)
    assert [(d.line, d.code) for d in s.diagnostics] == [(1, "E001"), (3, "E002"), (3, "E002")]
