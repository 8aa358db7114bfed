#!/usr/bin/env bash
# The C ABI checks (libepdkit): header drift against a pinned cbindgen,
# C89/C99/C++ compile checks of the header and examples, the examples and
# the C API test under valgrind against the shared and the static library,
# and the Python binding's tests. Called by .ci/run; runs alone too:
#   bash .ci/ffi.sh
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never

CBINDGEN_VERSION=0.29.4
step() { echo; echo "== ffi: $*"; }

step "tools"
need=()
command -v gcc >/dev/null || need+=(gcc)
command -v g++ >/dev/null || need+=(g++)
command -v valgrind >/dev/null || need+=(valgrind)
command -v python3 >/dev/null || need+=(python3)
command -v pkg-config >/dev/null || need+=(pkgconf)
command -v file >/dev/null || need+=(file)
command -v objcopy >/dev/null || need+=(binutils)
if [ ${#need[@]} -gt 0 ]; then
  echo "installing: ${need[*]}"
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y "${need[@]}"
fi
if ! cbindgen --version 2>/dev/null | grep -qx "cbindgen $CBINDGEN_VERSION"; then
  cargo install --locked cbindgen --version "$CBINDGEN_VERSION"
fi
gcc --version | head -1; valgrind --version; cbindgen --version; python3 --version

step "build libepdkit (release)"
cargo build --release -p epd-ffi
LIB="$PWD/target/release"
test -f "$LIB/libepdkit.so" && test -f "$LIB/libepdkit.a"
# The library's SONAME is libepdkit.so.0: programs linked against it look
# for that name, which an install makes a symlink (epd-ffi/install.sh),
# and docs/c-api.md tells how to make in the build tree.
objdump -p "$LIB/libepdkit.so" | grep -q 'SONAME *libepdkit.so.0$' || { echo "libepdkit.so has no SONAME libepdkit.so.0"; exit 1; }

WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT

step "the build tree, as docs/c-api.md's Install section says"
# Its commands as written (prog.c: an example), in an environment of PATH
# and HOME only: the SONAME link (which the C programs below use too),
# then a shared and a static link against target/release, each run.
printf '%s\n' '4k3/8/8/8/8/8/8/4K2R w K - bm O-O; id "tree";' > "$WORK/tree.epd"
rm -f "$LIB/libepdkit.so.0"
env -i PATH="$PATH" HOME="$WORK" WORK="$WORK" bash -euo pipefail -c '
  ln -sf libepdkit.so target/release/libepdkit.so.0
  cc examples-c/epd_inspect.c -Iinclude -Ltarget/release -lepdkit -Wl,-rpath,"$PWD/target/release" -o "$WORK/prog" && "$WORK/prog" "$WORK/tree.epd"
  cc examples-c/epd_inspect.c -Iinclude target/release/libepdkit.a -lpthread -ldl -lm -lrt -lutil -lgcc_s -o "$WORK/prog" && "$WORK/prog" "$WORK/tree.epd"
' > /dev/null
echo "linked against the build tree, shared and static, ran"

step "header drift (cbindgen $CBINDGEN_VERSION)"
cbindgen --quiet --config epd-ffi/cbindgen.toml --crate epd-ffi --output "$WORK/epdkit.h" epd-ffi
if ! diff -u include/epdkit.h "$WORK/epdkit.h"; then
  echo "include/epdkit.h is stale: regenerate it with"
  echo "  cbindgen --config epd-ffi/cbindgen.toml --crate epd-ffi --output include/epdkit.h epd-ffi"
  exit 1
fi
for v in MAJOR MINOR PATCH; do
  want="$(cargo metadata --no-deps --format-version 1 | python3 -c "import json,sys; p=[p for p in json.load(sys.stdin)['packages'] if p['name']=='epd-ffi'][0]; print(p['version'].split('.')[['MAJOR','MINOR','PATCH'].index('$v')])")"
  grep -qx "#define EPDKIT_VERSION_$v $want" include/epdkit.h || { echo "EPDKIT_VERSION_$v is not $want"; exit 1; }
done
echo "header up to date"

step "compile checks: C89, C99, C++"
C_STRICT=(-Wall -Wextra -Werror -pedantic-errors -Iinclude)
printf '#include "epdkit.h"\n#include "epdkit.h"\nint main(void) { return EPD_STATUS_OK; }\n' > "$WORK/header_only.c"
sources=(examples-c/*.c epd-ffi/tests/c/*.c "$WORK/header_only.c")
for src in "${sources[@]}"; do
  gcc -std=c89 "${C_STRICT[@]}" -c "$src" -o "$WORK/check.o"
  gcc -std=c99 "${C_STRICT[@]}" -c "$src" -o "$WORK/check.o"
  g++ -std=c++11 -Wall -Wextra -Werror -Iinclude -x c++ -c "$src" -o "$WORK/check.o"
  echo "ok  $src"
done

step "build the C programs (shared and static)"
STATIC_LIBS=(-lpthread -ldl -lm -lrt -lutil -lgcc_s)
build() { # name link sources...
  local name="$1" link="$2"; shift 2
  if [ "$link" = shared ]; then
    gcc -std=c89 "${C_STRICT[@]}" -g "$@" -o "$WORK/$name-$link" -L"$LIB" -lepdkit -Wl,-rpath,"$LIB"
  else
    gcc -std=c89 "${C_STRICT[@]}" -g "$@" -o "$WORK/$name-$link" "$LIB/libepdkit.a" "${STATIC_LIBS[@]}"
  fi
}
for link in shared static; do
  for ex in epd_inspect epd_normalize san_roundtrip tiny_engine referee_client; do
    build "$ex" "$link" "examples-c/$ex.c"
  done
  build api_test "$link" epd-ffi/tests/c/api_test.c epd-ffi/tests/c/second_unit.c
done

step "valgrind"
D=examples-c/data
printf '%s\n' \
  '2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - id "WAC.001"; bm Qg6;' \
  '4k3/8/8/8/8/8/8/4K2R w K - bm Kf2 O-O; c0 "two moves"; acn 8031647685;' > "$WORK/clean.epd"
printf '%s\n' 'rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - | e4 e5 Nf3 Nc6 Bb5 a6 0-0' > "$WORK/clean.txt"
fails=0
runs=0
# vg EXPECTED_EXIT STDIN NAME ARGS...: the program must exit with
# EXPECTED_EXIT and valgrind must report no error and no definite or
# indirect leak.
vg() {
  local want="$1" input="$2" name="$3"; shift 3
  local log="$WORK/vg.log" rc=0
  valgrind --error-exitcode=1 --leak-check=full --errors-for-leak-kinds=definite,indirect \
    --log-file="$log" "$WORK/$name" "$@" < "$input" > "$WORK/out.txt" 2> "$WORK/err.txt" || rc=$?
  runs=$((runs + 1))
  local summary
  summary="$(grep -o 'ERROR SUMMARY: [0-9]* errors' "$log" | tail -1)"
  if [ "$rc" = "$want" ] && [ "$summary" = "ERROR SUMMARY: 0 errors" ]; then
    echo "ok  $name $* (exit $rc, $summary)"
  else
    echo "FAIL $name $* (exit $rc, want $want; ${summary:-no summary})"
    cat "$log" "$WORK/out.txt" "$WORK/err.txt"
    fails=$((fails + 1))
  fi
}
for link in shared static; do
  vg 0 /dev/null "api_test-$link"
  vg 1 /dev/null "epd_inspect-$link" "$D/sample.epd"
  vg 0 /dev/null "epd_inspect-$link" "$WORK/clean.epd"
  vg 1 "$D/sample.epd" "epd_normalize-$link"
  vg 0 "$WORK/clean.epd" "epd_normalize-$link"
  vg 1 /dev/null "epd_normalize-$link" "$D/sample.epd" "$WORK/normalized.epd"
  vg 1 "$D/san.txt" "san_roundtrip-$link"
  vg 0 "$WORK/clean.txt" "san_roundtrip-$link"
  vg 0 /dev/null "tiny_engine-$link" "$D/engine.epd"
  vg 0 /dev/null "tiny_engine-$link" "$D/targets.epd" "$WORK/targets.epd"
done
# referee_client plays over TCP against `epd referee`, under valgrind, in
# a double round robin of four: the C client, the built-in engine at
# depths 2 and 3, and Stockfish, each started by the referee from the
# event file (which appends --referee HOST:PORT --name NAME). The PGN is
# then replayed by python-chess.
cargo build --release -p epd-cli
for link in shared static; do
  ev="$WORK/referee-$link"
  mkdir -p "$ev"
  vgcmd="valgrind --error-exitcode=9 --leak-check=full --errors-for-leak-kinds=definite,indirect"
  vgcmd="$vgcmd --log-file=$ev/vg.log $WORK/referee_client-$link \\\"\$@\\\"; echo \$? > $ev/rc"
  {
    echo 'event = "C client under valgrind"'
    echo 'listen = "127.0.0.1:0"'
    echo 'time_control = "60+1"'
    echo 'rounds = 2'
    echo 'concurrency = 2'
    echo 'reset_delay = 0'
    echo 'conclude_delay = 0'
    echo '[[players]]'
    echo 'name = "c"'
    echo "command = [\"sh\", \"-c\", \"$vgcmd\", \"sh\"]"
    for depth in 2 3; do
      echo '[[players]]'
      echo "name = \"d$depth\""
      echo "instances = 2"
      echo "command = [\"$PWD/target/release/epd\", \"play\", \"--depth\", \"$depth\"]"
    done
    echo '[[players]]'
    echo 'name = "stockfish"'
    echo "instances = 2"
    echo "command = [\"$PWD/target/release/epd\", \"play\", \"--engine\", \"stockfish\", \"--nodes\", \"5000\"]"
  } > "$ev/event.toml"
  runs=$((runs + 1))
  if "$PWD/target/release/epd" referee "$ev/event.toml" --background && [ "$(cat "$ev/rc" 2>/dev/null)" = 0 ] \
    && grep -q 'ERROR SUMMARY: 0 errors' "$ev/vg.log" && [ "$(grep -c '^\[Event ' "$ev/games.pgn")" = 24 ] \
    && python3 -c '
import sys, chess.pgn
f = open(sys.argv[1]); n = 0
while (g := chess.pgn.read_game(f)) is not None:
    n += 1
    assert not g.errors, g.errors
    b = g.board()
    for m in g.mainline_moves():
        assert b.is_legal(m), m
        b.push(m)
    o = b.outcome(claim_draw=False)
    assert o is None or o.result() == g.headers["Result"], (n, o, g.headers["Result"])
assert n == 24, n
' "$ev/games.pgn"; then
    echo "ok  referee_client-$link over TCP (double round robin of 4, 24 games, exit 0, valgrind clean)"
  else
    echo "FAIL referee_client-$link over TCP"
    cat "$ev/event.toml" "$ev/vg.log" "$ev/referee.log" 2>/dev/null | tail -60
    fails=$((fails + 1))
  fi
done
echo "valgrind: $runs runs, $fails failed"
[ "$fails" -eq 0 ]

step "install (docs/c-api.md's Install section), stripped, pkg-config"
# The commands of docs/c-api.md's Install section for a prefix the system does
# not search, as written (prog.c: an example), with HOME a temporary
# directory and no other environment than PATH: the program must build
# with pkg-config and run with only the two variables the page sets.
home="$WORK/home"
mkdir -p "$home"
env -i PATH="$PATH" HOME="$home" WORK="$WORK" bash -euo pipefail -c '
  bash epd-ffi/install.sh ~/.local
  export PKG_CONFIG_PATH="$HOME/.local/lib/pkgconfig" LD_LIBRARY_PATH="$HOME/.local/lib"
  cc examples-c/epd_inspect.c $(pkg-config --cflags --libs epdkit) -o "$WORK/inspect-pc" && "$WORK/inspect-pc" "$WORK/clean.epd"
' > /dev/null
PREFIX="$home/.local"
readelf -d "$WORK/inspect-pc" > "$WORK/dynamic.txt"
grep -q 'NEEDED.*libepdkit.so.0' "$WORK/dynamic.txt" || { echo "not linked against libepdkit.so.0"; exit 1; }
if grep -qE 'RPATH|RUNPATH' "$WORK/dynamic.txt"; then echo "pkg-config gave a run-time path"; exit 1; fi
export PKG_CONFIG_PATH="$PREFIX/lib/pkgconfig"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
test "$(pkg-config --modversion epdkit)" = "$version"
# shellcheck disable=SC2046
gcc -std=c89 "${C_STRICT[@]}" examples-c/epd_inspect.c -o "$WORK/inspect-pc-static" \
  $(pkg-config --cflags epdkit) "$PREFIX/lib/libepdkit.a" $(pkg-config --static --libs-only-l epdkit | sed 's/-lepdkit//')
"$WORK/inspect-pc-static" "$WORK/clean.epd" > /dev/null
# The installed libraries carry no debug information: the shared one is
# stripped (under 8 MB; 18 MB with it), the static one has neither debug
# sections nor LLVM bitcode (under 40 MB; 90 MB with them).
so="$PREFIX/lib/libepdkit.so.$version"
file "$so" | tee "$WORK/file.txt"
grep -q ', stripped' "$WORK/file.txt" || { echo "$so is not stripped"; exit 1; }
[ "$(stat -c %s "$so")" -lt 8000000 ] || { echo "$so is $(stat -c %s "$so") bytes"; exit 1; }
objdump -h "$PREFIX/lib/libepdkit.a" > "$WORK/sections.txt"
if grep -qE '\.debug_info|\.llvmbc' "$WORK/sections.txt"; then echo "libepdkit.a has debug sections or bitcode"; exit 1; fi
[ "$(stat -c %s "$PREFIX/lib/libepdkit.a")" -lt 40000000 ] || { echo "libepdkit.a is $(stat -c %s "$PREFIX/lib/libepdkit.a") bytes"; exit 1; }
ls -l "$so" "$PREFIX/lib/libepdkit.a"
# --keep-debug and DESTDIR: the debug information in lib/.debug, named by
# the library's .gnu_debuglink (and found there by gdb), staged under
# DESTDIR with the pkg-config file naming the real prefix.
DESTDIR="$WORK/stage" bash epd-ffi/install.sh --keep-debug /opt/epdkit > /dev/null
staged="$WORK/stage/opt/epdkit/lib"
test -f "$staged/.debug/libepdkit.so.$version.debug"
readelf --string-dump=.gnu_debuglink "$staged/libepdkit.so.$version" > "$WORK/debuglink.txt"
grep -q "libepdkit.so.$version.debug" "$WORK/debuglink.txt" || { echo "no .gnu_debuglink"; exit 1; }
grep -qx 'prefix=/opt/epdkit' "$staged/pkgconfig/epdkit.pc"
if command -v gdb >/dev/null; then
  gdb -nx -batch -ex 'info line epd_status_message' "$staged/libepdkit.so" > "$WORK/gdb.txt" 2>&1
  grep -q 'Line [0-9]* of ".*\.rs"' "$WORK/gdb.txt" || { cat "$WORK/gdb.txt"; echo "gdb does not find the debug information"; exit 1; }
fi
echo "installed stripped, found by pkg-config, linked shared and static, ran; debug information kept apart"

step "python package (pip install, mypy, pytest)"
bash .ci/python.sh

echo
echo "ffi: all checks passed"
