"""Records: one EPD line's position and typed operations, and reading
and writing EPD files.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import ctypes
import datetime
import io
import os
from ctypes import byref, c_double, c_int, c_size_t, c_void_p
from dataclasses import dataclass, field
from typing import (
    TYPE_CHECKING,
    Any,
    Dict,
    IO,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    List,
    Literal,
    Mapping,
    MutableMapping,
    Optional,
    overload,
    Tuple,
    Union,
    ValuesView,
)

from . import _ffi as _c
from .errors import (
    Diagnostic,
    EpdValueError,
    FenError,
    InvalidRecordError,
    _check,
    _diagnostics,
    _os_error,
)
from ._common import PathLike, Text, _bytes, _lock_of, _serialized, _take
from .positions import Position, Score

if TYPE_CHECKING:  # python-chess, for the bridge's types only (never imported at run time unless used)
    import chess

__all__ = [
    "Invalid",
    "Operation",
    "Record",
    "Unquoted",
    "parse",
    "read",
    "write",
]


# -------------------------------------------------------------- records

_MOVE_OPS = frozenset(("am", "bm", "pm", "pv", "sm", "sv"))
_IDENT_OPS = frozenset(("refcom", "refreq"))
_KINDS = {
    1: "identifier", 2: "move", 3: "integer", 4: "float", 5: "date", 6: "time", 7: "clock", 8: "string", 9: "raw",
    10: "raw_quoted",
}

class Unquoted(str):
    """An operand written without quotes: an identifier (`refcom
    respond`) or a verbatim operand of an opcode the standard does not
    type (`Foo bar`). Given back to a record, it is written as it was."""

    __slots__ = ()


Operand = Union[str, int, float, datetime.date, datetime.time, datetime.timedelta]


@dataclass(frozen=True)
class Operation:
    """One operation of a record: its opcode and typed operands."""

    opcode: str
    operands: Tuple[Operand, ...]
    kinds: Tuple[str, ...] = field(default=())


def _int64(opcode: str, v: int) -> "_c.Int64":
    """An integer operand as the library takes it (64 bits, signed)."""
    if not -(2**63) <= v < 2**63:
        raise EpdValueError(_c.OUT_OF_RANGE, f"{opcode}: {v} does not fit in a signed 64-bit integer")
    return _c.Int64(v >> 32, v & 0xFFFFFFFF)


def _opcode_list(opcodes: Any) -> List[str]:
    """Opcodes given as a list; a bare str (whose letters would each be
    taken for an opcode) is refused."""
    if isinstance(opcodes, (str, bytes)):
        raise TypeError(f"opcodes must be a list of opcodes such as [{opcodes!r}], not a single {type(opcodes).__name__}")
    out = list(opcodes)
    for o in out:
        if not isinstance(o, str):
            raise TypeError(f"an opcode must be str, not {type(o).__name__}")
    return out


def _record_from(text: str, line: int, diagnostics: List[Diagnostic]) -> "Record":
    """A pickled Record."""
    rec = Record.parse(text, mode="lenient")
    rec.line = line
    rec.diagnostics = list(diagnostics)
    return rec


def _push_operand(ops: c_void_p, opcode: str, v: Any) -> None:
    """Appends one operand of a list given to Record.__setitem__."""
    if isinstance(v, bool):
        raise TypeError(f"{opcode}: bool is not an operand")
    if isinstance(v, int):
        _check(_c.operands_push_integer(ops, _int64(opcode, v)))
    elif isinstance(v, str) and opcode in _IDENT_OPS:
        _check(_c.operands_push_identifier(ops, v.encode()))
    elif isinstance(v, Unquoted):
        data = v.encode()
        _check(_c.operands_push_raw(ops, data, len(data)))
    elif isinstance(v, str):
        data = v.encode()
        _check(_c.operands_push_string(ops, data, len(data)))
    elif isinstance(v, datetime.datetime):
        raise TypeError(f"{opcode}: a datetime is not an operand (a date or a time is)")
    elif isinstance(v, datetime.date):
        _check(_c.operands_push_date(ops, _c.Date(v.year, v.month, v.day)))
    elif isinstance(v, datetime.time):
        _check(_c.operands_push_time_of_day(ops, _c.Time(v.hour, v.minute, v.second)))
    elif isinstance(v, datetime.timedelta):
        seconds = int(v.total_seconds())
        if seconds < 0:
            raise ValueError(f"{opcode}: a clock cannot be negative")
        days, rest = divmod(seconds, 86_400)
        _check(_c.operands_push_clock(ops, _c.Clock(days, rest // 3600, rest // 60 % 60, rest % 60)))
    else:
        raise TypeError(f"{opcode}: cannot set an operand of type {type(v).__name__}")


def _op_property(opcode: str, many: bool, doc: str) -> Any:
    """A Record property for `opcode`: its one operand or None (`many`:
    its list of operands, [] when absent); set it (None, or an empty list,
    removes the operation) or del it."""

    def get(self: "Record") -> Any:
        values = self.get(opcode)
        if many:
            return list(values or [])
        return values[0] if values else None

    def put(self: "Record", value: Any) -> None:
        if value is None or (many and isinstance(value, (list, tuple)) and not value):
            self.remove(opcode)
        else:
            self[opcode] = value

    def drop(self: "Record") -> None:
        self.remove(opcode)

    return property(get, put, drop, doc)


_MISSING: Any = object()


@_serialized
class Record(MutableMapping[str, List[Operand]]):
    """An EPD record: a position and its operations, in canonical order.

    A mapping of opcode to the list of its typed operands (moves as SAN,
    integers as int, strings as str, dates as datetime.date, ...):
    `rec["bm"]`, `rec.get("ce")`, `"id" in rec`, `for opcode in rec`,
    `rec.items()`. It can be changed: `rec["ce"] = 35`, `rec["bm"] =
    ["Qg6"]`, `del rec["c0"]`, and every `MutableMapping` method
    (`update`, `pop`, `popitem`, `setdefault`, `clear`), each one step
    under the record's lock. `keys()`, `items()` and `values()` are
    snapshots, taken whole under the lock, so another thread's change
    never breaks them half-way. `str(rec)` is the canonical text.

    `Record(position)` makes a record of a Position (its four position
    fields: a Position's move counters are not part of a record) or of
    position text: FEN or the four EPD fields. FEN's counters are no EPD
    field: by default (`mode="strict"`) they are refused with E027 (as
    `epd check` does), and with `mode="lenient"` kept as the operations
    hmvc and fmvn (as `epd repair` does); never dropped without a word.

    Records read from a file carry `line` (1-based) and `diagnostics`
    (warnings; a record with errors is not a Record but an Invalid).
    """

    __slots__ = ("_ptr", "_owner", "_slot", "line", "diagnostics", "_lock", "__weakref__")

    # Typed accessors beside the mapping (rec.bm is rec.get("bm") or []).
    id = _op_property("id", False, "`id`: the record's name (str), or None.")
    bm = _op_property("bm", True, "`bm`: the best moves (SAN), [] when there are none.")
    am = _op_property("am", True, "`am`: the moves to avoid (SAN).")
    pv = _op_property("pv", True, "`pv`: the predicted variation (SAN moves).")
    pm = _op_property("pm", False, "`pm`: the predicted move (SAN), or None.")
    sm = _op_property("sm", False, "`sm`: the supplied move (SAN), or None.")
    ce = _op_property("ce", False, "`ce`: the centipawn evaluation (int), or None.")
    dm = _op_property("dm", False, "`dm`: direct mate in this many moves (int), or None.")
    acd = _op_property("acd", False, "`acd`: the analysis depth (int), or None.")
    acn = _op_property("acn", False, "`acn`: the nodes analysed (int), or None.")
    acs = _op_property("acs", False, "`acs`: the seconds of analysis (int), or None.")

    def __init__(self, position: Union[Position, Text, None] = None, *, mode: str = "strict") -> None:
        _mode(mode)
        if isinstance(position, (str, bytes)) and len(_bytes(position).split()) > 4:
            # FEN counters (or anything past the position fields) go
            # through the reader: E027 strictly, hmvc/fmvn leniently.
            fields = _bytes(position).split()
            if len(fields) != 6 or not (fields[4].isdigit() and fields[5].isdigit()):
                raise FenError(_c.FEN_SYNTAX, "a position is FEN (six fields) or the four EPD position fields")
            parsed = Record.parse(position, mode=mode)
            self._ptr: Optional[c_void_p] = parsed._ptr
            parsed._ptr = None
            self._owner: Any = None
            self._slot = -1
            self.line = 0
            self.diagnostics: List[Diagnostic] = parsed.diagnostics
            return
        if not isinstance(position, Position):
            position = Position(position)
        ptr = c_void_p()
        with _lock_of(position):
            _check(_c.record_new(position._ptr, byref(ptr)))
        self._ptr = ptr
        self._owner = None
        self._slot = -1
        self.line = 0
        self.diagnostics = []

    @classmethod
    def from_board(cls, board: "chess.Board", **operations: Any) -> "Record":
        """A record of a python-chess `chess.Board`'s position (its four
        fields) with `operations`, as python-chess's `board.epd(**ops)`:
        `Record.from_board(board, bm=move, id="x")`; a chess.Move, or a
        list of them, is written in SAN from the board's position."""
        rec = cls(Position.from_board(board))
        for opcode, value in operations.items():
            if hasattr(value, "from_square"):
                value = board.san(value)
            elif isinstance(value, (list, tuple)) and value and all(hasattr(v, "from_square") for v in value):
                if opcode in ("pv", "sv"):
                    # A variation: each move from the position the last one left.
                    line = board.copy(stack=False)
                    sans = []
                    for v in value:
                        sans.append(line.san(v))
                        line.push(v)
                    value = sans
                else:
                    value = [board.san(v) for v in value]
            rec[opcode] = value
        return rec

    @classmethod
    def _adopt(cls, ptr: c_void_p, owner: Any = None, line: int = 0) -> "Record":
        self = cls.__new__(cls)
        self._ptr = ptr
        self._owner = owner
        self._slot = -1
        self.line = line
        self.diagnostics = []
        return self

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr and getattr(self, "_owner", None) is None:
            _c.record_free(ptr)
        self._ptr = None

    @classmethod
    def parse(cls, line: Text, *, mode: str = "strict") -> "Record":
        """Reads one record. Raises InvalidRecordError (with every
        diagnostic, line 1) if it has errors; warnings are kept in
        `.diagnostics`."""
        data = _bytes(line, "line").rstrip(b"\r\n")
        diags = c_void_p()
        _check(_c.diagnostics_new(byref(diags)))
        try:
            ptr = c_void_p()
            status = _c.record_parse(data, len(data), _mode(mode), diags, byref(ptr))
            found = _diagnostics(diags)
            if status == _c.INVALID_RECORD:
                raise InvalidRecordError("invalid record", found)
            _check(status)
        finally:
            _c.diagnostics_free(diags)
        rec = cls._adopt(ptr, None, 1)
        rec.diagnostics = found
        return rec

    def copy(self) -> "Record":
        """An independent copy."""
        ptr = c_void_p()
        _check(_c.record_clone(self._p, byref(ptr)))
        rec = Record._adopt(ptr, None, self.line)
        rec.diagnostics = list(self.diagnostics)
        return rec

    __copy__ = copy

    @property
    def _p(self) -> c_void_p:
        ptr = self._ptr
        if ptr:
            return ptr
        if self._slot >= 0:
            # A record read by read(): the batch builds it on first use.
            out = c_void_p()
            with _lock_of(self._owner):
                _check(_c.batch_record(self._owner.ptr, self._slot, byref(out)))
            self._ptr = out
            return out
        raise ValueError("the record was released")

    def __str__(self) -> str:
        if self._ptr is None and self._slot >= 0:
            # The batch already holds the canonical text.
            text = c_void_p()
            n = c_size_t()
            with _lock_of(self._owner):
                _check(_c.batch_text(self._owner.ptr, self._slot, byref(text), byref(n)))
                return ctypes.string_at(text, n.value).decode("utf-8", "replace")
        return self.canonical()

    @property
    def position(self) -> Position:
        """A copy of the record's position."""
        ptr = c_void_p()
        _check(_c.record_position(self._p, byref(ptr)))
        return Position._adopt(ptr)

    @property
    def fields(self) -> str:
        """The four EPD position fields."""
        out = c_void_p()
        _check(_c.record_fields(self._p, byref(out)))
        return _take(out).decode()

    def canonical(self) -> str:
        """The canonical text (section 7.1), without a line terminator."""
        return self._canonical_bytes().decode("utf-8", "replace")

    def __repr__(self) -> str:
        return f"Record({str(self)!r})"

    def _canonical_bytes(self) -> bytes:
        out = c_void_p()
        n = c_size_t()
        _check(_c.record_canonical(self._p, byref(out), byref(n)))
        return _take(out, n.value)

    def __eq__(self, other: object) -> bool:
        """Records are equal when their canonical texts are, byte for byte
        (a record keeps no line number or diagnostics in the comparison)."""
        if isinstance(other, Record):
            return self._canonical_bytes() == other._canonical_bytes()
        return NotImplemented

    def __hash__(self) -> int:
        """The hash of the canonical text, so equal records hash alike and
        `set(records)` keeps one of each. A record is mutable: one that is
        changed while it is a set member or a dict key is lost there (take
        `rec.copy()` or `str(rec)` as the key)."""
        return hash(self._canonical_bytes())

    def __reduce__(self) -> Tuple[Any, Tuple[str, int, List[Diagnostic]]]:
        # The canonical text, read back leniently (so a record that was
        # read leniently comes back too), with its line and diagnostics.
        return (_record_from, (self.canonical(), self.line, list(self.diagnostics)))

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Record":
        return self.copy()

    def __len__(self) -> int:
        n = c_size_t()
        _check(_c.record_operation_count(self._p, byref(n)))
        return n.value

    def _opcode(self, i: int) -> str:
        buf = ctypes.create_string_buffer(16)
        _check(_c.record_opcode(self._p, i, buf, 16))
        return buf.value.decode()

    def __iter__(self) -> Iterator[str]:
        return iter([self._opcode(i) for i in range(len(self))])

    def _snapshot(self) -> Dict[str, List[Operand]]:
        """Every opcode and its operands, read under the lock in one go."""
        out: Dict[str, List[Operand]] = {}
        for op in range(len(self)):
            out.setdefault(self._opcode(op), [v for _, v in self._operands(op)])
        return out

    def keys(self) -> KeysView[str]:
        """The opcodes, in record order: a snapshot."""
        return self._snapshot().keys()

    def items(self) -> ItemsView[str, List[Operand]]:
        """(opcode, operands) pairs, in record order: a snapshot taken
        under the record's lock, so `dict(rec.items())` is one state of
        the record even while another thread changes it."""
        return self._snapshot().items()

    def values(self) -> ValuesView[List[Operand]]:
        """The operand lists, in record order: a snapshot."""
        return self._snapshot().values()

    def pop(self, opcode: str, default: Any = _MISSING) -> Any:
        """Removes `opcode` and returns its operands; `default` (or
        KeyError) when it is absent."""
        i = self._index(opcode)
        if i is None:
            if default is _MISSING:
                raise KeyError(opcode)
            return default
        value = [v for _, v in self._operands(i)]
        self.remove(opcode)
        return value

    def popitem(self) -> Tuple[str, List[Operand]]:
        """Removes and returns the last operation (KeyError when none)."""
        n = len(self)
        if n == 0:
            raise KeyError("popitem(): the record has no operation")
        opcode = self._opcode(n - 1)
        return opcode, self.pop(opcode)

    def setdefault(self, opcode: str, default: Any = None) -> Any:
        """The operands of `opcode`; when absent, sets it to `default`
        first (None sets nothing and gives None)."""
        i = self._index(opcode)
        if i is not None:
            return [v for _, v in self._operands(i)]
        if default is None:
            return None
        self[opcode] = default
        return self[opcode]

    def update(self, other: Any = (), /, **kwds: Any) -> None:
        """Sets each opcode of `other` (a mapping or (opcode, operands)
        pairs) and of the keyword arguments, in order, under the lock."""
        pairs = other.items() if isinstance(other, Mapping) else other
        for k, v in pairs:
            self[k] = v
        for k, v in kwds.items():
            self[k] = v

    def clear(self) -> None:
        """Removes every operation (the position stays)."""
        for opcode in list(self):
            self.remove(opcode)

    def _index(self, opcode: str) -> Optional[int]:
        if not isinstance(opcode, str):
            raise TypeError(f"an opcode must be str, not {type(opcode).__name__}")
        i = c_size_t()
        status = _c.record_find(self._p, opcode.encode(), byref(i))
        if status == _c.NOT_FOUND:
            return None
        _check(status)
        return i.value

    def __contains__(self, opcode: object) -> bool:
        return isinstance(opcode, str) and self._index(opcode) is not None

    def __getitem__(self, opcode: str) -> List[Operand]:
        i = self._index(opcode)
        if i is None:
            raise KeyError(opcode)
        return [v for _, v in self._operands(i)]

    def _operands(self, op: int) -> List[Tuple[str, Operand]]:
        n = c_size_t()
        _check(_c.record_operand_count(self._p, op, byref(n)))
        return [self._operand(op, i) for i in range(n.value)]

    def _operand(self, op: int, i: int) -> Tuple[str, Operand]:
        p = self._p
        kind = c_int()
        _check(_c.record_operand_kind(p, op, i, byref(kind)))
        name = _KINDS.get(kind.value, "raw")
        if name == "integer":
            v = _c.Int64()
            _check(_c.record_operand_integer(p, op, i, byref(v)))
            return name, (int(v.hi) << 32) | int(v.lo)
        if name == "float":
            x = c_double()
            _check(_c.record_operand_float(p, op, i, byref(x)))
            return name, float(x.value)
        if name == "date":
            d = _c.Date()
            _check(_c.record_operand_date(p, op, i, byref(d)))
            return name, datetime.date(d.year, d.month, d.day)
        if name == "time":
            t = _c.Time()
            _check(_c.record_operand_time(p, op, i, byref(t)))
            return name, datetime.time(t.hour, t.minute, t.second)
        if name == "clock":
            c = _c.Clock()
            _check(_c.record_operand_clock(p, op, i, byref(c)))
            return name, datetime.timedelta(days=c.days, hours=c.hours, minutes=c.minutes, seconds=c.seconds)
        text = c_void_p()
        n = c_size_t()
        _check(_c.record_operand_text(p, op, i, byref(text), byref(n)))
        value = ctypes.string_at(text, n.value).decode("utf-8", "replace") if n.value else ""
        return name, Unquoted(value) if name in ("raw", "identifier") else value

    def operations(self) -> List[Operation]:
        """Every operation in record order, with operands and their kinds."""
        out = []
        for op in range(len(self)):
            typed = self._operands(op)
            out.append(Operation(self._opcode(op), tuple(v for _, v in typed), tuple(k for k, _ in typed)))
        return out

    def __setitem__(self, opcode: str, value: Any) -> None:
        """Sets an operation, replacing any with that opcode: moves (am bm
        pm pv sm) from SAN text or a list of SAN; an int; a str (a string,
        or an identifier for refcom/refreq); a list of str for several
        string operands."""
        if not isinstance(opcode, str):
            raise TypeError(f"an opcode must be str, not {type(opcode).__name__}")
        op = opcode.encode()
        p = self._p
        if opcode in _MOVE_OPS:
            if isinstance(value, str):
                text = value
            elif isinstance(value, (list, tuple)) and all(isinstance(v, str) for v in value):
                text = " ".join(value)
            else:
                raise TypeError(f"{opcode} takes SAN moves (str or list of str)")
            data = text.encode()
            _check(_c.record_set_san(p, op, data, len(data), _c.LENIENT))
        elif isinstance(value, bool):
            raise TypeError(f"{opcode}: bool is not an operand")
        elif isinstance(value, int):
            _check(_c.record_set_integer(p, op, _int64(opcode, value)))
        elif isinstance(value, str) and opcode in _IDENT_OPS:
            _check(_c.record_set_identifier(p, op, value.encode()))
        elif isinstance(value, str):
            data = value.encode()
            _check(_c.record_set_string(p, op, data, len(data)))
        elif isinstance(value, (list, tuple)):
            # What the getter gives, the setter takes: a list of operands
            # of any kind (int, str, date, time, timedelta).
            ops = c_void_p()
            _check(_c.operands_new(byref(ops)))
            try:
                for v in value:
                    _push_operand(ops, opcode, v)
                _check(_c.record_set(p, op, ops))
            finally:
                _c.operands_free(ops)
        else:
            raise TypeError(f"{opcode}: cannot set an operand of type {type(value).__name__}")

    def __delitem__(self, opcode: str) -> None:
        if self.remove(opcode) == 0:
            raise KeyError(opcode)

    def remove(self, opcode: str) -> int:
        """Removes every operation with this opcode; returns how many. A
        removal the record refuses (sm while draw_offer or draw_claim needs
        it) raises EpdValueError with its code (E024)."""
        n = c_size_t()
        _check(_c.record_remove(self._p, opcode.encode(), byref(n)))
        return n.value

    @property
    def score(self) -> Optional[Score]:
        """ce as a Score, or None without ce."""
        ce = self.get("ce")
        return Score.from_ce(int(ce[0])) if ce else None  # type: ignore[arg-type]


