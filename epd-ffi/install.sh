#!/usr/bin/env bash
# Installs libepdkit (shared and static), its header and a pkg-config file
# under PREFIX (default /usr/local), from a release build:
#   cargo build --release -p epd-ffi && bash epd-ffi/install.sh [PREFIX]
# Then: cc prog.c $(pkg-config --cflags --libs epdkit)
# (set PKG_CONFIG_PATH=PREFIX/lib/pkgconfig for a prefix pkg-config does
# not search), or, static: $(pkg-config --static --cflags --libs epdkit)
# with -l:libepdkit.a in place of -lepdkit.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix="${1:-/usr/local}"
lib="${CARGO_TARGET_DIR:-target}/release"
version="$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)"
major="${version%%.*}"
for f in libepdkit.so libepdkit.a; do
  [ -f "$lib/$f" ] || { echo "$lib/$f not found: run cargo build --release -p epd-ffi" >&2; exit 1; }
done
install -d "$prefix/lib/pkgconfig" "$prefix/include"
install -m 0755 "$lib/libepdkit.so" "$prefix/lib/libepdkit.so.$version"
ln -sf "libepdkit.so.$version" "$prefix/lib/libepdkit.so.$major"
ln -sf "libepdkit.so.$major" "$prefix/lib/libepdkit.so"
install -m 0644 "$lib/libepdkit.a" "$prefix/lib/libepdkit.a"
install -m 0644 include/epdkit.h "$prefix/include/epdkit.h"
sed -e "s|@PREFIX@|$prefix|" -e "s|@VERSION@|$version|" epd-ffi/epdkit.pc.in > "$prefix/lib/pkgconfig/epdkit.pc"
echo "installed libepdkit $version under $prefix"
