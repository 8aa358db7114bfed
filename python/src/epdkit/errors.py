"""The exceptions of epdkit, the library's diagnostics, and the status
codes of the C ABI turned into them.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import errno
import functools
import os
from ctypes import byref, c_char_p, c_size_t, c_void_p
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

from . import _ffi as _c

__all__ = [
    "Diagnostic",
    "EngineError",
    "EngineTerminatedError",
    "EpdError",
    "EpdFileNotFoundError",
    "EpdIOError",
    "EpdIsADirectoryError",
    "EpdPermissionError",
    "EpdValueError",
    "FenError",
    "InvalidRecordError",
    "MoveError",
    "diagnostic_codes",
]


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
        # The system's error number, 0 when it gave none.
        return _io_error(message, int(_c.last_error_os_error()) or None, filename)
    cls = _CLASSES.get(status, EpdError)
    code = (_c.last_error_code() or b"").decode("ascii", "replace")
    return cls(status, message, column=int(_c.last_error_column()), code=code)


def _check(status: int) -> None:
    if status != _c.OK:
        raise _error(status)


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
