#!/usr/bin/env bash
# The Python package (python/): built into a wheel by pip through
# setuptools-rust, installed into a fresh virtual environment, type-checked
# with mypy --strict, and tested with pytest from outside the checkout's
# source tree, so the tests can only pass through the installed wheel.
# Needs target/release/epd (the tests compare against the CLI). Called by
# .ci/ffi.sh; runs alone too:  bash .ci/python.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
step() { echo; echo "== python: $*"; }

VENV="$(mktemp -d)/venv"
WORK="$(mktemp -d)"
trap 'rm -rf "$(dirname "$VENV")" "$WORK"' EXIT

step "fresh virtual environment, pip install ./python[dask,test]"
python3 -m venv "$VENV"
"$VENV/bin/python" -m pip install --quiet --upgrade pip
# pytest, python-chess (the differential test's oracle, GPL: a test
# dependency only), mypy, and the dask extra.
"$VENV/bin/python" -m pip install --quiet "./python[dask,test]"
"$VENV/bin/python" -c 'import epdkit, sys; print("epdkit", epdkit.library_version(), "from", epdkit.__file__)'

step "mypy --strict (the package and the example)"
"$VENV/bin/mypy" --strict python/src/epdkit
# The example calls dask and distributed, which are not fully typed.
"$VENV/bin/mypy" --strict --allow-untyped-calls python/examples

step "pytest from outside the source tree"
test -x target/release/epd || cargo build --release -p epd-cli
cp -r python/tests "$WORK/tests"
cd "$WORK"
EPDKIT_SOURCE="$ROOT" EPDKIT_EPD="$ROOT/target/release/epd" EPDKIT_REQUIRE_DASK=1 \
  "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests
