#!/usr/bin/env bash
# Installs libepdkit (shared and static, stripped), its header and a
# pkg-config file under PREFIX (default /usr/local), from a release build:
#   cargo build --release --locked -p epd-ffi
#   bash epd-ffi/install.sh [--keep-debug] [PREFIX]
# --keep-debug also installs the shared library's debug information as
# PREFIX/lib/.debug/libepdkit.so.VERSION.debug, which the library names
# (.gnu_debuglink) and gdb finds there by itself. DESTDIR=DIR stages the
# files under DIR (for packages); the pkg-config file still names PREFIX.
# Then (docs/c-api.md, Install):
#   cc prog.c $(pkg-config --cflags --libs epdkit)
# with PKG_CONFIG_PATH=PREFIX/lib/pkgconfig and, to run the program,
# LD_LIBRARY_PATH=PREFIX/lib for a prefix the system does not search
# (for /usr/local run ldconfig once after installing), or, static:
# $(pkg-config --static --cflags --libs epdkit) with -l:libepdkit.a in
# place of -lepdkit.
set -euo pipefail
cd "$(dirname "$0")/.."
keep_debug=0
if [ "${1:-}" = --keep-debug ]; then keep_debug=1; shift; fi
case "${1:-}" in
  -*) echo "usage: bash epd-ffi/install.sh [--keep-debug] [PREFIX]" >&2; exit 2 ;;
esac
prefix="${1:-/usr/local}"
case "$prefix" in
  /*) ;;
  *) prefix="$PWD/$prefix" ;; # the pkg-config file needs an absolute path
esac
dest="${DESTDIR:-}$prefix"
lib="${CARGO_TARGET_DIR:-target}/release"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
major="${version%%.*}"
STRIP="${STRIP:-strip}"
OBJCOPY="${OBJCOPY:-objcopy}"
for f in libepdkit.so libepdkit.a; do
  [ -f "$lib/$f" ] || { echo "$lib/$f not found: run cargo build --release --locked -p epd-ffi first" >&2; exit 1; }
done
for tool in "$STRIP" "$OBJCOPY"; do
  command -v "$tool" >/dev/null || { echo "$tool not found: install binutils (or set STRIP and OBJCOPY)" >&2; exit 1; }
done

# The release profile keeps debug information (for profiling): 20 MB of
# the shared library and most of the static one. What is installed is
# stripped: the shared library of everything it does not need to be
# loaded (4 MB), the static one of its debug information and of the LLVM
# bitcode rustc embeds for cross-language LTO (15 MB, from 90).
stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
so="libepdkit.so.$version"
cp "$lib/libepdkit.so" "$stage/$so"
cp "$lib/libepdkit.a" "$stage/libepdkit.a"
if [ "$keep_debug" = 1 ]; then
  "$OBJCOPY" --only-keep-debug "$stage/$so" "$stage/$so.debug"
fi
"$STRIP" --strip-unneeded "$stage/$so"
"$STRIP" --strip-debug -R .llvmbc -R .llvmcmd "$stage/libepdkit.a"
if [ "$keep_debug" = 1 ]; then
  (cd "$stage" && "$OBJCOPY" --add-gnu-debuglink="$so.debug" "$so")
fi

install -d "$dest/lib/pkgconfig" "$dest/include"
install -m 0755 "$stage/$so" "$dest/lib/$so"
ln -sf "$so" "$dest/lib/libepdkit.so.$major"
ln -sf "libepdkit.so.$major" "$dest/lib/libepdkit.so"
install -m 0644 "$stage/libepdkit.a" "$dest/lib/libepdkit.a"
if [ "$keep_debug" = 1 ]; then
  install -d "$dest/lib/.debug"
  install -m 0644 "$stage/$so.debug" "$dest/lib/.debug/$so.debug"
fi
install -m 0644 include/epdkit.h "$dest/include/epdkit.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" epd-ffi/epdkit.pc.in > "$dest/lib/pkgconfig/epdkit.pc"
chmod 0644 "$dest/lib/pkgconfig/epdkit.pc"
echo "installed libepdkit $version under $dest"
