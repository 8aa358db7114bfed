"""epdkit: EPD (Extended Position Description) records, positions, files,
verbs, engines and reports, over libepdkit, the C library of EPD Kit.

    >>> import epdkit
    >>> rec = epdkit.parse('2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;')
    >>> rec["bm"]
    ['Qg6']
    >>> str(rec)
    '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";'
    >>> import io
    >>> suite = io.StringIO('4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "castle";\\n')  # or a path
    >>> for rec in epdkit.read(suite):
    ...     print(rec.line, rec.id, rec.bm, rec.position.legal_san[:3])
    1 castle ['O-O'] ['Kd1', 'Kf1', 'Kd2']

The package is a client of the library's C ABI (include/epdkit.h) through
ctypes: every rule lives in the library, none is repeated here. The wheel
carries the library; nothing else is needed at run time.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import contextlib
import ctypes
import datetime
import errno
import functools
import io
import threading
import json
import os
import queue
import re
import shutil
import stat
from ctypes import byref, c_char_p, c_double, c_int, c_long, c_size_t, c_uint, c_ulong, c_void_p
from dataclasses import dataclass, field
from typing import (
    IO,
    TYPE_CHECKING,
    Any,
    Callable,
    Dict,
    ItemsView,
    Iterable,
    Iterator,
    KeysView,
    List,
    Literal,
    Mapping,
    MutableMapping,
    Optional,
    Sequence,
    Tuple,
    Union,
    ValuesView,
    cast,
    overload,
)

from . import _ffi as _c

if TYPE_CHECKING:  # python-chess, for the bridge's types only (never imported at run time unless used)
    import chess

__all__ = [
    "AnalysisInfo",
    "AnalysisSummary",
    "Diagnostic",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "EpdError",
    "EpdFileNotFoundError",
    "EpdIOError",
    "EpdIsADirectoryError",
    "EpdPermissionError",
    "EpdValueError",
    "FenError",
    "Invalid",
    "MoveList",
    "InvalidRecordError",
    "MateSummary",
    "MoveError",
    "Operation",
    "PgnSummary",
    "Position",
    "Record",
    "Score",
    "SelectSummary",
    "Summary",
    "Unquoted",
    "analyze",
    "analyze_text",
    "check",
    "check_text",
    "diagnostic_codes",
    "from_pgn",
    "library_version",
    "mate",
    "mate_text",
    "normalize",
    "normalize_text",
    "parse",
    "perft",
    "purge",
    "purge_text",
    "read",
    "repair",
    "repair_text",
    "report",
    "select",
    "select_text",
    "target",
    "target_text",
    "write",
]

__version__ = "0.1.0"

PathLike = Union[str, "os.PathLike[str]"]
Text = Union[str, bytes]

# ---------------------------------------------------------------- threads
#
# ctypes lets go of the GIL during every library call, and the library's
# handles may not be used by two threads at once (include/epdkit.h). So
# each object that owns a handle serialises the calls on it with a lock of
# its own, made on first use: Position, Record, Engine, and the batch that
# records read by read() share. Locks are taken in one order only (an
# engine's, then a record's; a record's, then its batch's; a record's
# position while the record is made), and methods that compare two
# objects take each one's lock in turn, never both, so no two threads can
# wait on each other.

_LOCKS = threading.Lock()


def _lock_of(obj: Any) -> "threading.RLock":
    """The lock that serialises the calls on `obj`'s handle."""
    try:
        lock: "threading.RLock" = obj._lock
        return lock
    except AttributeError:
        with _LOCKS:
            try:
                lock = obj._lock
            except AttributeError:
                lock = threading.RLock()
                obj._lock = lock
            return lock


# Methods that touch no handle of their own or compare two objects (each
# takes the locks it needs one at a time).
_UNLOCKED = frozenset({"__init__", "__del__", "__eq__", "__ne__", "__hash__", "__init_subclass__"})


def _serialized(cls: Any) -> Any:
    """Runs every method and property of `cls` under the object's lock."""

    def locked(f: Any) -> Any:
        @functools.wraps(f)
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            with _lock_of(self):
                return f(self, *args, **kwargs)

        return run

    for name, value in list(vars(cls).items()):
        if name in _UNLOCKED:
            continue
        if isinstance(value, property):
            setattr(
                cls,
                name,
                property(
                    locked(value.fget) if value.fget else None,
                    locked(value.fset) if value.fset else None,
                    locked(value.fdel) if value.fdel else None,
                    value.__doc__,
                ),
            )
        elif callable(value) and not isinstance(value, (classmethod, staticmethod, type)):
            setattr(cls, name, locked(value))
    return cls


# ---------------------------------------------------------------- errors


class EpdError(Exception):
    """A failure reported by libepdkit.

    `status` is the library's status code (an EPD_STATUS_ value), `message`
    its detailed message; `path`, `line` and `column` (1-based, 0 when not
    known) and `code` (a diagnostic code such as "E012", or "") say where
    and what when the failure concerns a text.
    """

    def __init__(
        self,
        status: int,
        message: str,
        *,
        path: Optional[str] = None,
        line: int = 0,
        column: int = 0,
        code: str = "",
    ) -> None:
        self.status = status
        self.message = message
        self.path = path
        self.line = line
        self.column = column
        self.code = code
        where = ":".join(str(x) for x in (path, line or None, column or None) if x)
        prefix = f"{where}: " if where else ""
        kind = f"error[{code}]: " if code else ""
        super().__init__(f"{prefix}{kind}{message}")


class InvalidRecordError(EpdError, ValueError):
    """A record with errors; `diagnostics` lists them all (warnings too)."""

    def __init__(self, message: str, diagnostics: List["Diagnostic"], *, path: Optional[str] = None) -> None:
        first = next((d for d in diagnostics if d.severity == "error"), None)
        super().__init__(
            _c.INVALID_RECORD,
            first.message if first else message,
            path=path,
            line=first.line if first else 0,
            column=first.column if first else 0,
            code=first.code if first else "",
        )
        self.diagnostics = diagnostics


class EpdValueError(EpdError, ValueError):
    """A value the library refuses: an operand out of its range or of the
    wrong kind for its opcode, an argument it does not take."""


class FenError(EpdError, ValueError):
    """A FEN or EPD position that does not read or is not legal."""


class MoveError(EpdError, ValueError):
    """A move that does not read, is not legal or is ambiguous."""


class EpdIOError(EpdError, OSError):
    """A file that cannot be read or written. A missing file, a directory
    and a file without permission raise the subclasses that are also
    FileNotFoundError, IsADirectoryError and PermissionError, with
    `errno`, `strerror` and `filename` set."""

    def __str__(self) -> str:
        # The kit's message (with the path), not OSError's "[Errno n]".
        return Exception.__str__(self)


class EpdFileNotFoundError(EpdIOError, FileNotFoundError):
    """A file that does not exist."""


class EpdIsADirectoryError(EpdIOError, IsADirectoryError):
    """A directory where a file was expected."""


class EpdPermissionError(EpdIOError, PermissionError):
    """A file that may not be read or written."""


_OS_CLASSES: Dict[int, "type[EpdIOError]"] = {
    errno.ENOENT: EpdFileNotFoundError,
    errno.EISDIR: EpdIsADirectoryError,
    errno.EACCES: EpdPermissionError,
    errno.EPERM: EpdPermissionError,
}


def _io_error(message: str, number: Optional[int], filename: Any = None) -> EpdIOError:
    """An EpdIOError (or the subclass the errno calls for) with `errno`,
    `strerror` and `filename` set."""
    cls = _OS_CLASSES.get(number, EpdIOError) if number is not None else EpdIOError
    e = cls(_c.IO, message)
    if number is not None:
        e.errno = number
        e.strerror = os.strerror(number)
    if filename is not None:
        e.filename = os.fsdecode(filename) if isinstance(filename, (bytes, os.PathLike)) else filename
    return e


def _os_error(e: OSError) -> EpdIOError:
    """A Python OSError as the kit's."""
    name = e.filename if e.filename is not None else "?"
    return _io_error(f"cannot open {os.fsdecode(name) if isinstance(name, bytes) else name}: {e.strerror}",
                     e.errno, e.filename)


class EngineError(EpdError, RuntimeError):
    """An engine that cannot be started or gives no analysis."""


class EngineTerminatedError(EngineError):
    """The engine's program exited (killed, crashed) before the call or
    during it, as python-chess's EngineTerminatedError. The call that
    meets it raises this; the next call on the Engine starts the program
    again, in a new game."""


_CLASSES = {
    _c.INVALID_ARGUMENT: EpdValueError,
    _c.REFUSED: EpdValueError,
    _c.OUT_OF_RANGE: EpdValueError,
    _c.FEN_SYNTAX: FenError,
    _c.ILLEGAL_POSITION: FenError,
    _c.SAN_SYNTAX: MoveError,
    _c.ILLEGAL_MOVE: MoveError,
    _c.AMBIGUOUS_MOVE: MoveError,
    _c.NOT_CANONICAL: MoveError,
    _c.IO: EpdIOError,
    _c.ENGINE: EngineError,
    _c.ENGINE_TERMINATED: EngineTerminatedError,
}


def _error(status: int, filename: Any = None) -> EpdError:
    raw = _c.last_error_message()
    message = raw.decode("utf-8", "replace") if raw else _c.status_message(status).decode()
    if status == _c.IO:
        # The library's message ends with the system's "(os error N)".
        found = re.search(r"\(os error (\d+)\)", message)
        return _io_error(message, int(found.group(1)) if found else None, filename)
    cls = _CLASSES.get(status, EpdError)
    code = (_c.last_error_code() or b"").decode("ascii", "replace")
    return cls(status, message, column=int(_c.last_error_column()), code=code)


def _check(status: int) -> None:
    if status != _c.OK:
        raise _error(status)


