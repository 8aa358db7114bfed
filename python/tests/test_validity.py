"""Position validity: one rule in the library, the same in Python as in
the CLI and C (python-chess's Board.status() is the oracle, checked on
every corpus position in tests/tests/python_chess_validity.rs).

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import pytest

import epdkit

# The en passant square says Black just played c7-c5, yet the bishop's
# check on d5 existed before that move.
IMPOSSIBLE = "b7/8/8/rPpK4/8/5k2/6p1/7Q w - c6"
WITHOUT_EP = "b7/8/8/rPpK4/8/5k2/6p1/7Q w - -"


def test_a_check_the_en_passant_square_rules_out_is_refused() -> None:
    with pytest.raises(epdkit.FenError, match="impossible check"):
        epdkit.Position(IMPOSSIBLE)
    # Leniently it is kept: moves are defined in it.
    pos = epdkit.Position(IMPOSSIBLE, lenient=True)
    assert pos.is_check()
    assert epdkit.Position(WITHOUT_EP).is_check()


def test_records_report_e035_strictly_as_an_error_leniently_as_a_warning() -> None:
    with pytest.raises(epdkit.InvalidRecordError) as caught:
        epdkit.Record.parse(IMPOSSIBLE + ' id "x";')
    codes = [(d.severity, d.code) for d in caught.value.diagnostics]
    assert codes == [("error", "E035")]
    rec = epdkit.Record.parse(IMPOSSIBLE + ' id "x";', mode="lenient")
    assert [(d.severity, d.code) for d in rec.diagnostics] == [("warning", "E035")]
    assert "E035" in epdkit.diagnostic_codes()


def test_check_text_counts_it_invalid() -> None:
    summary = epdkit.check_text(f'{IMPOSSIBLE} id "a";\n{WITHOUT_EP} id "b";\n')
    assert (summary.records, summary.invalid) == (2, 1)
    assert [(d.line, d.code) for d in summary.diagnostics] == [(1, "E035")]
