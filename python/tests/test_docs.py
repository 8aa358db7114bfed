"""The package's documentation is checked like its code: every public name
has a docstring, the docstrings' examples run as doctests, and the
Python examples of python/README.md and docs/python.md run as written,
each against the installed package (the guide's against small slices of
the shared corpora, under the file names it uses).

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import os
import re
import shutil
import types
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

import epdkit


def _dask() -> types.ModuleType:
    if os.environ.get("EPDKIT_REQUIRE_DASK"):
        import epdkit.dask

        return epdkit.dask
    pytest.importorskip("dask")
    import epdkit.dask

    return epdkit.dask


def _public(module: types.ModuleType) -> Iterator[Tuple[str, Any]]:
    """Every public name of `module` (its __all__), and the public
    methods, properties, static and class methods of its public classes."""
    for name in module.__all__:
        obj = getattr(module, name)
        yield f"{module.__name__}.{name}", obj
        if inspect.isclass(obj):
            for attr, value in vars(obj).items():
                if attr.startswith("_"):
                    continue
                if isinstance(value, (staticmethod, classmethod)):
                    yield f"{module.__name__}.{name}.{attr}", value.__func__
                elif isinstance(value, property) or inspect.isfunction(value):
                    yield f"{module.__name__}.{name}.{attr}", value


def _undocumented(module: types.ModuleType) -> List[str]:
    missing = []
    for name, obj in _public(module):
        doc = obj.__doc__ if (inspect.isclass(obj) or callable(obj) or isinstance(obj, property)) else None
        if inspect.isclass(obj) or callable(obj) or isinstance(obj, property):
            # A dataclass without a docstring gets its signature as one.
            if not (doc or "").strip() or (inspect.isclass(obj) and (doc or "").startswith(obj.__name__ + "(")):
                missing.append(name)
        elif name.rsplit(".", 1)[1] not in (module.__doc__ or ""):
            # A constant cannot carry a docstring: its module's names it.
            missing.append(f"{name} (a constant its module's docstring does not name)")
    return missing


def test_every_public_name_has_a_docstring() -> None:
    assert _undocumented(epdkit) == []
    assert len(list(_public(epdkit))) > 100


def test_every_public_name_of_epdkit_dask_has_a_docstring() -> None:
    assert _undocumented(_dask()) == []


def _doctest(module: types.ModuleType) -> doctest.TestResults:
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    for test in finder.find(module, module.__name__):
        runner.run(test)
    return runner.summarize(verbose=False)


def _modules_of_epdkit() -> List[types.ModuleType]:
    """epdkit and every module of the package but the optional Dask one
    (its doctests are run by their own test): each module's doctests are
    its own, whatever epdkit re-exports."""
    # The package's Python files (pkgutil would also offer libepdkit.so,
    # the C library the wheel carries, as an extension module).
    here = Path(epdkit.__file__).parent
    names = sorted(f.stem for f in here.glob("*.py") if f.stem not in ("__init__", "dask"))
    return [epdkit] + [importlib.import_module(f"epdkit.{name}") for name in names]


def test_the_doctests_of_epdkit_run() -> None:
    modules = _modules_of_epdkit()
    assert {"errors", "positions", "records", "verbs", "engines", "pgn"} <= {m.__name__.split(".")[-1] for m in modules}
    results = {m.__name__: _doctest(m) for m in modules}
    assert all(r.failed == 0 for r in results.values()), results
    assert sum(r.attempted for r in results.values()) >= 20, results
    # Every public name is documented where it is defined, too.
    assert [name for m in modules[1:] if hasattr(m, "__all__") for name in _undocumented(m)] == []


def test_the_doctests_of_epdkit_dask_run() -> None:
    failed, attempted = _doctest(_dask())
    assert failed == 0 and attempted >= 4, (failed, attempted)


def _python_blocks(markdown: str) -> List[Tuple[int, str]]:
    """The ```python blocks of a page: (line of the fence, code)."""
    blocks = []
    for m in re.finditer(r"^```python\n(.*?)^```$", markdown, re.M | re.S):
        blocks.append((markdown.count("\n", 0, m.start()) + 1, m.group(1)))
    return blocks


def _slice(src: Path, dst: Path, lines: int) -> None:
    with open(src, "rb") as f:
        dst.write_bytes(b"".join(line for _, line in zip(range(lines), f)))


def _games(src: Path, dst: Path, games: int) -> None:
    """The first `games` games of a PGN file."""
    out: List[bytes] = []
    seen = 0
    with open(src, "rb") as f:
        for line in f:
            if line.startswith(b"[Event "):
                seen += 1
                if seen > games:
                    break
            out.append(line)
    dst.write_bytes(b"".join(out))


# The files the guide's example names, made from the shared corpora: slices
# keep the run short (20 WAC positions at depth 6 and at 100,000 Stockfish
# nodes, 20 mates).
FILES: Dict[str, Any] = {
    "wacnew.epd": lambda c, d: _slice(c / "wacnew.epd", d, 20),
    "in.epd": lambda c, d: shutil.copy(c / "bratko-kopec.epd", d),
    "mates.epd": lambda c, d: _slice(c / "mates2000.epd", d, 20),
    "games.pgn": lambda c, d: _games(c / "8moves_v3.pgn", d, 10),
}

PAGES = ["python/README.md", "docs/python.md"]


@pytest.mark.parametrize("page", PAGES)
def test_the_python_examples_of_the_pages_run(
    page: str, root: Path, corpora: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    """Every ```python block of the page runs as written, in a directory
    holding the files it names; none is skipped (one that runs Stockfish
    needs it installed, as the engine tests do)."""
    blocks = _python_blocks((root / page).read_text())
    assert blocks, f"{page} has no python example"
    if any("stockfish" in code for _, code in blocks):
        request.getfixturevalue("stockfish")
    for name, make in FILES.items():
        make(corpora, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    for line, code in blocks:
        namespace: Dict[str, Any] = {"__name__": "__example__"}
        exec(compile(code, f"{page}:{line}", "exec"), namespace)  # noqa: S102
        printed = capsys.readouterr().out
        assert printed.strip(), f"{page}:{line} printed nothing"


@pytest.mark.parametrize("page", PAGES)
def test_the_python_examples_of_the_pages_pass_mypy_strict(
    page: str, root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every ```python block of the page, as a module of its own, is clean
    under mypy --strict against the package's own annotations (what a
    user's type checker says of code copied from the docs)."""
    from mypy import api

    files = []
    for line, code in _python_blocks((root / page).read_text()):
        f = tmp_path / f"example_{Path(page).stem.lower()}_{line}.py"
        f.write_text(code)
        files.append(str(f))
    here = Path(epdkit.__file__).resolve().parent.parent
    if "site-packages" not in here.parts:
        # Run from the source tree: mypy finds the package as Python does.
        monkeypatch.setenv("MYPYPATH", str(here))
    out, err, status = api.run(["--strict", "--no-incremental", "--cache-dir", os.devnull, *files])
    assert status == 0, out + err
    assert f"no issues found in {len(files)} source file" in out, out
