"""epdkit: EPD (Extended Position Description) records from Python.

A thin ctypes layer over libepdkit, the C API of EPD Kit: no compiled
extension. It parses, inspects, builds and normalizes records.

    >>> import epdkit
    >>> rec = epdkit.Record.parse('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;')
    >>> rec['bm']
    ['Qg6']
    >>> str(rec)
    '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'

The library is found through $EPDKIT_LIB (a path to libepdkit.so), then
target/release and target/debug beside this file's parent, then the
system's library path.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import datetime
import os
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    byref,
    c_char,
    c_char_p,
    c_double,
    c_int,
    c_long,
    c_size_t,
    c_ubyte,
    c_uint,
    c_ulong,
    c_void_p,
)
from dataclasses import dataclass
from typing import Iterable, List, Optional, Tuple, Union

__all__ = [
    "EpdError",
    "InvalidRecordError",
    "Diagnostic",
    "Operation",
    "Position",
    "Record",
    "Summary",
    "check",
    "normalize",
    "library_version",
]

# Status values (stable; see include/epdkit.h).
OK = 0
NULL_POINTER = 1
INVALID_ARGUMENT = 2
INVALID_UTF8 = 3
INVALID_RECORD = 11
NOT_FOUND = 13

STRICT = 0
LENIENT = 1

_KINDS = {
    1: "identifier",
    2: "move",
    3: "integer",
    4: "float",
    5: "date",
    6: "time",
    7: "clock",
    8: "string",
    9: "raw",
    10: "raw",
}


def _load() -> ctypes.CDLL:
    candidates = []
    if os.environ.get("EPDKIT_LIB"):
        candidates.append(os.environ["EPDKIT_LIB"])
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    for profile in ("release", "debug"):
        candidates.append(os.path.join(root, "target", profile, "libepdkit.so"))
    found = ctypes.util.find_library("epdkit")
    if found:
        candidates.append(found)
    for path in candidates:
        if os.path.exists(path) or path == found:
            try:
                return ctypes.CDLL(path)
            except OSError:
                continue
    raise OSError("libepdkit not found: build it with `cargo build --release -p epd-ffi` or set EPDKIT_LIB")


_lib = _load()


class _Move(Structure):
    _fields_ = [("from_", c_ubyte), ("to", c_ubyte), ("role", c_ubyte), ("promotion", c_ubyte), ("kind", c_ubyte)]


class _Int64(Structure):
    _fields_ = [("hi", c_long), ("lo", c_ulong)]


class _Date(Structure):
    _fields_ = [("year", c_int), ("month", c_int), ("day", c_int)]


class _Time(Structure):
    _fields_ = [("hour", c_int), ("minute", c_int), ("second", c_int)]


class _Clock(Structure):
    _fields_ = [("days", c_int), ("hours", c_int), ("minutes", c_int), ("seconds", c_int)]


class _Diagnostic(Structure):
    _fields_ = [
        ("severity", c_int),
        ("code", c_int),
        ("code_text", c_char * 8),
        ("line", c_ulong),
        ("column", c_size_t),
        ("operand", c_long),
        ("opcode", c_char_p),
        ("message", c_char_p),
    ]


class _Summary(Structure):
    _fields_ = [(name, c_ulong) for name in ("lines", "records", "invalid", "changed", "warnings", "errors")]


_REPORT = CFUNCTYPE(c_int, c_void_p, POINTER(_Diagnostic), POINTER(c_char), c_size_t)

_P = c_void_p  # every handle is opaque


def _fn(name, *args):
    f = getattr(_lib, name)
    f.argtypes = list(args)
    f.restype = c_int
    return f


_lib.epd_version.restype = c_char_p
_lib.epd_version.argtypes = []
_lib.epd_status_message.restype = c_char_p
_lib.epd_status_message.argtypes = [c_int]
_lib.epd_last_error_message.restype = c_char_p
_lib.epd_last_error_message.argtypes = []
_lib.epd_last_error_column.restype = c_size_t
_lib.epd_last_error_column.argtypes = []
for _free in ("epd_string_free", "epd_record_free", "epd_position_free", "epd_diagnostics_free", "epd_verb_config_free"):
    getattr(_lib, _free).argtypes = [c_void_p]
    getattr(_lib, _free).restype = None

_record_parse = _fn("epd_record_parse", c_char_p, c_size_t, c_int, _P, POINTER(_P))
_record_canonical = _fn("epd_record_canonical", _P, POINTER(c_void_p), POINTER(c_size_t))
_record_fields = _fn("epd_record_fields", _P, POINTER(c_void_p))
_record_clone = _fn("epd_record_clone", _P, POINTER(_P))
_record_new = _fn("epd_record_new", _P, POINTER(_P))
_record_position = _fn("epd_record_position", _P, POINTER(_P))
_record_operation_count = _fn("epd_record_operation_count", _P, POINTER(c_size_t))
_record_opcode = _fn("epd_record_opcode", _P, c_size_t, c_char_p, c_size_t)
_record_operand_count = _fn("epd_record_operand_count", _P, c_size_t, POINTER(c_size_t))
_record_operand_kind = _fn("epd_record_operand_kind", _P, c_size_t, c_size_t, POINTER(c_int))
_record_operand_text = _fn("epd_record_operand_text", _P, c_size_t, c_size_t, POINTER(c_void_p), POINTER(c_size_t))
_record_operand_integer = _fn("epd_record_operand_integer", _P, c_size_t, c_size_t, POINTER(_Int64))
_record_operand_float = _fn("epd_record_operand_float", _P, c_size_t, c_size_t, POINTER(c_double))
_record_operand_date = _fn("epd_record_operand_date", _P, c_size_t, c_size_t, POINTER(_Date))
_record_operand_time = _fn("epd_record_operand_time_of_day", _P, c_size_t, c_size_t, POINTER(_Time))
_record_operand_clock = _fn("epd_record_operand_clock", _P, c_size_t, c_size_t, POINTER(_Clock))
_record_set_integer = _fn("epd_record_set_integer", _P, c_char_p, _Int64)
_record_set_string = _fn("epd_record_set_string", _P, c_char_p, c_char_p, c_size_t)
_record_set_identifier = _fn("epd_record_set_identifier", _P, c_char_p, c_char_p)
_record_set_san = _fn("epd_record_set_san", _P, c_char_p, c_char_p, c_size_t, c_int)
_record_remove = _fn("epd_record_remove", _P, c_char_p, POINTER(c_size_t))
_diagnostics_new = _fn("epd_diagnostics_new", POINTER(_P))
_diagnostics_count = _fn("epd_diagnostics_count", _P, POINTER(c_size_t))
_diagnostics_get = _fn("epd_diagnostics_get", _P, c_size_t, POINTER(_Diagnostic))
_position_new = _fn("epd_position_new", POINTER(_P))
_position_from_fen = _fn("epd_position_from_fen", c_char_p, c_size_t, c_int, POINTER(_P))
_position_fen = _fn("epd_position_fen", _P, POINTER(c_void_p))
_position_legal_moves = _fn("epd_position_legal_moves", _P, POINTER(_Move), c_size_t, POINTER(c_size_t))
_position_san = _fn("epd_position_san", _P, _Move, POINTER(c_void_p))
_position_play_san = _fn("epd_position_play_san", _P, c_char_p, c_size_t, c_int)
_position_status = _fn("epd_position_status", _P, POINTER(c_uint))
_verb_config_new = _fn("epd_verb_config_new", c_int, POINTER(_P))
_verb_config_set_mode = _fn("epd_verb_config_set_mode", _P, c_int)
_verb_config_set_drop_invalid = _fn("epd_verb_config_set_drop_invalid", _P, c_int)
_verb_config_add_purge_opcode = _fn("epd_verb_config_add_purge_opcode", _P, c_char_p)
_verb_config_set_reporter = _fn("epd_verb_config_set_reporter", _P, _REPORT, c_void_p)
_verb_run_memory = _fn(
    "epd_verb_run_memory", _P, c_char_p, c_size_t, POINTER(c_void_p), POINTER(c_size_t), POINTER(_Summary)
)


class EpdError(Exception):
    """A failed libepdkit call: `status` (an EPD_STATUS_ value), the detailed
    `message`, and the 1-based `column` in the text read (0 if none)."""

    def __init__(self, status: int, message: str, column: int = 0):
        super().__init__(message)
        self.status = status
        self.message = message
        self.column = column


class InvalidRecordError(EpdError):
    """A record with errors; `diagnostics` lists every finding."""

    def __init__(self, status, message, column, diagnostics):
        super().__init__(status, message, column)
        self.diagnostics = diagnostics


def _error(status: int) -> EpdError:
    message = (_lib.epd_last_error_message() or b"").decode("utf-8", "replace")
    if not message:
        message = _lib.epd_status_message(status).decode()
    return EpdError(status, message, int(_lib.epd_last_error_column()))


def _check(status: int) -> None:
    if status != OK:
        raise _error(status)


def _bytes(text: Union[str, bytes]) -> bytes:
    return text.encode("utf-8") if isinstance(text, str) else bytes(text)


def _text(b: bytes) -> str:
    return b.decode("utf-8", "surrogateescape")


def _take_string(p: c_void_p, length: Optional[int] = None) -> bytes:
    """Copies an owned string and frees it."""
    try:
        return ctypes.string_at(p, length) if length is not None else ctypes.string_at(p)
    finally:
        _lib.epd_string_free(p)


def library_version() -> str:
    """The version of the loaded libepdkit ("0.1.0")."""
    return _lib.epd_version().decode()


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a record."""

    severity: str  # "error" or "warning"
    code: str  # "E012"
    line: int
    column: int
    message: str
    opcode: Optional[str] = None
    operand: Optional[int] = None

    @staticmethod
    def _from_c(d: _Diagnostic) -> "Diagnostic":
        return Diagnostic(
            severity="error" if d.severity == 1 else "warning",
            code=d.code_text.decode(),
            line=int(d.line),
            column=int(d.column),
            message=d.message.decode("utf-8", "replace"),
            opcode=d.opcode.decode() if d.opcode else None,
            operand=None if d.operand < 0 else int(d.operand),
        )

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}[{self.code}]: {self.message}"


