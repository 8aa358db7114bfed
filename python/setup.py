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

The library is named plainly libepdkit.so (libepdkit.dylib on macOS),
not with the interpreter's suffix (libepdkit.cpython-311-x86_64-linux-gnu.so)
that setuptools-rust gives a module: it is no module, and a py3-none wheel
must carry nothing tagged for one interpreter.

Which Linux the wheel installs on is set by the glibc the library is
linked against. cargo links against the build machine's (the wheel is
then manylinux_2_34 on glibc 2.34, say); with EPDKIT_GLIBC set, e.g.
EPDKIT_GLIBC=2.17, the library is built by cargo-zigbuild, with zig as
the linker, for that glibc (`--target x86_64-unknown-linux-gnu.2.17`), and
auditwheel makes the wheel manylinux_2_17 (manylinux2014: CentOS 7,
RHEL 8, Debian 10, Ubuntu 18.04 and later). Both come from PyPI as build
requirements then (the cargo-zigbuild and ziglang packages, pinned
below), so pip installs them into the isolated build environment; a
build without isolation needs them installed (or cargo-zigbuild from
`cargo install --locked cargo-zigbuild`, with zig on PATH). Without
EPDKIT_GLIBC the build needs cargo only, as before.

Licensed under MIT OR Apache-2.0.
"""

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Tuple

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.sdist import sdist
from setuptools_rust import Binding, RustExtension, Strip
from setuptools_rust.build import build_rust

HERE = Path(__file__).resolve().parent
# The crates libepdkit is built from, in dependency order.
CRATES = ("epd-core", "epd-engine", "epd-referee", "epd-report", "epd-ffi")
# Manifest sections a build of the library does not need; their paths
# (dev-dependencies on the test kit, bench files) are not in the sdist.
DEV_ONLY = re.compile(r"^\[(\[(bench|test|example)\]|dev-dependencies|target\..*\.dev-dependencies)\]$")
# The glibc to build for with cargo-zigbuild ("2.17"); empty: cargo, the
# build machine's glibc.
GLIBC = os.environ.get("EPDKIT_GLIBC", "").strip()
# What EPDKIT_GLIBC adds to the build requirements: cargo-zigbuild (a
# binary wheel) and the zig it links with, versions that work together
# and with this workspace's rustc.
ZIG_REQUIRES = ["cargo-zigbuild==0.24.1", "ziglang==0.15.2"]


class PlatformWheel(bdist_wheel):  # type: ignore[misc]
    """A wheel for every Python 3 on this platform."""

    def get_tag(self) -> Tuple[str, str, str]:
        _, _, plat = super().get_tag()
        return "py3", "none", plat


def _library_name() -> str:
    """The library's file name: what the loader in _ffi.py looks for."""
    if sys.platform == "darwin":
        return "libepdkit.dylib"
    if sys.platform == "win32":
        return "epdkit.dll"
    return "libepdkit.so"


def _rust_host() -> str:
    """rustc's host triple (x86_64-unknown-linux-gnu)."""
    out = subprocess.run(["rustc", "-vV"], check=True, capture_output=True, text=True).stdout
    for line in out.splitlines():
        if line.startswith("host: "):
            return line[len("host: "):].strip()
    raise RuntimeError(f"no host triple in `rustc -vV`: {out!r}")


class BuildLibrary(build_rust):  # type: ignore[misc]
    """setuptools-rust's build of the library, with two changes: the file
    is named plainly (libepdkit.so), and with EPDKIT_GLIBC set it is built
    by cargo-zigbuild for that glibc."""

    def run_for_extension(self, ext: RustExtension) -> None:
        if GLIBC:
            if not re.fullmatch(r"2\.[0-9]+", GLIBC):
                raise RuntimeError(f"EPDKIT_GLIBC={GLIBC!r}: expected a glibc version such as 2.17")
            host = _rust_host()
            if not host.endswith("-linux-gnu"):
                raise RuntimeError(f"EPDKIT_GLIBC applies to Linux with glibc only, not {host}")
            # The build requirement's, in an isolated build.
            zigbuild = shutil.which("cargo-zigbuild")
            if zigbuild is None:
                raise RuntimeError(
                    "EPDKIT_GLIBC is set but cargo-zigbuild is not on PATH: build with pip's "
                    "build isolation, `pip install cargo-zigbuild ziglang`, or unset EPDKIT_GLIBC"
                )
            # `cargo-zigbuild rustc` takes cargo's arguments; the target's
            # suffix is the glibc to link against (cargo-zigbuild strips it
            # for cargo).
            self.cargo = zigbuild
            ext.args = [*(ext.args or []), "--target", f"{host}.{GLIBC}"]
            # zig from the ziglang build requirement, run by this Python.
            os.environ.setdefault("CARGO_ZIGBUILD_PYTHON_PATH", sys.executable)
            # A target directory of its own (target/glibc-2.17 of the
            # workspace): cargo-zigbuild sets zig as the linker of build
            # scripts and proc-macros too, and cargo fingerprints the
            # linker, so sharing target/ with plain cargo builds would
            # rebuild those (and all that depends on them) each time either
            # runs.
            workspace = Path(ext.path).resolve().parent.parent
            os.environ.setdefault("CARGO_TARGET_DIR", str(workspace / "target" / f"glibc-{GLIBC}"))
        super().run_for_extension(ext)

    def get_dylib_ext_path(self, ext: RustExtension, target_fname: str) -> str:
        # Where build_ext would put the module epdkit.libepdkit, renamed.
        module_path = super().get_dylib_ext_path(ext, target_fname)
        return os.path.join(os.path.dirname(module_path), _library_name())


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
        # Data a crate compiles in (epd-referee's opening names).
        if (src / "data").is_dir():
            shutil.copytree(src / "data", out / "data")
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
    cmdclass={"bdist_wheel": PlatformWheel, "build_rust": BuildLibrary, "sdist": SelfContainedSdist},
    # For an older glibc, cargo-zigbuild and zig: build requirements
    # (setuptools' build_meta asks pip for these, with build-system.requires).
    setup_requires=ZIG_REQUIRES if GLIBC else [],
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