@dataclass
class Invalid:
    """A line that is not a valid record: its 1-based `line`, its `text`
    as read (decoded as UTF-8, a byte that is not shown as U+FFFD), its
    `diagnostics` (at least one error), and `raw`, the line's exact bytes
    (without its newline), which `write` puts back."""

    line: int
    text: str
    diagnostics: List[Diagnostic]
    raw: bytes = b""

    def error(self, path: Optional[str] = None) -> InvalidRecordError:
        """The InvalidRecordError that `read` would have raised for this
        line (with `path`, if given, for its message)."""
        return InvalidRecordError("invalid record", self.diagnostics, path=path)


def _mode(mode: str) -> int:
    if mode == "strict":
        return _c.STRICT
    if mode == "lenient":
        return _c.LENIENT
    raise ValueError(f'mode must be "strict" or "lenient", not {mode!r}')


def parse(line: Text, *, mode: str = "strict") -> Record:
    """Reads one record (see Record.parse)."""
    return Record.parse(line, mode=mode)


def write(records: Iterable[Union[Record, Invalid, str]], target: Union[PathLike, IO[Any]]) -> int:
    """Writes records one a line, with "\\n": a Record as its canonical
    text, an Invalid as the line it was read from (so nothing read is
    lost), a str as it is. `target` is a path (created or truncated) or a
    file object, text or binary. Returns the number of lines written."""

    def lines() -> Iterator[bytes]:
        for item in records:
            if isinstance(item, Record):
                yield str(item).encode("utf-8")
            elif isinstance(item, Invalid):
                yield item.raw if item.raw or not item.text else item.text.encode("utf-8")
            elif isinstance(item, str):
                yield item.rstrip("\n").encode("utf-8")
            else:
                raise TypeError(f"write takes Records, Invalids and str, not {type(item).__name__}")

    count = 0
    if isinstance(target, (str, bytes, os.PathLike)):
        try:
            f = open(target, "wb")
        except OSError as e:
            raise _os_error(e) from None
        with f:
            for line in lines():
                f.write(line + b"\n")
                count += 1
        return count
    if not hasattr(target, "write"):
        raise TypeError(f"target must be a path or a file object, not {type(target).__name__}")
    binary = isinstance(target, (io.RawIOBase, io.BufferedIOBase)) or "b" in getattr(target, "mode", "")
    for line in lines():
        # A text file takes str: bytes that are not UTF-8 become U+FFFD.
        target.write(line + b"\n" if binary else line.decode("utf-8", "replace") + "\n")
        count += 1
    return count