_CALLS_LOCK = threading.Lock()
_CALLS: Optional[Tuple[int, "queue.SimpleQueue[Callable[[], None]]"]] = None


def _calls() -> "queue.SimpleQueue[Callable[[], None]]":
    """The queue of the thread that runs the main thread's library calls
    for _interruptible: one daemon thread, started on first use (and
    again in a forked child, where it does not exist), so a call costs a
    hand-over and not a thread's start (about 1 ms here: 200 analyses at
    nodes=1 took 5x python-chess's time)."""
    global _CALLS
    current = _CALLS
    if current is not None and current[0] == os.getpid():
        return current[1]
    with _CALLS_LOCK:
        if _CALLS is None or _CALLS[0] != os.getpid():
            jobs: "queue.SimpleQueue[Callable[[], None]]" = queue.SimpleQueue()

            def serve() -> None:
                while True:
                    jobs.get()()

            threading.Thread(target=serve, name="epdkit-call", daemon=True).start()
            _CALLS = (os.getpid(), jobs)
        return _CALLS[1]


def _interruptible(call: Callable[[], int], cancel: c_void_p) -> None:
    """Runs `call` (a library call that returns a status) and raises its
    error, if any, so that Ctrl-C can end it.

    Python handles SIGINT only on the main thread and only between
    bytecodes, never during a library call. So on the main thread the call
    runs on a worker thread (one, kept: _calls) while the main thread waits for it: on
    KeyboardInterrupt the `cancel` flag (an epd_cancel the call watches)
    is raised, the call is waited for (it stops within the engine's reply
    to `stop`, having written the records it finished), and
    KeyboardInterrupt is raised again. The main thread never leaves while
    the call runs, so nothing it then does (closing the engine, say) can
    meet the call. Elsewhere the call runs on the calling thread.
    """
    if threading.current_thread() is not threading.main_thread():
        _check(call())
        return
    outcome: List[Optional[BaseException]] = []
    # Released by the worker when the call has returned. (Not Thread.join:
    # a join interrupted by Ctrl-C may take a running thread for ended.)
    done = threading.Lock()
    done.acquire()

    def work() -> None:
        try:
            status = call()
            # The last error is per thread: read it on this one.
            outcome.append(None if status == _c.OK else _error(status))
        except BaseException as e:  # handed to the main thread
            outcome.append(e)
        finally:
            done.release()

    interrupted = False
    try:
        _calls().put(work)
    except KeyboardInterrupt:
        # Ctrl-C while the call was being handed over: it may or may not
        # run; with the flag raised, a call that begins ends at once.
        _c.cancel_raise(cancel)
        done.acquire(timeout=10)
        raise
    while not outcome:
        try:
            done.acquire(timeout=0.25)
        except KeyboardInterrupt:
            interrupted = True
            _c.cancel_raise(cancel)
    if interrupted:
        raise KeyboardInterrupt
    if outcome[0] is not None:
        raise outcome[0]


def _with_cancel(
    call: Callable[[c_void_p], int], watch: Optional[Callable[[Optional[c_void_p]], int]] = None
) -> None:
    """Runs `call`, given a cancel flag of its own, so that Ctrl-C ends it
    (see _interruptible). A library call that takes the flag as an argument
    gets it there; one that watches a flag set on a handle gets it through
    `watch`, which is given None again after the call."""
    cancel = c_void_p()
    _check(_c.cancel_new(byref(cancel)))
    try:
        if watch is not None:
            _check(watch(cancel))
        try:
            _interruptible(lambda: call(cancel), cancel)
        finally:
            if watch is not None:
                watch(None)
    finally:
        _c.cancel_free(cancel)


def _run_config(
    set_cancel: Callable[[c_void_p, Optional[c_void_p]], int],
    cfg: c_void_p,
    call: Callable[[], int],
    collector: Any,
) -> None:
    """Runs `call`, a file run of the configuration `cfg`, so that Ctrl-C
    ends it between two records (see _interruptible), the records before
    written: with a cancel flag of its own, set on `cfg` by `set_cancel`.
    An exception the report callback raised comes first."""
    try:
        _with_cancel(lambda _: call(), lambda c: set_cancel(cfg, c))
    except EpdError:
        if collector.error is not None:
            raise collector.error
        raise
    if collector.error is not None:
        raise collector.error


def _bytes(text: Any, what: str = "text") -> bytes:
    if isinstance(text, bytes):
        return text
    if isinstance(text, str):
        return text.encode("utf-8")
    raise TypeError(f"{what} must be str or bytes, not {type(text).__name__}")


def _take(p: c_void_p, length: Optional[int] = None) -> bytes:
    """Copies and frees an owned string from the library."""
    try:
        return ctypes.string_at(p, length) if length is not None else ctypes.string_at(p)
    finally:
        _c.string_free(p)


def _path(p: Any, what: str = "path") -> bytes:
    if isinstance(p, (str, bytes, os.PathLike)):
        return os.fsencode(p)
    raise TypeError(f"{what} must be a path, not {type(p).__name__}")


def _input(p: Any, what: str = "input") -> bytes:
    """A path to read: one that cannot be opened raises the EpdIOError
    subclass its errno calls for (FileNotFoundError, IsADirectoryError,
    PermissionError), with `errno` and `filename`, before the library runs."""
    path = _path(p, what)
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
            with open(path, "rb"):  # a directory raises IsADirectoryError
                pass
        elif not os.access(path, os.R_OK):
            # A pipe or a device is not opened here: a named pipe's writer
            # would meet this open and close, not the library's.
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), path)
    except OSError as e:
        raise _os_error(e) from None
    return path


def library_version() -> str:
    """The version of the loaded libepdkit ("0.1.0")."""
    return str(_c.version().decode())


# ----------------------------------------------------------- diagnostics


@dataclass(frozen=True)
class Diagnostic:
    """One finding about a record: where (1-based line and column), how
    serious ("error" or "warning"), its stable code ("E012") and what."""

    severity: str
    code: str
    line: int
    column: int
    message: str
    opcode: Optional[str] = None
    operand: Optional[int] = None

    @staticmethod
    def _from_c(d: _c.Diagnostic) -> "Diagnostic":
        return Diagnostic(
            "error" if d.severity == 1 else "warning",
            d.code_text.decode(),
            int(d.line),
            int(d.column),
            d.message.decode("utf-8", "replace") if d.message else "",
            d.opcode.decode() if d.opcode else None,
            None if d.operand < 0 else int(d.operand),
        )

    def __str__(self) -> str:
        return f"{self.line}:{self.column}: {self.severity}[{self.code}]: {self.message}"

    @property
    def summary(self) -> str:
        """One line on what the code means, from the library's code table
        ("" for a code the table does not have)."""
        return diagnostic_codes().get(self.code, "")


@functools.lru_cache(maxsize=None)
def _code_table() -> Tuple[Tuple[str, str], ...]:
    n = c_size_t()
    _check(_c.code_count(byref(n)))
    table = []
    for i in range(n.value):
        code, summary = c_char_p(), c_char_p()
        _check(_c.code_at(i, byref(code), byref(summary)))
        table.append(((code.value or b"").decode(), (summary.value or b"").decode("utf-8", "replace")))
    return tuple(table)


def diagnostic_codes() -> Dict[str, str]:
    """Every diagnostic code the library gives ("E001" .. "E035" for
    records, "P001" .. "P011" for perft suites and PGN), each with one
    line on what it means: the library's own table, as `epd explain` and
    docs/diagnostics.md give it. Codes are strings: the P codes share
    their numbers with E codes (P010 and E010 are both 10).

    >>> diagnostic_codes()["E012"]
    'pm is not the first move of pv'
    >>> [c for c in diagnostic_codes() if c.startswith("P01")]
    ['P010', 'P011']
    """
    return dict(_code_table())


@functools.lru_cache(maxsize=None)
def _pgn_code(error: bool) -> str:
    """The code of a PGN problem: P010 for an error, P011 for a warning
    (from the library, as `epd from-pgn` prints them)."""
    code = c_char_p()
    _check(_c.pgn_code(1 if error else 0, byref(code)))
    return (code.value or b"").decode()


def _diagnostics(handle: c_void_p) -> List[Diagnostic]:
    n = c_size_t()
    _check(_c.diagnostics_count(handle, byref(n)))
    d = _c.Diagnostic()
    out = []
    for i in range(n.value):
        _check(_c.diagnostics_get(handle, i, byref(d)))
        out.append(Diagnostic._from_c(d))
    return out


# ------------------------------------------------------------ positions

_SQUARES = [f + r for r in "12345678" for f in "abcdefgh"]
_PIECE = " pnbrqk"
_STATUS = ["check", "checkmate", "stalemate", "insufficient_material", "fifty_moves", "seventy_five_moves"]
_UCI = re.compile(r"^[a-h][1-8][a-h][1-8][qrbn]?$")


class MoveList(List[str]):
    """The legal moves of a position: a list of str, which may also be
    called (`pos.legal_moves()`, as before the property) to get itself."""

    def __call__(self) -> "MoveList":
        return self