@dataclass(frozen=True)
class Operation:
    """An opcode and its typed operands (int, float, str, datetime.date,
    datetime.time, datetime.timedelta for clocks; moves as canonical SAN)."""

    opcode: str
    operands: Tuple[object, ...]
    kinds: Tuple[str, ...]


@dataclass(frozen=True)
class Summary:
    """Counts from a verb run."""

    lines: int
    records: int
    invalid: int
    changed: int
    warnings: int
    errors: int


class _Handle:
    _free_name = ""

    def __init__(self, ptr: c_void_p):
        self._ptr = ptr

    def __del__(self):
        ptr = getattr(self, "_ptr", None)
        if ptr:
            getattr(_lib, self._free_name)(ptr)
            self._ptr = None


class Position(_Handle):
    """A legal chess position."""

    _free_name = "epd_position_free"

    def __init__(self, fen: Union[str, bytes, None] = None, lenient: bool = False):
        ptr = _P()
        if fen is None:
            _check(_position_new(byref(ptr)))
        else:
            data = _bytes(fen)
            _check(_position_from_fen(data, len(data), LENIENT if lenient else STRICT, byref(ptr)))
        super().__init__(ptr)

    @classmethod
    def _adopt(cls, ptr: c_void_p) -> "Position":
        self = cls.__new__(cls)
        _Handle.__init__(self, ptr)
        return self

    @property
    def fen(self) -> str:
        out = c_void_p()
        _check(_position_fen(self._ptr, byref(out)))
        return _text(_take_string(out))

    def legal_moves(self) -> List[str]:
        """The legal moves in canonical SAN, in generation order."""
        moves = (_Move * 256)()
        n = c_size_t()
        _check(_position_legal_moves(self._ptr, moves, 256, byref(n)))
        result = []
        for i in range(n.value):
            out = c_void_p()
            _check(_position_san(self._ptr, moves[i], byref(out)))
            result.append(_text(_take_string(out)))
        return result

    def play(self, san: str, lenient: bool = True) -> None:
        data = _bytes(san)
        _check(_position_play_san(self._ptr, data, len(data), LENIENT if lenient else STRICT))

    @property
    def status(self) -> List[str]:
        flags = c_uint()
        _check(_position_status(self._ptr, byref(flags)))
        names = ["check", "checkmate", "stalemate", "insufficient_material", "fifty_moves", "seventy_five_moves"]
        return [name for bit, name in enumerate(names) if flags.value & (1 << bit)]