# ---------------------------------------------------------------- reading

_CHUNK = 1 << 20
_MAX_LINE = 1 << 20


class _Batch:
    """Keeps a library batch alive while records point into it."""

    __slots__ = ("ptr", "_lock")
    ptr: Optional[c_void_p]

    def __init__(self, ptr: c_void_p) -> None:
        self.ptr = ptr

    def __del__(self) -> None:
        if self.ptr:
            _c.batch_free(self.ptr)
            self.ptr = None


def _chunks(source: Any) -> Iterator[bytes]:
    """Slices of whole lines from a path or a file object (binary or
    text); a line over 1 MiB is passed on cut, its rest skipped."""
    if isinstance(source, (str, bytes, os.PathLike)):
        try:
            f = open(source, "rb")
        except OSError as e:
            raise _os_error(e) from None
        with f:
            yield from _chunks_of(f)
        return
    if not hasattr(source, "read"):
        raise TypeError(f"read() takes a path or a file object, not {type(source).__name__}")
    yield from _chunks_of(source)


def _chunks_of(f: Any) -> Iterator[bytes]:
    pending = b""
    skipping = False
    while True:
        block = f.read(_CHUNK)
        if isinstance(block, str):
            block = block.encode("utf-8")
        if not block:
            break
        if skipping:
            nl = block.find(b"\n")
            if nl < 0:
                continue
            block = block[nl + 1 :]
            skipping = False
        data = pending + block
        cut = data.rfind(b"\n")
        if cut < 0:
            pending = data
        else:
            yield data[: cut + 1]
            pending = data[cut + 1 :]
        if len(pending) > _MAX_LINE:
            # An over-long line: the library reports it (E020); its rest
            # up to the next newline is not read into memory.
            yield pending + b"\n"
            pending = b""
            skipping = True
    if pending:
        yield pending