@_serialized
class Position:
    """A legal chess position, with the moves played on it (for `pop`).

    `Position()` is the start position; `Position(fen)` reads a FEN (six
    fields) or the four EPD position fields. Equal positions compare equal
    (by FEN).
    """

    __slots__ = ("_ptr", "_stack", "_lock")
    _ptr: Optional[c_void_p]

    def __init__(self, fen: Optional[Text] = None, *, lenient: bool = False) -> None:
        ptr = c_void_p()
        if fen is None:
            _check(_c.position_new(byref(ptr)))
        else:
            data = _bytes(fen, "fen")
            status = _c.position_from_fen(data, len(data), _c.LENIENT if lenient else _c.STRICT, byref(ptr))
            if status != _c.OK:
                e = _error(status)
                raise FenError(e.status, e.message, column=e.column)
        self._ptr = ptr
        self._stack: List[Tuple[c_void_p, str]] = []

    @classmethod
    def _adopt(cls, ptr: c_void_p) -> "Position":
        self = cls.__new__(cls)
        self._ptr = ptr
        self._stack = []
        return self

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            _c.position_free(ptr)
            self._ptr = None
        for p, _ in getattr(self, "_stack", ()):
            _c.position_free(p)
        self._stack = []

    def _clone_ptr(self) -> c_void_p:
        out = c_void_p()
        _check(_c.position_clone(self._ptr, byref(out)))
        return out

    def copy(self) -> "Position":
        """An independent copy (without the moves played, so `pop` on it
        raises IndexError)."""
        return Position._adopt(self._clone_ptr())

    __copy__ = copy

    @property
    def fen(self) -> str:
        """The six FEN fields."""
        out = c_void_p()
        _check(_c.position_fen(self._ptr, byref(out)))
        return _take(out).decode()

    @property
    def epd(self) -> str:
        """The four EPD position fields."""
        out = c_void_p()
        _check(_c.position_epd(self._ptr, byref(out)))
        return _take(out).decode()

    def __str__(self) -> str:
        return self.fen

    def __repr__(self) -> str:
        return f"Position({self.fen!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Position) and self.fen == other.fen

    def __hash__(self) -> int:
        """The hash of the FEN, so equal positions hash alike and a set
        of positions keeps one of each. A position is mutable: one that
        is pushed or popped while it is a set member or a dict key is
        lost there (take `pos.copy()` or `pos.fen` as the key)."""
        return hash(self.fen)

    def __reduce__(self) -> Tuple[Any, Tuple[str, List[str]]]:
        # The position before the moves pushed, and the moves: a pickled
        # (or deep-copied) position can still pop them.
        root = self._stack[0][0] if self._stack else self._ptr
        out = c_void_p()
        _check(_c.position_fen(root, byref(out)))
        return (_position_from, (_take(out).decode(), [san for _, san in self._stack]))

    def __deepcopy__(self, memo: Dict[int, Any]) -> "Position":
        fen, moves = self.__reduce__()[1]
        return _position_from(fen, moves)

    @property
    def turn(self) -> str:
        """The side to move: "white" or "black"."""
        c = c_int()
        _check(_c.position_turn(self._ptr, byref(c)))
        return "white" if c.value == 0 else "black"

    @property
    def halfmove_clock(self) -> int:
        """Plies since the last capture or pawn move (FEN's fifth field;
        0 for a position read from EPD's four fields).

        >>> Position("4k3/8/8/8/8/8/8/4K2R w K - 12 40").halfmove_clock
        12
        """
        h = c_ulong()
        _check(_c.position_counters(self._ptr, byref(h), None))
        return int(h.value)

    @property
    def fullmove_number(self) -> int:
        """The number of the move about to be played (FEN's sixth field;
        1 for a position read from EPD's four fields), counted on after
        each of Black's moves.

        >>> p = Position(); _ = p.push("e4"); _ = p.push("e5"); p.fullmove_number
        2
        """
        f = c_ulong()
        _check(_c.position_counters(self._ptr, None, byref(f)))
        return int(f.value)

    def piece_at(self, square: Union[str, int]) -> Optional[str]:
        """The piece on `square` ("e4" or 0 = a1 .. 63 = h8) as its FEN
        letter ("P" white pawn, "k" black king), or None if empty."""
        if isinstance(square, str):
            if square not in _SQUARES:
                raise ValueError(f"not a square: {square!r}")
            index = _SQUARES.index(square)
        elif isinstance(square, int) and not isinstance(square, bool) and 0 <= square < 64:
            index = square
        else:
            raise ValueError(f"not a square: {square!r}")
        p = _c.Piece()
        _check(_c.position_piece_at(self._ptr, index, byref(p)))
        if p.role == 0:
            return None
        letter = _PIECE[p.role]
        return letter.upper() if p.color == 0 else letter

    def pieces(self) -> Dict[str, str]:
        """Every piece by square name: {"e1": "K", "e8": "k", ...}."""
        out = {}
        p = _c.Piece()
        for i, name in enumerate(_SQUARES):
            _check(_c.position_piece_at(self._ptr, i, byref(p)))
            if p.role:
                letter = _PIECE[p.role]
                out[name] = letter.upper() if p.color == 0 else letter
        return out

    def _moves(self) -> List[_c.Move]:
        moves = (_c.Move * 256)()
        n = c_size_t()
        _check(_c.position_legal_moves(self._ptr, moves, 256, byref(n)))
        return [moves[i] for i in range(n.value)]

    def _uci_of(self, m: _c.Move) -> str:
        out = c_void_p()
        _check(_c.position_uci(self._ptr, m, byref(out)))
        return _take(out).decode()

    def _san_of(self, m: _c.Move) -> str:
        out = c_void_p()
        _check(_c.position_san(self._ptr, m, byref(out)))
        return _take(out).decode()

    @property
    def legal_moves(self) -> "MoveList":
        """The legal moves in UCI notation ("e2e4", "e7e8q", "e1g1"), as a
        list: `for m in pos.legal_moves`, `len(pos.legal_moves)`, `"e2e4"
        in pos.legal_moves` (calling it, `pos.legal_moves()`, gives the
        same list)."""
        return MoveList(self._uci_of(m) for m in self._moves())

    @property
    def legal_san(self) -> "MoveList":
        """The legal moves in canonical SAN, with check marks (a list, as
        `legal_moves`)."""
        return MoveList(self._san_of(m) for m in self._moves())

    def _parse(self, move: Union[str, "chess.Move"], lenient: bool = True) -> _c.Move:
        if not isinstance(move, str):
            move = _uci_of_move(move)
        data = move.encode()
        m = _c.Move()
        if _UCI.match(move):
            status = _c.position_parse_uci(self._ptr, data, len(data), byref(m))
            if status == _c.OK:
                return m
        status = _c.position_parse_san(self._ptr, data, len(data), _c.LENIENT if lenient else _c.STRICT, byref(m))
        if status != _c.OK:
            e = _error(status)
            raise MoveError(e.status, f"{move!r}: {e.message}", column=e.column)
        return m

    def san(self, move: Union[str, "chess.Move"]) -> str:
        """The canonical SAN of a legal move given in UCI or SAN."""
        return self._san_of(self._parse(move))

    def uci(self, move: Union[str, "chess.Move"]) -> str:
        """The UCI text of a legal move given in SAN or UCI."""
        return self._uci_of(self._parse(move))

    def is_legal(self, move: Union[str, "chess.Move"]) -> bool:
        """Whether `move` (UCI or SAN) is legal here."""
        try:
            self._parse(move)
        except MoveError:
            return False
        return True

    def is_capture(self, move: Union[str, "chess.Move"]) -> bool:
        """Whether the legal move `move` (UCI or SAN) takes a piece (en
        passant included). Raises MoveError for a move that is not legal.

        >>> Position("4k3/8/8/3p4/4P3/8/8/4K3 w - -").is_capture("exd5")
        True
        """
        c = c_int()
        _check(_c.position_is_capture(self._ptr, self._parse(move), byref(c)))
        return bool(c.value)

    def push(self, move: Union[str, "chess.Move"]) -> str:
        """Plays a legal move (UCI or SAN, or a python-chess `chess.Move`);
        returns its SAN. Raises MoveError, leaving the position unchanged,
        if it is not legal."""
        m = self._parse(move)
        san = self._san_of(m)
        before = self._clone_ptr()
        status = _c.position_play(self._ptr, m)
        if status != _c.OK:
            _c.position_free(before)
            _check(status)
        self._stack.append((before, san))
        return san

    def pop(self) -> str:
        """Takes back the last move played with `push`; returns its SAN.
        Raises IndexError when no move is left to take back."""
        if not self._stack:
            raise IndexError("pop from a position with no move played")
        before, san = self._stack.pop()
        _c.position_free(self._ptr)
        self._ptr = before
        return san

    @property
    def move_stack(self) -> List[str]:
        """The moves played with `push`, in SAN, oldest first."""
        return [san for _, san in self._stack]

    @classmethod
    def from_board(cls, board: "chess.Board") -> "Position":
        """The position of a python-chess `chess.Board`, with its moves
        (replayed from the board's root, so `pop` takes them back).
        Needs python-chess only to have made the board."""
        root = board.root()
        pos = cls(root.fen(en_passant="fen"))
        for m in board.move_stack:
            pos.push(m)
        return pos

    def to_board(self) -> "chess.Board":
        """A python-chess `chess.Board` of this position, with the moves
        pushed on it (needs python-chess installed: `pip install chess`)."""
        pc = _python_chess()
        root = self.fen if not self._stack else Position._adopt(_clone(self._stack[0][0])).fen
        board: "chess.Board" = pc.Board(root)
        for san in self.move_stack:
            board.push_san(san)
        return board

    def _flags(self) -> int:
        f = c_uint()
        _check(_c.position_status(self._ptr, byref(f)))
        return int(f.value)

    @property
    def status(self) -> List[str]:
        """The flags that hold: "check", "checkmate", "stalemate",
        "insufficient_material", "fifty_moves", "seventy_five_moves"."""
        f = self._flags()
        return [name for bit, name in enumerate(_STATUS) if f & (1 << bit)]

    def is_check(self) -> bool:
        """The side to move is in check."""
        return bool(self._flags() & 1)

    def is_checkmate(self) -> bool:
        """The side to move is in check and has no legal move.

        >>> Position("6k1/5ppp/8/8/8/8/8/R5K1 w - -").is_checkmate()
        False
        >>> Position("R5k1/5ppp/8/8/8/8/8/6K1 b - -").is_checkmate()
        True
        """
        return bool(self._flags() & 2)

    def is_stalemate(self) -> bool:
        """The side to move is not in check and has no legal move."""
        return bool(self._flags() & 4)

    def is_insufficient_material(self) -> bool:
        """Neither side has the material to mate (FIDE's dead positions
        by material: bare kings, a lone minor piece, bishops all on one
        colour)."""
        return bool(self._flags() & 8)

    def is_fifty_moves(self) -> bool:
        """The fifty-move rule can be claimed (halfmove clock >= 100)."""
        return bool(self._flags() & 16)

    def is_game_over(self) -> bool:
        """Checkmate, stalemate, insufficient material or the 75-move rule."""
        return bool(self._flags() & (2 | 4 | 8 | 32))


