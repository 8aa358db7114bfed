"""Shared fixtures of the Python tests.

The tests import the installed epdkit (from site-packages), never the
source tree: python/src is not on sys.path. They find the checkout (for
the corpora, the C header and the `epd` binary they compare against)
from this file's place, or from $EPDKIT_SOURCE.

Licensed under MIT OR Apache-2.0.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import List

import pytest

ROOT = Path(os.environ.get("EPDKIT_SOURCE") or Path(__file__).resolve().parents[2])


def _corpora() -> Path:
    env = os.environ.get("EPDKIT_CORPORA")
    for p in ([Path(env)] if env else []) + [ROOT.parent / "shared" / "corpora"]:
        if (p / "MANIFEST.tsv").is_file():
            return p
    raise RuntimeError(
        "corpora not found: set EPDKIT_CORPORA (the shared/corpora folder; `scripts/fetch-corpora DIR` fetches them)"
    )


@pytest.fixture(scope="session")
def corpora() -> Path:
    return _corpora()


@pytest.fixture(scope="session")
def root() -> Path:
    return ROOT


@pytest.fixture(scope="session")
def epd() -> str:
    """The release `epd` binary of the checkout (built by cargo)."""
    exe = os.environ.get("EPDKIT_EPD") or str(ROOT / "target" / "release" / "epd")
    if not os.path.exists(exe):
        raise RuntimeError(f"{exe} not found: cargo build --release -p epd-cli")
    return exe


def run_epd(epd: str, args: List[str], stdin: bytes = b"") -> subprocess.CompletedProcess:  # type: ignore[type-arg]
    return subprocess.run([epd, *args], input=stdin, capture_output=True, timeout=600)


@pytest.fixture(scope="session")
def stockfish() -> str:
    found = shutil.which("stockfish") or shutil.which("stockfish", path="/usr/games")
    if not found:
        if os.environ.get("EPDKIT_REQUIRE_STOCKFISH"):
            raise RuntimeError("stockfish is required (EPDKIT_REQUIRE_STOCKFISH) but not installed")
        pytest.skip("stockfish not installed")
    return found