def _diagnostics(handle) -> List[Diagnostic]:
    n = c_size_t()
    _check(_diagnostics_count(handle, byref(n)))
    out = []
    d = _Diagnostic()
    for i in range(n.value):
        _check(_diagnostics_get(handle, i, byref(d)))
        out.append(Diagnostic._from_c(d))
    return out


class Record(_Handle):
    """An EPD record: position fields plus operations."""

    _free_name = "epd_record_free"

    def __init__(self, position: Optional[Position] = None):
        position = position or Position()
        ptr = _P()
        _check(_record_new(position._ptr, byref(ptr)))
        super().__init__(ptr)

    @classmethod
    def _adopt(cls, ptr: c_void_p) -> "Record":
        self = cls.__new__(cls)
        _Handle.__init__(self, ptr)
        return self

    @classmethod
    def parse_with_diagnostics(
        cls, line: Union[str, bytes], lenient: bool = False
    ) -> Tuple[Optional["Record"], List[Diagnostic]]:
        """Parses one line; returns (record or None if invalid, diagnostics)."""
        try:
            rec = cls.parse(line, lenient)
        except InvalidRecordError as e:
            return None, e.diagnostics
        return rec, rec.diagnostics

    @classmethod
    def parse(cls, line: Union[str, bytes], lenient: bool = False) -> "Record":
        """Parses one line. Raises InvalidRecordError (with every diagnostic)
        if the record has errors; warnings are kept in `.diagnostics`."""
        data = _bytes(line).rstrip(b"\r\n")
        diags = _P()
        _check(_diagnostics_new(byref(diags)))
        try:
            ptr = _P()
            status = _record_parse(data, len(data), LENIENT if lenient else STRICT, diags, byref(ptr))
            found = _diagnostics(diags)
            if status == INVALID_RECORD:
                e = _error(status)
                raise InvalidRecordError(status, e.message, e.column, found)
            _check(status)
        finally:
            _lib.epd_diagnostics_free(diags)
        rec = cls._adopt(ptr)
        rec.diagnostics = found
        return rec

    diagnostics: List[Diagnostic] = []

    def copy(self) -> "Record":
        ptr = _P()
        _check(_record_clone(self._ptr, byref(ptr)))
        return Record._adopt(ptr)

    @property
    def fields(self) -> str:
        """The four EPD position fields."""
        out = c_void_p()
        _check(_record_fields(self._ptr, byref(out)))
        return _text(_take_string(out))

    @property
    def position(self) -> Position:
        ptr = _P()
        _check(_record_position(self._ptr, byref(ptr)))
        return Position._adopt(ptr)

    def canonical(self) -> str:
        """The canonical encoding (section 7.1 of the specification)."""
        out = c_void_p()
        n = c_size_t()
        _check(_record_canonical(self._ptr, byref(out), byref(n)))
        return _text(_take_string(out, n.value))

    __str__ = canonical

    def __repr__(self) -> str:
        return f"Record({self.canonical()!r})"

    def __len__(self) -> int:
        n = c_size_t()
        _check(_record_operation_count(self._ptr, byref(n)))
        return n.value

    def _operand(self, op: int, i: int):
        kind = c_int()
        _check(_record_operand_kind(self._ptr, op, i, byref(kind)))
        name = _KINDS.get(kind.value, "raw")
        if name == "integer":
            v = _Int64()
            _check(_record_operand_integer(self._ptr, op, i, byref(v)))
            return name, (v.hi << 32) | v.lo
        if name == "float":
            x = c_double()
            _check(_record_operand_float(self._ptr, op, i, byref(x)))
            return name, x.value
        if name == "date":
            d = _Date()
            _check(_record_operand_date(self._ptr, op, i, byref(d)))
            return name, datetime.date(d.year, d.month, d.day)
        if name == "time":
            t = _Time()
            _check(_record_operand_time(self._ptr, op, i, byref(t)))
            return name, datetime.time(t.hour, t.minute, t.second)
        if name == "clock":
            c = _Clock()
            _check(_record_operand_clock(self._ptr, op, i, byref(c)))
            return name, datetime.timedelta(days=c.days, hours=c.hours, minutes=c.minutes, seconds=c.seconds)
        p = c_void_p()
        n = c_size_t()
        _check(_record_operand_text(self._ptr, op, i, byref(p), byref(n)))
        return name, _text(ctypes.string_at(p, n.value)) if n.value else ""

    def operations(self) -> List[Operation]:
        """Every operation, in record order, with typed operands."""
        result = []
        buf = ctypes.create_string_buffer(16)
        for op in range(len(self)):
            _check(_record_opcode(self._ptr, op, buf, 16))
            n = c_size_t()
            _check(_record_operand_count(self._ptr, op, byref(n)))
            typed = [self._operand(op, i) for i in range(n.value)]
            result.append(
                Operation(buf.value.decode(), tuple(v for _, v in typed), tuple(k for k, _ in typed))
            )
        return result

    def __contains__(self, opcode: str) -> bool:
        return any(o.opcode == opcode for o in self.operations())

    def __getitem__(self, opcode: str) -> List[object]:
        for o in self.operations():
            if o.opcode == opcode:
                return list(o.operands)
        raise KeyError(opcode)

    def set_integer(self, opcode: str, value: int) -> None:
        v = _Int64(value >> 32, value & 0xFFFFFFFF)
        _check(_record_set_integer(self._ptr, opcode.encode(), v))

    def set_string(self, opcode: str, value: Union[str, bytes]) -> None:
        data = _bytes(value)
        _check(_record_set_string(self._ptr, opcode.encode(), data, len(data)))

    def set_identifier(self, opcode: str, value: str) -> None:
        _check(_record_set_identifier(self._ptr, opcode.encode(), value.encode()))

    def set_moves(self, opcode: str, san: Union[str, Iterable[str]], lenient: bool = False) -> None:
        text = san if isinstance(san, str) else " ".join(san)
        data = text.encode()
        _check(_record_set_san(self._ptr, opcode.encode(), data, len(data), LENIENT if lenient else STRICT))

    def remove(self, opcode: str) -> int:
        n = c_size_t()
        _check(_record_remove(self._ptr, opcode.encode(), byref(n)))
        return n.value