# --------------------------------------------------------------- scores


class Score:
    """A ce value with its meaning (section 6.7): centipawns, or a mate
    for or against the side to move, from the side to move's view.

    >>> Score.mate_in(3).ce
    32762
    >>> str(Score.from_ce(-32763))
    '#-2'
    >>> Score.mate_in(3).after_move()
    Score.mated_in(2)
    """

    __slots__ = ("_s",)
    _KINDS = ("centipawns", "mate_in", "mated_in", "checkmated", "illegal_position")

    def __init__(self, kind: int, value: int) -> None:
        if not isinstance(kind, int) or not isinstance(value, int):
            raise TypeError("Score(kind, value) takes two ints; see Score.centipawns, Score.mate_in, Score.from_ce")
        if not 0 <= kind < len(self._KINDS):
            raise ValueError(f"a Score's kind is from 0 to {len(self._KINDS) - 1} ({', '.join(self._KINDS)}), not {kind}")
        self._s = _c.Score(kind, value)

    @staticmethod
    def from_ce(ce: int) -> "Score":
        """The Score a ce value means (section 6.7): centipawns up to
        32000 either way, mates beyond. Raises EpdValueError outside
        -32768..32767.

        >>> Score.from_ce(32764)
        Score.mate_in(2)
        """
        s = _c.Score()
        _check(_c.score_from_ce(int(ce), byref(s)))
        return Score(s.kind, s.value)

    @staticmethod
    def centipawns(cp: int) -> "Score":
        """A UCI `score cp` value (clamped to the ce range)."""
        s = _c.Score()
        _check(_c.score_from_uci_cp(int(cp), byref(s)))
        return Score(s.kind, s.value)

    @staticmethod
    def mate_in(moves: int) -> "Score":
        """Mate in `moves` fullmoves for the side to move."""
        if moves < 1:
            raise ValueError("mate_in needs 1 or more moves")
        return Score._uci_mate(moves)

    @staticmethod
    def mated_in(moves: int) -> "Score":
        """The side to move is mated after `moves` of its own moves."""
        if moves < 1:
            raise ValueError("mated_in needs 1 or more moves")
        return Score._uci_mate(-moves)

    @staticmethod
    def _uci_mate(n: int) -> "Score":
        s = _c.Score()
        _check(_c.score_from_uci_mate(n, byref(s)))
        return Score(s.kind, s.value)

    @staticmethod
    def from_dm(dm: int) -> "Score":
        """The Score of a dm value: mate in `dm` moves for the side to move
        (dm is at least 1).

        >>> Score.from_dm(3) == Score.mate_in(3)
        True
        """
        s = _c.Score()
        _check(_c.score_from_dm(int(dm), byref(s)))
        return Score(s.kind, s.value)

    @property
    def kind(self) -> str:
        """"centipawns", "mate_in", "mated_in", "checkmated" or
        "illegal_position"."""
        return self._KINDS[self._s.kind]

    @property
    def value(self) -> int:
        """Centipawns or the mate distance in fullmoves (0 otherwise)."""
        return int(self._s.value)

    @property
    def ce(self) -> int:
        """The score as a ce value (section 6.7: mate in N is 32768 - 2N).

        >>> Score.centipawns(35).ce
        35
        """
        out = c_long()
        _check(_c.score_to_ce(self._s, byref(out)))
        return int(out.value)

    @property
    def dm(self) -> Optional[int]:
        """The dm of a mate for the side to move, else None."""
        out = c_ulong()
        status = _c.score_to_dm(self._s, byref(out))
        if status == _c.NOT_FOUND:
            return None
        _check(status)
        return int(out.value)

    def is_mate(self) -> bool:
        """A mate for either side, or the side to move checkmated."""
        return self.kind in ("mate_in", "mated_in", "checkmated")

    def to_uci(self) -> Tuple[str, int]:
        """("cp", centipawns) or ("mate", signed moves) as UCI reports it."""
        m = c_int()
        v = c_long()
        _check(_c.score_to_uci(self._s, byref(m), byref(v)))
        return ("mate" if m.value else "cp", int(v.value))

    def after_move(self) -> "Score":
        """The same evaluation from the other side, one ply later (mate in
        N becomes mated in N-1; mated in N becomes mate in N)."""
        s = _c.Score()
        _check(_c.score_after_move(self._s, byref(s)))
        return Score(s.kind, s.value)

    def __neg__(self) -> "Score":
        return self.after_move()

    def __str__(self) -> str:
        out = c_void_p()
        _check(_c.score_format(self._s, byref(out)))
        return _take(out).decode()

    def __repr__(self) -> str:
        k = self.kind
        if k in ("checkmated", "illegal_position"):
            return f"Score.from_ce({self.ce})"
        return f"Score.{k}({self.value})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Score) and self.ce == other.ce

    def __lt__(self, other: "Score") -> bool:
        return _rank(self) < _rank(other)

    def __hash__(self) -> int:
        return hash(self.ce)


def _rank(s: Score) -> float:
    """Orders scores from worst to best for the side to move."""
    k, v = s.kind, s.value
    if k == "illegal_position":
        return float("-inf")
    if k == "checkmated":
        return -1e9
    if k == "mated_in":
        return -1e9 + v
    if k == "mate_in":
        return 1e9 - v
    return float(v)


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


def _python_chess() -> Any:
    """python-chess, imported when a bridge method is used (never a
    dependency of epdkit: GPL, and not needed for anything else)."""
    try:
        import chess as module
    except ImportError as e:
        raise ImportError("this needs python-chess: pip install chess") from e
    return module


def _uci_of_move(move: Any) -> str:
    """A python-chess chess.Move (anything with .uci()) as UCI text."""
    uci = getattr(move, "uci", None)
    if not callable(uci) or not hasattr(move, "from_square"):
        raise TypeError(f"a move must be str or chess.Move, not {type(move).__name__}")
    text = uci()
    if not isinstance(text, str):
        raise TypeError(f"a move must be str or chess.Move, not {type(move).__name__}")
    return text


def _clone(ptr: c_void_p) -> c_void_p:
    out = c_void_p()
    _check(_c.position_clone(ptr, byref(out)))
    return out


def perft(position: Union[Position, Text, None], depth: int) -> int:
    """Perft: the leaf nodes of the legal move tree `depth` plies deep
    from `position` (a Position, FEN or EPD text, None for the start
    position), as `epd perft` counts them. Ctrl-C ends it.

    >>> perft(None, 3)
    8902
    """
    if not isinstance(depth, int) or isinstance(depth, bool):
        raise TypeError(f"depth must be an int, not {type(depth).__name__}")
    if not 0 <= depth <= 0xFFFFFFFF:
        raise ValueError("depth must be from 0 to 2**32 - 1")
    pos = position if isinstance(position, Position) else Position(position) if position is None else _position_of(position)
    nodes = _c.Int64()
    with _lock_of(pos):
        ptr = pos._ptr
        _with_cancel(lambda cancel: int(_c.position_perft(ptr, depth, cancel, byref(nodes))))
    return (int(nodes.hi) << 32) | int(nodes.lo)


def _position_from(fen: str, moves: List[str]) -> Position:
    """A pickled Position: its start and the moves pushed since."""
    pos = Position(fen, lenient=True)
    for m in moves:
        pos.push(m)
    return pos


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


# ------------------------------------------------------------------ verbs


@dataclass
class Summary:
    """Counts of a stream verb, and its diagnostics (the first
    `max_diagnostics`; `diagnostics_dropped` counts the rest)."""

    lines: int
    records: int
    invalid: int
    changed: int
    warnings: int
    errors: int
    diagnostics: List[Diagnostic] = field(default_factory=list)
    diagnostics_dropped: int = 0


_VERBS = {"check": 0, "normalize": 1, "purge": 2, "repair": 3}


class _Collector:
    def __init__(self, limit: int) -> None:
        self.found: List[Diagnostic] = []
        self.limit = limit
        self.dropped = 0
        self.error: Optional[BaseException] = None

        def report(_user: Any, diag: Any, _line: Any, _len: Any) -> int:
            try:
                if len(self.found) < self.limit:
                    self.found.append(Diagnostic._from_c(diag.contents))
                else:
                    self.dropped += 1
                return 0
            except BaseException as e:  # stop the run; re-raised after it
                self.error = e
                return 1

        self.callback = _c.REPORT(report)


def _verb_config(verb: str, mode: str, drop_invalid: bool, opcodes: Iterable[str], collector: _Collector) -> c_void_p:
    cfg = c_void_p()
    _check(_c.verb_config_new(_VERBS[verb], byref(cfg)))
    try:
        _check(_c.verb_config_set_mode(cfg, _mode(mode)))
        _check(_c.verb_config_set_drop_invalid(cfg, 1 if drop_invalid else 0))
        for opcode in opcodes:
            _check(_c.verb_config_add_purge_opcode(cfg, opcode.encode()))
        _check(_c.verb_config_set_reporter(cfg, collector.callback, None))
    except BaseException:
        _c.verb_config_free(cfg)
        raise
    return cfg


def _summary(s: _c.VerbSummary, c: _Collector) -> Summary:
    return Summary(s.lines, s.records, s.invalid, s.changed, s.warnings, s.errors, c.found, c.dropped)


