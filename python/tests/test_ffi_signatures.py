"""epdkit._ffi is written by hand: every function it declares is checked
here against its prototype in include/epdkit.h, the header cbindgen
generates from the library. The function must be in the header, its
`restype` must be the C return type and its `argtypes` the C parameters,
one for one, with the types mapped as ctypes maps them:

    int, epd_status and the other int typedefs   c_int
    unsigned int, long, unsigned long, size_t    c_uint, c_long, c_ulong, c_size_t
    double, unsigned char                        c_double, c_ubyte
    void (returned)                              None
    const char *, char *                         c_char_p, POINTER(c_char) or c_void_p
    void *, a handle (struct epd_record *)       c_void_p
    T ** (an out-parameter of a pointer)         POINTER(c_void_p) or POINTER(what T * maps to)
    a pointer to a scalar or a value struct      POINTER(that type)
    a value struct (epd_move, epd_int64 ...)     a Structure with the header's fields, in order
    a callback typedef (epd_report_callback)     a CFUNCTYPE of the callback's own signature

A unit test of the checker makes sure it fails on wrong declarations.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import ctypes
import re
from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
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
from _ctypes import CFuncPtr
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import pytest

from epdkit import _ffi

SCALARS: Dict[str, Any] = {
    "int": c_int,
    "unsigned int": c_uint,
    "long": c_long,
    "unsigned long": c_ulong,
    "size_t": c_size_t,
    "double": c_double,
    "unsigned char": c_ubyte,
    "char": c_char,
}


@dataclass(frozen=True)
class CType:
    """A C type as the header spells it: the base type ("unsigned long",
    "struct epd_move", "epd_status"), how many `*` follow it, and the
    length of an array field (0 if none)."""

    base: str
    pointers: int = 0
    array: int = 0


def _declaration(text: str) -> Tuple[CType, str]:
    """`const struct epd_record *record` -> (CType("struct epd_record", 1), "record")."""
    m = re.fullmatch(r"(.*?)(\w+)\s*(?:\[(\d+)\])?", text.strip(), re.S)
    assert m, text
    spec, name, array = m.group(1), m.group(2), m.group(3)
    pointers = spec.count("*")
    base = " ".join(w for w in spec.replace("*", " ").split() if w != "const")
    return CType(base, pointers, int(array or 0)), name


def _type_only(text: str) -> CType:
    """A return type: `const char *` -> CType("char", 1)."""
    pointers = text.count("*")
    return CType(" ".join(w for w in text.replace("*", " ").split() if w != "const"), pointers)


def _parameters(text: str) -> List[CType]:
    text = text.strip()
    if text in ("", "void"):
        return []
    return [_declaration(p)[0] for p in text.split(",")]


@dataclass
class Header:
    """What the checks need of include/epdkit.h."""

    functions: Dict[str, Tuple[CType, List[CType]]] = field(default_factory=dict)
    callbacks: Dict[str, Tuple[CType, List[CType]]] = field(default_factory=dict)
    aliases: Dict[str, str] = field(default_factory=dict)
    structs: Dict[str, List[Tuple[str, CType]]] = field(default_factory=dict)
    opaque: Set[str] = field(default_factory=set)

    @staticmethod
    def parse(text: str) -> "Header":
        text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
        h = Header()
        for name, body in re.findall(r"^typedef struct (epd_\w+) \{(.*?)\} \1;", text, re.S | re.M):
            h.structs[name] = [
                (n, t) for t, n in (_declaration(f) for f in body.split(";") if f.strip())
            ]
        h.opaque = set(re.findall(r"^typedef struct (epd_\w+) \1;", text, re.M))
        for base, name in re.findall(r"^typedef ([\w ]+?) (epd_\w+);", text, re.M):
            if not base.startswith("struct "):
                h.aliases[name] = base
        for ret, name, params in re.findall(r"^typedef ([\w ]+?) \(\*(epd_\w+)\)\((.*?)\);", text, re.M):
            h.callbacks[name] = (_type_only(ret), _parameters(params))
        for ret, name, params in re.findall(r"^(?!typedef)([\w ]+?[\s*]+)(epd_\w+)\((.*?)\);", text, re.M):
            h.functions[name] = (_type_only(ret), _parameters(params))
        return h

    def _struct_name(self, base: str) -> Optional[str]:
        """The tag of a value struct, spelled `struct epd_x` or `epd_x`."""
        tag = base[len("struct "):] if base.startswith("struct ") else base
        return tag if tag in self.structs else None

    def check(self, c: CType, py: Any, where: str) -> List[str]:
        """What is wrong with `py` as the ctypes type of `c` ([] if nothing)."""
        base = self.aliases.get(c.base, c.base)
        wrong = [f"{where}: {_show(py)} is not {_c_text(c)}"]
        if c.array:
            if not (isinstance(py, type) and issubclass(py, ctypes.Array) and getattr(py, "_length_") == c.array):
                return wrong
            return self.check(CType(c.base), getattr(py, "_type_"), where)
        if c.pointers == 0:
            if base == "void":
                return [] if py is None else wrong
            if base in SCALARS:
                return [] if py is SCALARS[base] else wrong
            if c.base in self.callbacks:
                return self._check_callback(c.base, py, where)
            tag = self._struct_name(base)
            if tag is not None:
                return self._check_struct(tag, py, where)
            return [f"{where}: the header's type {c.base!r} is not known to this test"]
        pointee = CType(c.base, c.pointers - 1)
        if c.pointers == 1 and base == "void":
            return [] if py is c_void_p else wrong
        if c.pointers == 1 and base == "char":
            return [] if py in (c_char_p, POINTER(c_char), c_void_p) else wrong
        if c.pointers == 1 and base.startswith("struct ") and base[len("struct "):] in self.opaque:
            return [] if py is c_void_p else wrong
        if not (isinstance(py, type) and issubclass(py, ctypes._Pointer)):
            return wrong
        if c.pointers >= 2 and py._type_ is c_void_p:
            return []
        return self.check(pointee, py._type_, where)

    def _check_callback(self, name: str, py: Any, where: str) -> List[str]:
        if not (isinstance(py, type) and issubclass(py, CFuncPtr)):
            return [f"{where}: {_show(py)} is not a CFUNCTYPE for {name}"]
        ret, params = self.callbacks[name]
        restype, argtypes = getattr(py, "_restype_"), getattr(py, "_argtypes_")
        found = self.check(ret, restype, f"{where} ({name} returns)")
        if len(argtypes) != len(params):
            return found + [f"{where}: {name} takes {len(params)} arguments, the CFUNCTYPE {len(argtypes)}"]
        for i, (c, p) in enumerate(zip(params, argtypes)):
            found += self.check(c, p, f"{where} ({name} argument {i + 1})")
        return found

    def _check_struct(self, tag: str, py: Any, where: str) -> List[str]:
        if not (isinstance(py, type) and issubclass(py, Structure)):
            return [f"{where}: {_show(py)} is not a Structure for struct {tag}"]
        fields = self.structs[tag]
        ours = list(py._fields_)
        if [n for n, _ in fields] != [f[0].rstrip("_") for f in ours]:
            return [f"{where}: {py.__name__} has fields {[f[0] for f in ours]}, struct {tag} {[n for n, _ in fields]}"]
        found: List[str] = []
        for (n, c), f in zip(fields, ours):
            found += self.check(c, f[1], f"{where} ({tag}.{n})")
        return found

    def problems(self, name: str, argtypes: Optional[List[Any]], restype: Any) -> List[str]:
        """What is wrong with a ctypes declaration of the function `name`."""
        if name not in self.functions:
            return [f"{name}: not in include/epdkit.h"]
        ret, params = self.functions[name]
        found = self.check(ret, restype, f"{name} returns")
        if argtypes is None:
            return found + [f"{name}: no argtypes declared"]
        if len(argtypes) != len(params):
            return found + [f"{name}: {len(argtypes)} argtypes for {len(params)} parameters"]
        for i, (c, p) in enumerate(zip(params, argtypes)):
            found += self.check(c, p, f"{name} argument {i + 1}")
        return found


def _show(py: Any) -> str:
    return "None" if py is None else getattr(py, "__name__", repr(py))


def _c_text(c: CType) -> str:
    return c.base + " " + "*" * c.pointers + (f"[{c.array}]" if c.array else "")


def _declared() -> Dict[str, Any]:
    """Every library function _ffi declares: ctypes keeps each one it was
    asked for as an attribute of the CDLL."""
    return {n: f for n, f in vars(_ffi.lib).items() if n.startswith("epd_")}


@pytest.fixture(scope="module")
def header(root: Path) -> Header:
    path = root / "include" / "epdkit.h"
    assert path.is_file(), f"{path} not found: the tests need the checkout (EPDKIT_SOURCE)"
    return Header.parse(path.read_text())


def test_every_declaration_matches_the_header(header: Header) -> None:
    declared = _declared()
    assert len(declared) > 150, sorted(declared)
    problems = [p for name, f in sorted(declared.items()) for p in header.problems(name, f.argtypes, f.restype)]
    assert not problems, "\n".join(problems)


def test_the_header_is_read_whole(header: Header) -> None:
    """The parse finds what the checks rely on, so an empty parse cannot
    pass for agreement."""
    assert len(header.functions) > 200
    assert header.functions["epd_record_canonical"] == (
        CType("epd_status"),
        [CType("struct epd_record", 1), CType("char", 2), CType("size_t", 1)],
    )
    assert header.callbacks["epd_pgn_report_callback"] == (
        CType("int"),
        [CType("void", 1), CType("unsigned long"), CType("unsigned int"), CType("int"), CType("char", 1)],
    )
    assert header.aliases["epd_pgn_flags"] == "unsigned int"
    assert {"epd_record", "epd_engine", "epd_mate_config", "epd_pgn_config"} <= header.opaque
    assert header.structs["epd_diagnostic"][2] == ("code_text", CType("char", 0, 8))


def test_the_checker_fails_on_wrong_declarations(header: Header) -> None:
    P, PP = c_void_p, POINTER(c_void_p)
    right = ("epd_pgn_config_set_flags", [P, c_uint], c_int)
    assert header.problems(*right) == []
    assert header.problems("epd_pgn_config_set_flags", [c_uint, c_uint], c_int)  # an int for the handle
    assert header.problems("epd_pgn_config_set_flags", [P], c_int)  # an argument missing
    assert header.problems("epd_pgn_config_set_flags", [P, c_uint], None)  # void for epd_status
    assert header.problems("epd_pgn_config_set_flags", None, c_int)  # no argtypes
    assert header.problems("epd_pgn_to_epd_files_cancellable", [P], c_int)  # not in the header
    assert header.problems("epd_record_free", [P], None) == []
    assert header.problems("epd_record_free", [PP], None)  # a pointer's address for the handle
    assert header.problems("epd_last_error_column", [], c_size_t) == []
    assert header.problems("epd_last_error_column", [], c_int)
    # Pointers to scalars and to value structs must be exact.
    assert header.problems("epd_record_operand_count", [P, c_size_t, POINTER(c_size_t)], c_int) == []
    assert header.problems("epd_record_operand_count", [P, c_size_t, POINTER(c_int)], c_int)
    assert header.problems("epd_position_play", [P, _ffi.Move], c_int) == []
    assert header.problems("epd_position_play", [P, _ffi.Score], c_int)  # another struct

    class Shifted(Structure):
        _fields_ = [("from_", c_ubyte), ("to", c_ubyte), ("role", c_ubyte), ("promotion", c_ubyte), ("kind", c_int)]

    assert header.problems("epd_position_play", [P, Shifted], c_int)  # a field of the wrong type
    # A callback must have its typedef's signature.
    report = [P, CFUNCTYPE(c_int, c_void_p, c_ulong, c_uint, c_int, c_char_p), c_void_p]
    assert header.problems("epd_pgn_config_set_reporter", report, c_int) == []
    for bad in (
        CFUNCTYPE(c_int, c_void_p, c_ulong, c_uint, c_char_p),  # an argument missing
        CFUNCTYPE(None, c_void_p, c_ulong, c_uint, c_int, c_char_p),  # void for int
        CFUNCTYPE(c_int, c_void_p, c_ulong, c_uint, c_int, c_int),  # an int for the message
    ):
        assert header.problems("epd_pgn_config_set_reporter", [P, bad, c_void_p], c_int), bad
    assert header.problems("epd_pgn_config_set_reporter", [P, c_void_p, c_void_p], c_int)  # not a CFUNCTYPE
