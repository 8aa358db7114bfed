"""Tests of the ctypes binding (run: python3 -m unittest discover -s python).

Licensed under MIT OR Apache-2.0.
"""

import datetime
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import epdkit  # noqa: E402

WAC1 = '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;'
EMPTY = "8/8/8/8/8/8/8/K6k w - -"


class ParseAndInspect(unittest.TestCase):
    def test_version(self):
        self.assertRegex(epdkit.library_version(), r"^\d+\.\d+\.\d+$")

    def test_parse_and_canonical(self):
        rec = epdkit.Record.parse(WAC1)
        self.assertEqual(rec["bm"], ["Qg6"])
        self.assertEqual(rec["id"], ["WAC.001"])
        self.assertEqual(len(rec), 2)
        self.assertEqual(
            str(rec), '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
        )
        self.assertEqual(rec.fields, "2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - -")
        self.assertIn("bm", rec)
        with self.assertRaises(KeyError):
            rec["ce"]

    def test_typed_operands(self):
        rec = epdkit.Record.parse(
            EMPTY + " acn 8031647685; ce -35; ts 1995.11.26 14:30:00; cc 001:01:30:00 000:00:00:05;"
            ' c0 "say \\"hi\\""; refcom respond;'
        )
        ops = {o.opcode: o for o in rec.operations()}
        self.assertEqual(ops["acn"].operands, (8031647685,))
        self.assertEqual(ops["ce"].operands, (-35,))
        self.assertEqual(ops["ts"].operands, (datetime.date(1995, 11, 26), datetime.time(14, 30)))
        self.assertEqual(ops["ts"].kinds, ("date", "time"))
        self.assertEqual(ops["cc"].operands[0], datetime.timedelta(days=1, hours=1, minutes=30))
        self.assertEqual(ops["c0"].operands, ('say "hi"',))
        self.assertEqual(ops["refcom"].kinds, ("identifier",))

    def test_invalid_record_raises_with_diagnostics(self):
        with self.assertRaises(epdkit.InvalidRecordError) as cm:
            epdkit.Record.parse(EMPTY + " ce 40000;")
        e = cm.exception
        self.assertEqual(e.status, epdkit.INVALID_RECORD)
        self.assertEqual(e.column, 28)
        self.assertEqual([d.code for d in e.diagnostics], ["E019"])
        self.assertEqual(e.diagnostics[0].severity, "error")
        self.assertIn("E019", str(e))
        rec, diags = epdkit.Record.parse_with_diagnostics("not a record")
        self.assertIsNone(rec)
        self.assertEqual(diags[0].code, "E001")

    def test_lenient_reading_warns(self):
        rec = epdkit.Record.parse(EMPTY.replace(" w", "  w") + " id WAC1;", lenient=True)
        self.assertEqual(str(rec), EMPTY + ' id "WAC1";')
        self.assertTrue(rec.diagnostics)
        self.assertTrue(all(d.severity == "warning" for d in rec.diagnostics))

    def test_non_utf8_and_huge_lines(self):
        latin1 = (EMPTY + ' c0 "Caf\xe9";').encode("latin-1")
        with self.assertRaises(epdkit.InvalidRecordError) as cm:
            epdkit.Record.parse(latin1)
        self.assertIn("E007", [d.code for d in cm.exception.diagnostics])
        self.assertEqual(epdkit.Record.parse(latin1, lenient=True)["c0"], ["Café"])
        huge = EMPTY + ' c0 "' + "a" * (1 << 20) + '";'
        with self.assertRaises(epdkit.InvalidRecordError) as cm:
            epdkit.Record.parse(huge)
        self.assertIn("E015", [d.code for d in cm.exception.diagnostics])

    def test_build_a_record(self):
        rec = epdkit.Record(epdkit.Position())
        rec.set_moves("pv", "e4 e5 Nf3")
        rec.set_integer("acn", 1 << 40)
        rec.set_string("id", "start")
        rec.set_identifier("refreq", "reply")
        self.assertEqual(
            str(rec),
            'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - acn 1099511627776; id "start"; '
            "pv e4 e5 Nf3; refreq reply;",
        )
        self.assertEqual(rec.remove("pv"), 1)
        with self.assertRaises(epdkit.EpdError) as cm:
            rec.set_integer("ce", 99999)
        self.assertIn("ce", cm.exception.message)
        with self.assertRaises(epdkit.EpdError) as cm:
            rec.set_moves("bm", "Ke2")
        self.assertEqual(cm.exception.status, 8)  # EPD_STATUS_ILLEGAL_MOVE

    def test_positions(self):
        pos = epdkit.Position()
        self.assertEqual(len(pos.legal_moves()), 20)
        for san in ("f3", "e5", "g4", "Qh4#"):
            pos.play(san, lenient=False)
        self.assertEqual(pos.status, ["check", "checkmate"])
        with self.assertRaises(epdkit.EpdError) as cm:
            epdkit.Position("8/8/8/8/8/8/8/K7 w - -")
        self.assertEqual(cm.exception.status, 6)  # EPD_STATUS_ILLEGAL_POSITION
        with self.assertRaises(epdkit.EpdError) as cm:
            epdkit.Position("8/8/8/8/8/8/8/K6k x - -")
        self.assertEqual(cm.exception.column, 19)