def _run_files(
    verb: str,
    input: PathLike,
    output: Optional[PathLike],
    mode: str,
    drop_invalid: bool,
    opcodes: Iterable[str] = (),
    max_diagnostics: int = 1000,
) -> Summary:
    c = _Collector(max_diagnostics)
    cfg = _verb_config(verb, mode, drop_invalid, opcodes, c)
    try:
        s = _c.VerbSummary()
        paths = (_input(input), None if output is None else _path(output, "output"))
        _run_config(_c.verb_config_set_cancel, cfg, lambda: int(_c.verb_run_files(cfg, *paths, byref(s))), c)
    finally:
        _c.verb_config_free(cfg)
    return _summary(s, c)


def _run_text(
    verb: str, text: Text, mode: str, drop_invalid: bool, opcodes: Iterable[str] = (), max_diagnostics: int = 1000
) -> Tuple[str, Summary]:
    data = _bytes(text)
    c = _Collector(max_diagnostics)
    cfg = _verb_config(verb, mode, drop_invalid, opcodes, c)
    out = c_void_p()
    n = c_size_t()
    s = _c.VerbSummary()
    try:
        # Ctrl-C ends the run between two records (see _run_config).
        run = lambda: int(_c.verb_run_memory(cfg, data, len(data), byref(out), byref(n), byref(s)))  # noqa: E731
        _run_config(_c.verb_config_set_cancel, cfg, run, c)
    finally:
        _c.verb_config_free(cfg)
    return _take(out, n.value).decode("utf-8", "replace"), _summary(s, c)


def check(input: PathLike, *, mode: str = "strict", max_diagnostics: int = 1000) -> Summary:
    """Validates every record of the file at `input` (`epd check`)."""
    return _run_files("check", input, None, mode, False, (), max_diagnostics)


def normalize(
    input: PathLike, output: PathLike, *, mode: str = "strict", drop_invalid: bool = False, max_diagnostics: int = 1000
) -> Summary:
    """pfdn (`epd normalize`): writes the canonical form of each valid
    record of `input` to `output`; invalid records are copied through
    unchanged unless `drop_invalid`."""
    return _run_files("normalize", input, output, mode, drop_invalid, (), max_diagnostics)


def repair(input: PathLike, output: PathLike, *, drop_invalid: bool = False, max_diagnostics: int = 1000) -> Summary:
    """pfdr (`epd repair`): reads leniently and writes canonical records."""
    return _run_files("repair", input, output, "lenient", drop_invalid, (), max_diagnostics)


def purge(
    input: PathLike, output: PathLike, opcodes: Iterable[str], *, mode: str = "strict", max_diagnostics: int = 1000
) -> Summary:
    """pfop (`epd purge`): removes the operations with these opcodes,
    leaving the rest of each line as written."""
    return _run_files("purge", input, output, mode, False, _opcode_list(opcodes), max_diagnostics)


def check_text(text: Text, *, mode: str = "strict") -> Summary:
    """check over a text in memory."""
    return _run_text("check", text, mode, False)[1]


def normalize_text(text: Text, *, mode: str = "strict", drop_invalid: bool = False) -> Tuple[str, Summary]:
    """normalize over a text in memory: (output, summary)."""
    return _run_text("normalize", text, mode, drop_invalid)


def repair_text(text: Text, *, drop_invalid: bool = False) -> Tuple[str, Summary]:
    """repair over a text in memory: (output, summary)."""
    return _run_text("repair", text, "lenient", drop_invalid)


def purge_text(text: Text, opcodes: Iterable[str], *, mode: str = "strict") -> Tuple[str, Summary]:
    """purge over a text in memory: (output, summary)."""
    return _run_text("purge", text, mode, False, _opcode_list(opcodes))


# ----------------------------------------------------------------- select


@dataclass
class SelectSummary:
    """Counts of select, and its diagnostics (the first `max_diagnostics`;
    `diagnostics_dropped` counts the rest)."""

    lines: int
    records: int
    invalid: int
    selected: int
    warnings: int
    errors: int
    diagnostics: List[Diagnostic] = field(default_factory=list)
    diagnostics_dropped: int = 0


Filters = Union[str, Iterable[str], None]
"""One filter (str) or several of one kind (an iterable of str)."""

LineSpec = Union[str, int, range]
"""Input lines: "A..B", "A..", "..B" or "N" (1-based, inclusive), a line
number, or a range of line numbers (`range(10, 21)` is lines 10 to 20)."""