@overload
def read(
    source: Union[PathLike, IO[Any]], *, mode: str = ..., errors: Literal["raise"] = "raise"
) -> Iterator[Record]: ...


@overload
def read(
    source: Union[PathLike, IO[Any]], *, mode: str = ..., errors: Literal["yield"]
) -> Iterator[Union[Record, Invalid]]: ...


def read(
    source: Union[PathLike, IO[Any]], *, mode: str = "strict", errors: str = "raise"
) -> Iterator[Union[Record, Invalid]]:
    """Reads the records of a file (a path, or a file object open in text or
    binary mode), in order, in bounded memory. Each Record has its `line`
    and its `diagnostics` (warnings). Blank lines are skipped.

    A line with errors raises InvalidRecordError (with the path, line,
    column and code of its first error) when `errors="raise"` (the
    default); with `errors="yield"` it is yielded as an Invalid, so no line
    is lost. `mode="lenient"` accepts what the specification's readers
    tolerate (see `epd repair`).
    """
    flag = _mode(mode)
    if errors not in ("raise", "yield"):
        raise ValueError(f'errors must be "raise" or "yield", not {errors!r}')
    path = os.fsdecode(source) if isinstance(source, (str, bytes, os.PathLike)) else getattr(source, "name", None)
    lines = 0
    entries_p = ctypes.POINTER(_c.BatchEntry)()
    count = c_size_t()
    d = _c.Diagnostic()
    for chunk in _chunks(source):
        ptr = c_void_p()
        _check(_c.batch_parse(chunk, len(chunk), flag, lines, byref(ptr)))
        batch = _Batch(ptr)
        lines += chunk.count(b"\n") + (0 if chunk.endswith(b"\n") else 1)
        _check(_c.batch_entries(ptr, byref(entries_p), byref(count)))
        n = count.value
        if n == 0:
            continue
        entries = ctypes.cast(entries_p, ctypes.POINTER(_c.BatchEntry * n)).contents
        new = Record.__new__
        for i, e in enumerate(entries):
            if not e.errors:
                rec = new(Record)
                rec._ptr = None
                rec._owner = batch
                rec._slot = i
                rec.line = e.line
                rec.diagnostics = _batch_diags(ptr, e, d) if e.diagnostics else []
                yield rec
                continue
            text_p = c_void_p()
            tn = c_size_t()
            _check(_c.batch_text(ptr, i, byref(text_p), byref(tn)))
            raw = ctypes.string_at(text_p, tn.value) if tn.value else b""
            raw = raw[:-1] if raw.endswith(b"\r") else raw
            bad = Invalid(int(e.line), raw.decode("utf-8", "replace"), _batch_diags(ptr, e, d), raw)
            if errors == "raise":
                raise bad.error(path)
            yield bad


def _batch_diags(ptr: c_void_p, e: _c.BatchEntry, d: _c.Diagnostic) -> List[Diagnostic]:
    out = []
    for k in range(e.first_diagnostic, e.first_diagnostic + e.diagnostics):
        _check(_c.batch_diagnostic(ptr, k, byref(d)))
        out.append(Diagnostic._from_c(d))
    return out