class Verbs(unittest.TestCase):
    TEXT = (
        WAC1 + "\n"
        "\n"
        "1k1r4/pp1b1R2/3q2pp/4p3/2B5/4Q3/PPP2B2/2K5 b - - bm Qd1 + ; id \"BK.01\";\n"
        + EMPTY + " ce 40000;\n"
    )

    def test_normalize(self):
        out, summary, diags = epdkit.normalize(self.TEXT)
        lines = out.split("\n")
        self.assertEqual(lines[0], '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";')
        self.assertEqual(lines[1], "")
        self.assertEqual(lines[3], EMPTY + " ce 40000;")  # invalid: copied through
        self.assertEqual((summary.lines, summary.records, summary.invalid), (4, 3, 2))
        self.assertEqual({d.line for d in diags}, {3, 4})

    def test_normalize_lenient_drop_invalid(self):
        out, summary, _ = epdkit.normalize(self.TEXT, lenient=True, drop_invalid=True)
        self.assertIn('2K5 b - - bm Qd1+; id "BK.01";', out)
        self.assertNotIn("ce 40000", out)
        self.assertEqual(summary.invalid, 1)

    def test_purge_and_check(self):
        out, _, _ = epdkit.purge(EMPTY + " acn 5;  id \"x\";\n", ["acn"])
        self.assertEqual(out, EMPTY + '  id "x";\n')
        summary, diags = epdkit.check(self.TEXT)
        self.assertEqual(summary.errors, len([d for d in diags if d.severity == "error"]))
        self.assertIn("E019", [d.code for d in diags])


if __name__ == "__main__":
    unittest.main()


class HeaderDrift(unittest.TestCase):
    """The binding's copies of the C constants equal the header's."""

    def test_constants_match_the_header(self):
        import re

        header = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "include", "epdkit.h")
        with open(header, encoding="utf-8") as f:
            defined = dict(re.findall(r"^#define (EPD_[A-Z0-9_]+) (-?\d+)$", f.read(), re.M))
        copies = {
            "OK": "EPD_STATUS_OK",
            "NULL_POINTER": "EPD_STATUS_NULL_POINTER",
            "INVALID_ARGUMENT": "EPD_STATUS_INVALID_ARGUMENT",
            "INVALID_UTF8": "EPD_STATUS_INVALID_UTF8",
            "INVALID_RECORD": "EPD_STATUS_INVALID_RECORD",
            "NOT_FOUND": "EPD_STATUS_NOT_FOUND",
            "STRICT": "EPD_PARSE_STRICT",
            "LENIENT": "EPD_PARSE_LENIENT",
        }
        # Every constant of the module that names a C one is listed.
        for name in dir(epdkit):
            if name.isupper() and isinstance(getattr(epdkit, name), int) and not name.startswith("_"):
                self.assertIn(name, copies, f"epdkit.{name} has no header counterpart listed here")
        for py, c in copies.items():
            self.assertIn(c, defined, c)
            self.assertEqual(getattr(epdkit, py), int(defined[c]), f"epdkit.{py} != {c}")