def _filters(value: Filters, what: str) -> List[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    # Iterable, but of ints: refused (the typing says so; a caller may not).
    if isinstance(cast(object, value), bytes):
        raise TypeError(f"{what} must be str or an iterable of str, not bytes")
    out = list(value)
    for v in out:
        if not isinstance(v, str):
            raise TypeError(f"{what} must be str or an iterable of str, not {type(v).__name__}")
    return out


def _line_spec(spec: Any) -> str:
    if isinstance(spec, str):
        return spec
    if isinstance(spec, bool):
        raise TypeError("lines must be str, int or range, not bool")
    if isinstance(spec, int):
        return str(spec)
    if isinstance(spec, range):
        if spec.step != 1 or len(spec) == 0:
            raise ValueError(f"lines {spec!r} is not a non-empty range with step 1")
        return f"{spec.start}..{spec.stop - 1}"
    raise TypeError(f"lines must be str, int or range, not {type(spec).__name__}")


def _line_specs(lines: Union[LineSpec, Iterable[LineSpec], None]) -> List[str]:
    if lines is None:
        return []
    if isinstance(lines, (str, int, range)):
        return [_line_spec(lines)]
    return [_line_spec(x) for x in lines]


def _select_config(
    mode: str,
    id: Filters,
    regex: bool,
    lines: Union[LineSpec, Iterable[LineSpec], None],
    has: Filters,
    lacks: Filters,
    where: Filters,
    invert: bool,
    collector: _Collector,
) -> c_void_p:
    cfg = c_void_p()
    _check(_c.select_config_new(byref(cfg)))
    try:
        _check(_c.select_config_set_mode(cfg, _mode(mode)))
        _check(_c.select_config_set_regex(cfg, 1 if regex else 0))
        for pattern in _filters(id, "id"):
            _check(_c.select_config_add_id(cfg, pattern.encode()))
        for spec in _line_specs(lines):
            _check(_c.select_config_add_lines(cfg, spec.encode()))
        for opcode in _filters(has, "has"):
            _check(_c.select_config_add_has(cfg, opcode.encode()))
        for opcode in _filters(lacks, "lacks"):
            _check(_c.select_config_add_lacks(cfg, opcode.encode()))
        for condition in _filters(where, "where"):
            _check(_c.select_config_add_where(cfg, condition.encode()))
        _check(_c.select_config_set_invert(cfg, 1 if invert else 0))
        _check(_c.select_config_set_reporter(cfg, collector.callback, None))
    except BaseException:
        _c.select_config_free(cfg)
        raise
    return cfg


def _select_summary(s: _c.SelectSummary, c: _Collector) -> SelectSummary:
    return SelectSummary(s.lines, s.records, s.invalid, s.selected, s.warnings, s.errors, c.found, c.dropped)


def select(
    input: PathLike,
    output: PathLike,
    *,
    id: Filters = None,
    regex: bool = False,
    lines: Union[LineSpec, Iterable[LineSpec], None] = None,
    has: Filters = None,
    lacks: Filters = None,
    where: Filters = None,
    invert: bool = False,
    mode: str = "strict",
    max_diagnostics: int = 1000,
) -> SelectSummary:
    """`epd select`: writes to `output` the valid records of `input` that
    match, byte for byte as they were read (blank lines and invalid
    records are left out; their diagnostics are in the summary).

    Each filter is one str or an iterable of them (`lines` also takes
    ints and ranges); filters of different kinds must all hold, and a
    kind holds when any of its filters does:

    - `id`: globs ("WAC.0*": `*` any text, `?` one character) matched
      against the whole id, or with `regex=True` regular expressions
      found anywhere in it; records without id never match;
    - `lines`: input lines, "A..B", "A..", "..B", "N", an int or a range;
    - `has`, `lacks`: opcodes the record has, or lacks;
    - `where`: "OPCODE=VALUE", "OPCODE!=VALUE" (moves compared as moves:
      "bm=Nf3" finds bm Ng1f3) or "<", "<=", ">", ">=" against an integer
      ("ce>100", "dm<=3"); a record without the opcode never matches.

    `invert=True` keeps the valid records that do not match. A filter
    that does not read raises EpdValueError (with `column` for a `where`
    condition or a line range)::

        s = epdkit.select("wacnew.epd", "out.epd", id="WAC.0*", where=["bm=Qg6", "bm=Rxb2"])
        print(s.selected, "of", s.records)
    """
    c = _Collector(max_diagnostics)
    cfg = _select_config(mode, id, regex, lines, has, lacks, where, invert, c)
    try:
        s = _c.SelectSummary()
        paths = (_input(input), _path(output, "output"))
        _run_config(_c.select_config_set_cancel, cfg, lambda: int(_c.select_run_files(cfg, *paths, byref(s))), c)
    finally:
        _c.select_config_free(cfg)
    return _select_summary(s, c)


def select_text(
    text: Text,
    *,
    id: Filters = None,
    regex: bool = False,
    lines: Union[LineSpec, Iterable[LineSpec], None] = None,
    has: Filters = None,
    lacks: Filters = None,
    where: Filters = None,
    invert: bool = False,
    mode: str = "strict",
    max_diagnostics: int = 1000,
) -> Tuple[str, SelectSummary]:
    """select over a text in memory: (the records selected, summary)."""
    data = _bytes(text)
    c = _Collector(max_diagnostics)
    cfg = _select_config(mode, id, regex, lines, has, lacks, where, invert, c)
    out = c_void_p()
    n = c_size_t()
    s = _c.SelectSummary()
    try:
        # Ctrl-C ends the run between two records (see _run_config).
        run = lambda: int(_c.select_run_memory(cfg, data, len(data), byref(out), byref(n), byref(s)))  # noqa: E731
        _run_config(_c.select_config_set_cancel, cfg, run, c)
    finally:
        _c.select_config_free(cfg)
    return _take(out, n.value).decode("utf-8", "replace"), _select_summary(s, c)


# ---------------------------------------------------------------- engines


def _find_program(name: str) -> str:
    if os.sep in name:
        return name
    found = shutil.which(name) or shutil.which(name, path="/usr/games:/usr/local/games")
    return found or name


def _add_options(ptr: c_void_p, options: Optional[Mapping[str, Any]]) -> None:
    """Gives the new engine `ptr` its UCI options (True and False as UCI's
    true and false); on failure frees it and raises."""
    try:
        for k, v in (options or {}).items():
            value = ("true" if v else "false") if isinstance(v, bool) else str(v)
            _check(_c.engine_add_uci_option(ptr, str(k).encode(), value.encode()))
    except BaseException:
        _c.engine_free(ptr)
        raise


@_serialized
class Engine:
    """An engine for analyze/target: the built-in search or a UCI program.

    >>> with Engine.builtin(depth=4) as e:
    ...     e.play("6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - -")
    'Rd8#'

    `Engine.uci("stockfish", nodes=100_000, options={"Threads": 1})` is a
    UCI engine, found on PATH or in /usr/games.

    Limits: `depth` (plies), `nodes`, `movetime` (seconds per position;
    the default when no limit is given is 1 s); `jobs` engines run at once
    on the file verbs.
    """

    __slots__ = ("_ptr", "name", "_lock", "_limits", "_game")
    _ptr: Optional[c_void_p]
    name: str
    _limits: Tuple[Optional[int], Optional[int], Optional[float]]
    _game: object

    def __init__(self) -> None:
        raise TypeError("use Engine.builtin(...) or Engine.uci(...)")

    @classmethod
    def _make(cls, ptr: c_void_p, name: str, depth: Optional[int], nodes: Optional[int], movetime: Optional[float],
              jobs: int) -> "Engine":
        self = cls.__new__(cls)
        self._ptr = ptr
        self.name = name
        self._game = None
        try:
            self._set_limits(depth, nodes, movetime, "movetime")
            if jobs < 1:
                raise ValueError("jobs must be at least 1")
            _check(_c.engine_set_jobs(ptr, jobs))
        except BaseException:
            _c.engine_free(ptr)
            self._ptr = None
            raise
        self._limits = (depth, nodes, movetime)
        return self

    @classmethod
    def builtin(
        cls,
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime: Optional[float] = None,
        jobs: int = 1,
        hash_mb: int = 16,
        options: Optional[Mapping[str, Any]] = None,
    ) -> "Engine":
        """EPD Kit's own alpha-beta search. `options` are those `epd uci`
        declares (Hash, Threads, MultiPV, PawnValue, KnightValue,
        BishopValue, RookValue, QueenValue, MobilityWeight,
        FutilityMargin); one it does not declare, or a value out of its
        range, raises EngineError here."""
        ptr = c_void_p()
        _check(_c.engine_new_builtin(hash_mb, byref(ptr)))
        _add_options(ptr, options)
        engine = cls._make(ptr, "builtin", depth, nodes, movetime, jobs)
        if options:
            engine._interruptibly(lambda: _c.engine_start(engine._ptr))
        return engine

    @classmethod
    def uci(
        cls,
        program: str,
        *args: str,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        movetime: Optional[float] = None,
        jobs: int = 1,
        options: Optional[Mapping[str, Any]] = None,
    ) -> "Engine":
        """A UCI engine: a path, or a name looked up on PATH and in
        /usr/games; `options` are sent as setoption after the handshake.

        The program is started here and kept for `analyze_record` (one
        process for every record, its hash kept) until `close()`, the end
        of a `with` block, or the engine's end: a program that cannot be
        started, that does not declare an option given, or that declares
        it with a type or range the value is outside of (a spin's min and
        max, a check's true and false, a combo's vars) raises EngineError
        here, as python-chess does. Ctrl-C ends a handshake the program
        never answers at once (the program killed). The file verbs start
        instances of their own."""
        engine = cls._uci(program, args, depth, nodes, movetime, jobs, options)
        engine._interruptibly(lambda: _c.engine_start(engine._ptr))
        return engine

    @classmethod
    def _uci(
        cls,
        program: str,
        args: Sequence[str],
        depth: Optional[int],
        nodes: Optional[int],
        movetime: Optional[float],
        jobs: int,
        options: Optional[Mapping[str, Any]],
    ) -> "Engine":
        """Engine.uci without starting the program (for the file verbs,
        which start instances of their own)."""
        path = _find_program(program)
        argv = (c_char_p * max(1, len(args)))(*[a.encode() for a in args])
        ptr = c_void_p()
        _check(_c.engine_new_uci(path.encode(), argv, len(args), byref(ptr)))
        _add_options(ptr, options)
        return cls._make(ptr, program, depth, nodes, movetime, jobs)

    def _set_limits(
        self, depth: Optional[int], nodes: Optional[int], movetime: Optional[float], time_name: str = "time"
    ) -> None:
        """Checks the limits (_check_limits) and gives them to the library
        (None: no such limit)."""
        _check_limits(depth, nodes, movetime, time_name=time_name)
        _check(_c.engine_set_depth(self._ptr, depth or 0))
        _check(_c.engine_set_node_limit(self._ptr, _int64("nodes", nodes if nodes is not None else -1)))
        _check(_c.engine_set_time_limit(self._ptr, max(1, int(round(movetime * 1000))) if movetime else 0))

    def configure(self, options: Mapping[str, Any]) -> None:
        """Sets options from now on, as python-chess's `configure`: a
        running UCI program is sent `setoption` at once (only for a value
        it does not have already), the built-in engine is made again with
        them; the values hold for later starts too. An option the program
        does not declare, or a value outside its declared type or range,
        raises EngineError (the options before it are set)."""
        if not isinstance(options, Mapping):
            raise TypeError(f"options must be a mapping, not {type(options).__name__}")
        for k, v in options.items():
            value = ("true" if v else "false") if isinstance(v, bool) else str(v)
            _check(_c.engine_set_uci_option(self._ptr, str(k).encode(), value.encode()))

    def new_game(self) -> None:
        """Starts a new game: the next search (analyse, play,
        analyze_record) sends the program `ucinewgame` and `isready` first
        (the built-in engine clears its hash). Searches between two new
        games are one game, the engine's hash kept, as in python-chess;
        the first search after the program starts is a new game without
        this call. `game=` of analyse does the same when the object
        changes."""
        _check(_c.engine_new_game(self._ptr))

    def _enter_game(self, game: object) -> None:
        """python-chess's `game=`: a search with another game object than
        the last one's starts a new game (None is a game object too, the
        default: searches that never name one are one game)."""
        if game is not self._game and game != self._game:
            _check(_c.engine_new_game(self._ptr))
        self._game = game

    def _interruptibly(self, call: Callable[[], int]) -> None:
        """Runs `call`, a library call on this engine, so that Ctrl-C ends
        it (see _interruptible): with a cancel flag of its own, watched by
        the engine for this call only."""
        _with_cancel(lambda _: call(), lambda c: _c.engine_set_cancel(self._ptr, c))

    @contextlib.contextmanager
    def _per_call(self, counters: bool = False, solution_time: bool = False) -> Iterator[None]:
        """Sets the counters and solution-time flags for one call and puts
        them back as the engine keeps them (off) after it, whatever
        happens, so that a later analyze_record writes what it always does."""
        with _lock_of(self):
            try:
                _check(_c.engine_set_counters(self._ptr, 1 if counters else 0))
                _check(_c.engine_set_solution_time(self._ptr, 1 if solution_time else 0))
                yield
            finally:
                _c.engine_set_counters(self._ptr, 0)
                _c.engine_set_solution_time(self._ptr, 0)

    @overload
    def analyse(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = ...,
        nodes: Optional[int] = ...,
        time: Optional[float] = ...,
        mate: Optional[int] = ...,
        multipv: None = ...,
        game: object = ...,
    ) -> "AnalysisInfo": ...

    @overload
    def analyse(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = ...,
        nodes: Optional[int] = ...,
        time: Optional[float] = ...,
        mate: Optional[int] = ...,
        multipv: int,
        game: object = ...,
    ) -> List["AnalysisInfo"]: ...

    def analyse(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
        mate: Optional[int] = None,
        multipv: Optional[int] = None,
        game: object = None,
    ) -> Union["AnalysisInfo", List["AnalysisInfo"]]:
        """Analyses `position` (a Position, or FEN or EPD text), as
        python-chess's `engine.analyse(board, Limit(...), multipv=...)`.

        Limits: `depth` (plies), `nodes`, `time` (seconds), `mate` (stop
        at a mate in at most this many moves); when none is given, the
        engine's own (1 s when it has none). `mate` alone bounds nothing:
        where there is no such mate the search takes the other limits, 1 s
        without. They hold for this call only: nothing of the engine
        changes. The engine's program is the one kept for analyze_record.

        `game` is python-chess's: searches with the same game object (None
        by default) are one game, the engine's hash kept from one to the
        next; another object starts a new game (`ucinewgame`), as
        new_game() does.

        Returns an AnalysisInfo (score as Score, pv in SAN, best move,
        depth, seldepth, nodes, nps, time, multipv); with `multipv` (1 to
        256 lines) a list of them, best first, each line starting with
        another move (fewer when the position has fewer legal moves).
        """
        _check_limits(depth, nodes, time, mate=mate, multipv=multipv)
        if not isinstance(position, (Position, str, bytes)):
            raise TypeError(f"position must be a Position, or FEN or EPD text, not {type(position).__name__}")
        pos = position if isinstance(position, Position) else _position_of(position)
        if depth is None and nodes is None and time is None and mate is None:
            depth, nodes, time = self._limits
        limits = c_void_p()
        _check(_c.limits_new(byref(limits)))
        analysis = c_void_p()
        try:
            _check(_c.limits_set_depth(limits, depth or 0))
            _check(_c.limits_set_nodes(limits, _int64("nodes", nodes if nodes is not None else -1)))
            _check(_c.limits_set_time(limits, max(1, int(round(time * 1000))) if time else 0))
            _check(_c.limits_set_mate(limits, mate or 0))
            _check(_c.limits_set_lines(limits, multipv or 1))
            self._enter_game(game)
            with _lock_of(pos):
                self._interruptibly(lambda: _c.engine_analyze_position(self._ptr, pos._ptr, limits, byref(analysis)))
                start = pos.copy()
            infos = _infos(analysis, start)
        finally:
            _c.limits_free(limits)
            _c.analysis_free(analysis)
        return infos if multipv is not None else infos[0]

    def play(
        self,
        position: Union[Position, Text],
        *,
        depth: Optional[int] = None,
        nodes: Optional[int] = None,
        time: Optional[float] = None,
        mate: Optional[int] = None,
        game: object = None,
    ) -> Optional[str]:
        """The move the engine plays in `position` (SAN), with these limits
        and `game` (as analyse); None in a position without a legal move."""
        return self.analyse(position, depth=depth, nodes=nodes, time=time, mate=mate, game=game).best

    def close(self) -> None:
        """Stops the engine's program (a UCI engine is sent quit); a later
        `analyze_record` starts it again. Closing twice does nothing."""
        if self._ptr:
            _check(_c.engine_stop(self._ptr))

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        ptr = getattr(self, "_ptr", None)
        if ptr:
            _c.engine_free(ptr)
            self._ptr = None

    def __repr__(self) -> str:
        return f"<epdkit.Engine {self.name}>"

    def analyze_record(self, record: Record, *, game: object = None) -> Record:
        """Analyses one record in place (pv, pm, ce; acd/acn/acs with
        counters) and returns it. `game` as for analyse: records analysed
        one after another are one game, the engine's hash kept."""
        if not isinstance(record, Record):
            raise TypeError(f"analyze_record takes a Record, not {type(record).__name__}")
        self._enter_game(game)
        with _lock_of(record):
            handle = record._p  # here: the worker thread must take no lock the caller holds
            self._interruptibly(lambda: _c.engine_analyze_record(self._ptr, handle))
        return record


@dataclass
class AnalysisInfo:
    """One line of what Engine.analyse found, with python-chess's names:
    the score from the side to move's view (None if the engine gave no
    exact one), the principal variation in SAN and its first move (an
    empty pv and None in a position without a legal move), the depth and
    selective depth in plies, the nodes and nodes per second (None when
    the engine did not say), the time in seconds, and the line's number
    (1 for the best line; the counters are the search's, shared by its
    lines)."""

    score: Optional[Score]
    pv: List[str]
    best: Optional[str]
    depth: Optional[int]
    seldepth: Optional[int]
    nodes: Optional[int]
    nps: Optional[int]
    time: float
    multipv: int = 1

    @property
    def seconds(self) -> int:
        """The whole seconds of `time` (as acs writes them)."""
        return int(self.time)


def _check_limits(
    depth: Optional[int],
    nodes: Optional[int],
    time: Optional[float],
    *,
    mate: Optional[int] = None,
    multipv: Optional[int] = None,
    time_name: str = "time",
) -> None:
    """The one place search limits are checked (Engine.builtin, Engine.uci,
    analyse and play); the time limit named as the caller names it."""
    for name, v in (("depth", depth), ("nodes", nodes), ("mate", mate), ("multipv", multipv)):
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            raise TypeError(f"{name} must be an int, not {type(v).__name__}")
        if v is not None and v < 1:
            raise ValueError(f"{name} must be at least 1")
    if depth is not None and depth > 0xFFFFFFFF:
        raise ValueError("depth is too large")
    if mate is not None and mate > 0xFFFFFFFF:
        raise ValueError("mate is too large")
    if multipv is not None and multipv > _c.MAX_LINES:
        raise ValueError(f"multipv must be at most {_c.MAX_LINES}")
    if time is not None and (not isinstance(time, (int, float)) or isinstance(time, bool)):
        raise TypeError(f"{time_name} must be a number of seconds, not {type(time).__name__}")
    if time is not None and not time > 0:
        raise ValueError(f"{time_name} must be positive")
    if time is not None and not time * 1000 < 2**32:
        # Also inf: the library takes whole milliseconds in 32 bits.
        raise ValueError(f"{time_name} must be finite and below {2**32 // 1000} s, not {time!r}")


def _infos(analysis: c_void_p, start: Position) -> List[AnalysisInfo]:
    """The lines of an epd_analysis, their moves in SAN from `start`."""
    depth, seldepth, nodes, ms = c_long(), c_long(), _c.Int64(), c_ulong()
    _check(_c.analysis_counters(analysis, byref(depth), byref(seldepth), byref(nodes), byref(ms)))
    n_nodes = (int(nodes.hi) << 32) | int(nodes.lo)
    seconds = int(ms.value) / 1000
    count = c_size_t()
    _check(_c.analysis_line_count(analysis, byref(count)))
    infos = []
    for k in range(count.value):
        s = _c.Score()
        scored = _c.analysis_line_score(analysis, k, byref(s))
        if scored not in (_c.OK, _c.NOT_FOUND):
            _check(scored)
        n = c_size_t()
        status = _c.analysis_line_moves(analysis, k, None, 0, byref(n))
        if status not in (_c.OK, _c.BUFFER_TOO_SMALL):
            _check(status)
        moves = (_c.Move * max(1, n.value))()
        _check(_c.analysis_line_moves(analysis, k, moves, n.value, byref(n)))
        pos = start.copy()
        pv = []
        for i in range(n.value):
            pv.append(pos._san_of(moves[i]))
            _check(_c.position_play(pos._ptr, moves[i]))
        infos.append(
            AnalysisInfo(
                score=Score(s.kind, s.value) if scored == _c.OK else None,
                pv=pv,
                best=pv[0] if pv else None,
                depth=None if depth.value < 0 else int(depth.value),
                seldepth=None if seldepth.value < 0 else int(seldepth.value),
                nodes=None if n_nodes < 0 else n_nodes,
                nps=None if n_nodes < 0 or ms.value == 0 else int(n_nodes * 1000 // ms.value),
                time=seconds,
                multipv=k + 1,
            )
        )
    return infos


def _position_of(text: Text) -> Position:
    """A Position from FEN (six fields) or EPD (four fields, and maybe
    operations) text."""
    data = text.decode() if isinstance(text, bytes) else text
    fields = data.split()
    if len(fields) >= 6 and fields[4].isdigit() and fields[5].isdigit():
        return Position(" ".join(fields[:6]))
    return Position(" ".join(fields[:4]))


@dataclass
class AnalysisSummary:
    """Counts of analyze/target."""

    lines: int
    records: int
    invalid: int
    analyzed: int
    faults: int
    solved: int
    missed: int
    unscored: int


def _engine_of(engine: Union[Engine, str, None], **limits: Any) -> Engine:
    if isinstance(engine, Engine):
        if any(v is not None for v in limits.values()):
            raise ValueError("give the limits to Engine.builtin/Engine.uci, or an engine name here")
        return engine
    lim = {k: v for k, v in limits.items() if v is not None}
    if engine is None or engine == "builtin":
        return Engine.builtin(**lim)
    if isinstance(engine, str):
        # The verb starts its own instances: none is kept here.
        return Engine._uci(engine, (), lim.get("depth"), lim.get("nodes"), lim.get("movetime"), lim.get("jobs", 1), None)
    raise TypeError(f"engine must be an Engine or a name, not {type(engine).__name__}")


def _analysis(
    goal: int,
    input: PathLike,
    output: PathLike,
    engine: Union[Engine, str, None],
    counters: bool,
    solution_time: bool,
    limits: Dict[str, Any],
) -> AnalysisSummary:
    e = _engine_of(engine, **limits)
    s = _c.AnalysisSummary()
    source, target = _input(input), _path(output, "output")
    with e._per_call(counters, solution_time):
        e._interruptibly(lambda: _c.engine_run_files(e._ptr, goal, source, target, byref(s)))
    return AnalysisSummary(*(int(getattr(s, f[0])) for f in _c.AnalysisSummary._fields_))


def _analysis_text(
    goal: int, text: Text, engine: Union[Engine, str, None], counters: bool, solution_time: bool, limits: Dict[str, Any]
) -> Tuple[str, AnalysisSummary]:
    e = _engine_of(engine, **limits)
    data = _bytes(text)
    out = c_void_p()
    n = c_size_t()
    s = _c.AnalysisSummary()
    with e._per_call(counters, solution_time):
        e._interruptibly(lambda: _c.engine_run_memory(e._ptr, goal, data, len(data), byref(out), byref(n), byref(s)))
    summary = AnalysisSummary(*(int(getattr(s, f[0])) for f in _c.AnalysisSummary._fields_))
    return _take(out, n.value).decode("utf-8", "replace"), summary


def analyze(
    input: PathLike,
    output: PathLike,
    *,
    engine: Union[Engine, str, None] = None,
    depth: Optional[int] = None,
    nodes: Optional[int] = None,
    movetime: Optional[float] = None,
    jobs: Optional[int] = None,
    counters: bool = False,
    solution_time: bool = False,
) -> AnalysisSummary:
    """pfga (`epd analyze`): every valid record of `input` is searched and
    written to `output` with pv, pm and ce (acd, acn, acs with `counters`;
    Solve_ms/Solve_acn/Solve_acd with `solution_time`). `engine` is an
    Engine, "builtin" (the default) or a UCI engine's name or path."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime, "jobs": jobs}
    return _analysis(0, input, output, engine, counters, solution_time, lim)


def target(
    input: PathLike,
    output: PathLike,
    *,
    engine: Union[Engine, str, None] = None,
    depth: Optional[int] = None,
    nodes: Optional[int] = None,
    movetime: Optional[float] = None,
    jobs: Optional[int] = None,
    counters: bool = False,
    solution_time: bool = False,
) -> AnalysisSummary:
    """pfts (`epd target`): as analyze, and the move found is judged
    against each record's bm and am (solved/missed in the summary)."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime, "jobs": jobs}
    return _analysis(1, input, output, engine, counters, solution_time, lim)


def analyze_text(
    text: Text, *, engine: Union[Engine, str, None] = None, depth: Optional[int] = None, nodes: Optional[int] = None,
    movetime: Optional[float] = None, counters: bool = False, solution_time: bool = False
) -> Tuple[str, AnalysisSummary]:
    """analyze over a text in memory: (output, summary)."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime}
    return _analysis_text(0, text, engine, counters, solution_time, lim)


def target_text(
    text: Text, *, engine: Union[Engine, str, None] = None, depth: Optional[int] = None, nodes: Optional[int] = None,
    movetime: Optional[float] = None, counters: bool = False, solution_time: bool = False
) -> Tuple[str, AnalysisSummary]:
    """target over a text in memory: (output, summary)."""
    lim = {"depth": depth, "nodes": nodes, "movetime": movetime}
    return _analysis_text(1, text, engine, counters, solution_time, lim)


@dataclass
class MateSummary:
    """Counts of mate."""

    lines: int
    records: int
    invalid: int
    searched: int
    skipped: int
    solved: int
    nodes: int


def _mate_args(moves: int, jobs: int) -> None:
    if not isinstance(moves, int) or not 1 <= moves <= 60:
        raise ValueError("moves must be 1 to 60")
    if jobs < 1:
        raise ValueError("jobs must be at least 1")


def mate(input: PathLike, output: PathLike, moves: int, *, single_pass: bool = False, jobs: int = 1) -> MateSummary:
    """pfms (`epd mate -n MOVES`): every record whose side to move forces
    mate within `moves` gets dm (the shortest mate), pm and pv."""
    _mate_args(moves, jobs)
    s = _c.MateSummary()
    src, dst = _input(input), _path(output, "output")
    _with_cancel(lambda cancel: int(_c.mate_run_files(moves, 1 if single_pass else 0, jobs, cancel, src, dst, byref(s))))
    return MateSummary(*(int(getattr(s, f[0])) for f in _c.MateSummary._fields_))


def mate_text(text: Text, moves: int, *, single_pass: bool = False, jobs: int = 1) -> Tuple[str, MateSummary]:
    """mate over a text in memory: (output, summary)."""
    _mate_args(moves, jobs)
    data = _bytes(text)
    out = c_void_p()
    n = c_size_t()
    s = _c.MateSummary()
    _with_cancel(
        lambda cancel: int(
            _c.mate_run_memory(moves, 1 if single_pass else 0, jobs, cancel, data, len(data), byref(out), byref(n),
                               byref(s))
        )
    )
    return _take(out, n.value).decode("utf-8", "replace"), MateSummary(
        *(int(getattr(s, f[0])) for f in _c.MateSummary._fields_)
    )


# -------------------------------------------------------------------- PGN


@dataclass
class PgnSummary:
    """Counts of a PGN conversion, and its problems: each a Diagnostic
    with the code `epd from-pgn` prints, P010 for an error that cut a game
    short, P011 for an irregularity that was accepted."""

    games: int
    complete: int
    records: int
    repeated: int
    diagnostics: List[Diagnostic] = field(default_factory=list)


_ULONG_MAX = (1 << (8 * ctypes.sizeof(c_ulong))) - 1


def _pgn_flags(sm: bool, counters: bool, id: bool, c0: bool, unique: bool, final: bool) -> int:
    return (1 if sm else 0) | (2 if counters else 0) | (4 if id else 0) | (8 if c0 else 0) | (
        16 if unique else 0
    ) | (32 if final else 0)


@overload
def from_pgn(
    source: Union[PathLike, IO[Any]],
    output: None = None,
    *,
    sm: bool = False,
    counters: bool = False,
    id: bool = False,
    c0: bool = False,
    unique: bool = False,
    plies: Optional[Tuple[int, int]] = None,
    final: bool = False,
) -> Tuple[List[Record], PgnSummary]: ...


@overload
def from_pgn(
    source: Union[PathLike, IO[Any]],
    output: PathLike,
    *,
    sm: bool = False,
    counters: bool = False,
    id: bool = False,
    c0: bool = False,
    unique: bool = False,
    plies: Optional[Tuple[int, int]] = None,
    final: bool = False,
) -> PgnSummary: ...


def from_pgn(
    source: Union[PathLike, IO[Any]],
    output: Optional[PathLike] = None,
    *,
    sm: bool = False,
    counters: bool = False,
    id: bool = False,
    c0: bool = False,
    unique: bool = False,
    plies: Optional[Tuple[int, int]] = None,
    final: bool = False,
) -> Union[PgnSummary, Tuple[List[Record], PgnSummary]]:
    """PGN games to EPD records (`epd from-pgn`): one record for the start
    position and after every mainline move. With `output`, writes the file
    and returns the summary; without, returns (records, summary). `source`
    is a path or a file object. `plies=(a, b)` keeps plies a..b (0 is the
    start position); `final` only the last position of each game."""
    if plies is not None and final:
        raise ValueError("plies and final exclude each other")
    first, last = (0, _ULONG_MAX) if plies is None else plies
    if first < 0 or last < first:
        raise ValueError(f"plies {plies} is empty")
    flags = _pgn_flags(sm, counters, id, c0, unique, final)
    found: List[Diagnostic] = []

    def report(_user: Any, line: int, column: int, error: int, message: bytes) -> int:
        found.append(
            Diagnostic("error" if error else "warning", _pgn_code(bool(error)), int(line), int(column),
                       message.decode("utf-8", "replace"))
        )
        return 0

    callback = _c.PGN_REPORT(report)
    s = _c.PgnSummary()
    if output is not None:
        if not isinstance(source, (str, bytes, os.PathLike)):
            raise TypeError("with output, source must be a path")
        src, dst = _input(source, "source"), _path(output, "output")
        _with_cancel(
            lambda cancel: int(_c.pgn_to_epd_files(flags, first, last, callback, None, cancel, src, dst, byref(s)))
        )
        return PgnSummary(s.games, s.complete, s.records, s.repeated, found)
    if isinstance(source, (str, bytes, os.PathLike)):
        try:
            with open(source, "rb") as f:
                data = f.read()
        except OSError as e:
            raise _os_error(e) from None
    elif hasattr(source, "read"):
        data = _bytes(source.read())
    else:
        raise TypeError(f"source must be a path or a file object, not {type(source).__name__}")
    out = c_void_p()
    n = c_size_t()
    _with_cancel(
        lambda cancel: int(
            _c.pgn_to_epd_memory(flags, first, last, callback, None, cancel, data, len(data), byref(out), byref(n),
                                 byref(s))
        )
    )
    text = _take(out, n.value)
    import io

    records = [r for r in read(io.BytesIO(text)) if isinstance(r, Record)]
    return records, PgnSummary(s.games, s.complete, s.records, s.repeated, found)


# ----------------------------------------------------------------- report


def report(
    runs: Union[PathLike, Sequence[PathLike]],
    *,
    labels: Optional[Sequence[str]] = None,
    key: Optional[PathLike] = None,
    group_by: str = "id",
    group: Optional[str] = None,
    strict: bool = False,
    time_scores: bool = False,
) -> Dict[str, Any]:
    """The Gastric report over result files (`epd report --format json`) as
    a dict: per run its label, records, solved with the Wilson interval,
    missed ids, themes, mates, points, distributions and issues; each pair
    of runs compared (McNemar's exact test); the objective for tuners.

    `group_by` is "id", "file" or "opcode"; `group` a regular expression
    over the ids (its first capture group names the theme)."""
    paths = [runs] if isinstance(runs, (str, bytes, os.PathLike)) else list(runs)
    if not paths:
        raise ValueError("report needs at least one run")
    if labels is not None and len(labels) > len(paths):
        raise ValueError(f"{len(labels)} labels for {len(paths)} runs")
    kinds = {"id": 0, "file": 1, "opcode": 2}
    if group_by not in kinds:
        raise ValueError(f'group_by must be "id", "file" or "opcode", not {group_by!r}')
    cfg = c_void_p()
    _check(_c.report_config_new(byref(cfg)))
    try:
        for i, p in enumerate(paths):
            label = labels[i].encode() if labels is not None and i < len(labels) else None
            _check(_c.report_config_add_run(cfg, _input(p, "run"), label))
        if key is not None:
            _check(_c.report_config_set_key(cfg, _path(key, "key")))
        _check(_c.report_config_set_group_by(cfg, kinds[group_by]))
        if group is not None:
            _check(_c.report_config_set_group_regex(cfg, group.encode()))
        _check(_c.report_config_set_strict(cfg, 1 if strict else 0))
        _check(_c.report_config_set_time_scores(cfg, 1 if time_scores else 0))
        out = c_void_p()
        n = c_size_t()
        _check(_c.report_run_json(cfg, byref(out), byref(n)))
        result: Dict[str, Any] = json.loads(_take(out, n.value))
        return result
    finally:
        _c.report_config_free(cfg)
