"""What every part of epdkit shares: the per-object locks, the calls
into the library that Ctrl-C can end, and the conversions of text,
paths and strings at the ctypes boundary. Private.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import ctypes
import errno
import functools
import os
import queue
import stat
import threading
from ctypes import byref, c_void_p
from typing import Any, Callable, List, Optional, Tuple, Union

from . import _ffi as _c
from .errors import EpdError, _check, _error, _os_error


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


def _python_chess() -> Any:
    """python-chess, imported when a bridge method is used (never a
    dependency of epdkit: GPL, and not needed for anything else)."""
    try:
        import chess as module
    except ImportError as e:
        raise ImportError("this needs python-chess: pip install chess") from e
    return module