_VERBS = {"check": 0, "normalize": 1, "purge": 2, "repair": 3}


def _run(verb: str, text: Union[str, bytes], lenient: bool, drop_invalid: bool, purge=()):
    cfg = _P()
    _check(_verb_config_new(_VERBS[verb], byref(cfg)))
    found: List[Diagnostic] = []

    def report(_user, diag, _line, _len):
        found.append(Diagnostic._from_c(diag.contents))
        return 0

    callback = _REPORT(report)  # kept alive for the duration of the run
    try:
        _check(_verb_config_set_mode(cfg, LENIENT if lenient else STRICT))
        _check(_verb_config_set_drop_invalid(cfg, 1 if drop_invalid else 0))
        for opcode in purge:
            _check(_verb_config_add_purge_opcode(cfg, opcode.encode()))
        _check(_verb_config_set_reporter(cfg, callback, None))
        data = _bytes(text)
        out = c_void_p()
        n = c_size_t()
        s = _Summary()
        _check(_verb_run_memory(cfg, data, len(data), byref(out), byref(n), byref(s)))
        output = _take_string(out, n.value)
    finally:
        _lib.epd_verb_config_free(cfg)
    summary = Summary(s.lines, s.records, s.invalid, s.changed, s.warnings, s.errors)
    return output, summary, found


def normalize(
    text: Union[str, bytes], lenient: bool = False, drop_invalid: bool = False
) -> Tuple[str, Summary, List[Diagnostic]]:
    """pfdn over a whole text: (canonical text, summary, diagnostics).
    Invalid records are copied through unchanged unless drop_invalid."""
    output, summary, found = _run("normalize", text, lenient, drop_invalid)
    return _text(output), summary, found


def purge(text: Union[str, bytes], opcodes: Iterable[str]) -> Tuple[str, Summary, List[Diagnostic]]:
    """pfop: removes the operations with these opcodes, leaving the rest."""
    output, summary, found = _run("purge", text, False, False, tuple(opcodes))
    return _text(output), summary, found


def check(text: Union[str, bytes], lenient: bool = False) -> Tuple[Summary, List[Diagnostic]]:
    """Validates every record of a text: (summary, diagnostics)."""
    _, summary, found = _run("check", text, lenient, False)
    return summary, found
