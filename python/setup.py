"""The wheel's tag, the Rust library it carries, and a self-contained sdist.
Everything else is in pyproject.toml.

The package loads libepdkit with ctypes: it has no CPython extension
module and depends on no CPython ABI, so one wheel serves every
Python 3 on a platform. setuptools would tag it for the interpreter that
built it (cp311-cp311), because it carries a compiled library; this
tags it py3-none-PLATFORM instead (`auditwheel repair` then makes the
platform manylinux). setuptools-rust builds on this command class.

The library is the epd-ffi crate of the Cargo workspace one level up,
which an sdist cannot reach: the sdist carries the crates it needs in
rust/ (a workspace of epd-core, epd-engine, epd-referee, epd-report and
epd-ffi, their dev-dependencies and benches left out, and the workspace's
Cargo.lock cut down to them), and a build from the sdist uses those.

Licensed under MIT OR Apache-2.0.
"""

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import List, Tuple

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.sdist import sdist
from setuptools_rust import Binding, RustExtension, Strip

HERE = Path(__file__).resolve().parent
# The crates libepdkit is built from, in dependency order.
CRATES = ("epd-core", "epd-engine", "epd-referee", "epd-report", "epd-ffi")
# Manifest sections a build of the library does not need; their paths
# (dev-dependencies on the test kit, bench files) are not in the sdist.
DEV_ONLY = re.compile(r"^\[(\[(bench|test|example)\]|dev-dependencies|target\..*\.dev-dependencies)\]$")


class PlatformWheel(bdist_wheel):  # type: ignore[misc]
    """A wheel for every Python 3 on this platform."""

    def get_tag(self) -> Tuple[str, str, str]:
        _, _, plat = super().get_tag()
        return "py3", "none", plat


def _without_dev_sections(manifest: str) -> str:
    kept: List[str] = []
    skipping = False
    for line in manifest.splitlines(keepends=True):
        if line.startswith("["):
            skipping = bool(DEV_ONLY.match(line.strip()))
        if not skipping:
            kept.append(line)
    return "".join(kept)


def _cargo(args: List[str]) -> bool:
    try:
        return subprocess.run(["cargo", *args], stdout=subprocess.DEVNULL).returncode == 0
    except OSError:
        return False


def stage_workspace(workspace: Path, dst: Path) -> None:
    """Copies the crates of CRATES from the Cargo workspace at `workspace`
    into `dst`, a workspace of their own with the same package settings,
    lints and profiles, and the lock file pruned to what they use (by
    cargo, from the packages cached locally when it can: no version
    changes), so that `cargo build --locked` works there."""
    if dst.exists():
        shutil.rmtree(dst)
    dst.mkdir(parents=True)
    root = (workspace / "Cargo.toml").read_text()
    members = ", ".join(f'"{c}"' for c in CRATES)
    root = re.sub(r"^members = \[.*?\]$", f"members = [{members}]", root, count=1, flags=re.M)
    root = re.sub(r"^(default-members|exclude) = \[.*?\]\n", "", root, flags=re.M)
    (dst / "Cargo.toml").write_text(root)
    shutil.copy2(workspace / "Cargo.lock", dst / "Cargo.lock")
    for name in ("LICENSE-MIT", "LICENSE-APACHE"):
        if (workspace / name).is_file():
            shutil.copy2(workspace / name, dst / name)
    for crate in CRATES:
        src, out = workspace / crate, dst / crate
        shutil.copytree(src / "src", out / "src", ignore=shutil.ignore_patterns("*.rs.bk", "__pycache__"))
        if (src / "build.rs").is_file():
            shutil.copy2(src / "build.rs", out / "build.rs")
        (out / "Cargo.toml").write_text(_without_dev_sections((src / "Cargo.toml").read_text()))
    manifest = str(dst / "Cargo.toml")
    # Resolving the smaller workspace rewrites the lock without the
    # packages it no longer needs; the versions kept are the locked ones.
    if not (_cargo(["metadata", "--format-version", "1", "--manifest-path", manifest, "--offline"])
            or _cargo(["metadata", "--format-version", "1", "--manifest-path", manifest])):
        raise RuntimeError(f"cargo could not resolve the staged workspace {dst}")


class SelfContainedSdist(sdist):  # type: ignore[misc]
    """An sdist that builds anywhere: it carries the Rust crates in rust/."""

    def make_release_tree(self, base_dir: str, files: List[str]) -> None:
        super().make_release_tree(base_dir, files)
        workspace = HERE.parent
        if not (workspace / "Cargo.toml").is_file():
            # An sdist made from an sdist: its rust/ came in with the files.
            if not (HERE / "rust" / "Cargo.toml").is_file():
                raise RuntimeError("neither the EPD Kit workspace (..) nor rust/ is here")
            stage = HERE / "rust"
            shutil.copytree(stage, Path(base_dir) / "rust", dirs_exist_ok=True)
            return
        stage_workspace(workspace, Path(base_dir) / "rust")


def _manifest() -> str:
    """The epd-ffi crate: the sdist's copy, else the checkout's."""
    if (HERE / "rust" / "epd-ffi" / "Cargo.toml").is_file():
        return os.path.join("rust", "epd-ffi", "Cargo.toml")
    return os.path.join("..", "epd-ffi", "Cargo.toml")


setup(
    cmdclass={"bdist_wheel": PlatformWheel, "sdist": SelfContainedSdist},
    # NoBinding: a plain cdylib (libepdkit.so) copied into the package,
    # loaded with ctypes.
    rust_extensions=[
        RustExtension(
            "epdkit.libepdkit",
            path=_manifest(),
            binding=Binding.NoBinding,
            args=["--locked"],
            strip=Strip.Debug,
        )
    ],
)
