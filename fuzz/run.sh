#!/usr/bin/env bash
# Seeds the libFuzzer corpora from shared/corpora and runs each fuzz target
# for a bounded number of executions and time, one after the other.
#
#   fuzz/run.sh [TARGET...]            all targets by default
#   RUNS=10000000 MAX_TIME=1800 fuzz/run.sh fen record
#
# Needs the nightly toolchain and cargo-fuzz (cargo install --locked
# cargo-fuzz). Corpora go to fuzz/corpus/<target>/ (not committed), crash
# inputs to fuzz/artifacts/<target>/, logs to fuzz/logs/<target>.log.
set -euo pipefail
cd "$(dirname "$0")"

RUNS="${RUNS:-10000000}"            # executions per target
MAX_TIME="${MAX_TIME:-3600}"        # seconds per target, whichever ends first
RSS_MB="${RSS_MB:-2048}"            # libFuzzer's memory limit
TIMEOUT="${TIMEOUT:-10}"            # seconds for one input
# Longest input (bytes). pgn defaults to 2048: a whole game fits, and an
# execution costs about the input's length, so 64 KiB games ran at a
# quarter of the rate; long and deeply nested PGN is covered by
# epd-cli/tests/hostile.rs. MAX_LEN overrides it for every target.
# epd-core forbids unsafe code, so ASan adds little to the parser targets
# and halves their speed: they run without a sanitizer (overflow checks and
# debug assertions stay on). capi, which crosses the unsafe FFI layer, runs
# under AddressSanitizer. SANITIZER overrides both.
# CARGO_TARGET_DIR is optional (cargo fuzz defaults to fuzz/target).

corpora=""
for d in "${EPDKIT_CORPORA:-}" ../../shared/corpora; do
  if [ -n "$d" ] && [ -f "$d/MANIFEST.tsv" ]; then corpora="$d"; break; fi
done
[ -n "$corpora" ] || { echo "shared/corpora not found: set EPDKIT_CORPORA" >&2; exit 1; }

# split FILE... -> one seed file per line (at most $PER lines of each file,
# blank lines skipped), named <prefix>-<n>, into DIR, each prefixed by $HEAD.
seed_lines() {
  local dir="$1" prefix="$2" head="$3"; shift 3
  local f
  for f in "$@"; do
    awk -v dir="$dir" -v p="$prefix-$(basename "$f")" -v head="$head" -v per="${PER:-300}" '
      NF && n < per { n++; printf "%s%s", head, $0 > (dir "/" p "-" n); close(dir "/" p "-" n) }' "$f"
  done
}

# one seed per PGN game (the first $PER games of each file).
seed_games() {
  local dir="$1"; shift
  local f
  for f in "$@"; do
    awk -v dir="$dir" -v p="$(basename "$f")" -v per="${PER:-300}" '
      /^\[Event / { n++ } n >= 1 && n <= per { print > (dir "/" p "-" n) }
      n > per { exit }' "$f"
  done
}

seed() {
  local t="$1" dir="corpus/$1"
  mkdir -p "$dir"
  [ -n "$(ls -A "$dir")" ] && return 0   # keep what earlier runs found
  local epd=("$corpora"/*.epd "$corpora"/*.fen)
  case "$t" in
    fen|record) seed_lines "$dir" "$t" "" "${epd[@]}" ;;
    capi)       seed_lines "$dir" s "" "${epd[@]}"; seed_lines "$dir" l $'\x01' "${epd[@]}" ;;
    pgn)        seed_games "$dir" "$corpora"/*.pgn ;;
    san_strict|san_lenient)
      # A zero ply count (start position) followed by real movetext.
      PER=200 seed_lines "$dir" "$t" $'\x00' "$corpora"/8moves_v3.pgn
      # Random play, then SAN tokens from the corpora (bm/am/pv operands).
      awk -v dir="$dir" 'NR <= 500 { printf "%c%s", 1 + NR % 100, $0 > (dir "/rand-" NR); close(dir "/rand-" NR) }' \
        "$corpora"/wac_arasan.epd "$corpora"/STS1-STS15_LAN_v3.epd ;;
    referee_records|referee_director)
      # The guide's example exchange (C: and R: lines), then corpus lines.
      grep -E '^[CR]: ' ../docs/argus.md | sed 's/^[CR]: //' > "$dir/exchange"
      i=0
      while IFS= read -r l; do i=$((i+1)); printf '%s' "$l" > "$dir/x-$i"; done < "$dir/exchange"
      [ "$t" = referee_director ] && for f in "$dir"/x-*; do { printf '\x00\n\x04'; cat "$f"; } > "$f.s"; done
      seed_lines "$dir" "$t" "" "$corpora"/wac_arasan.epd ;;
    standby_wire)
      printf 'EPDKIT-STANDBY follow token=s3cret listen=127.0.0.1:7000 heartbeat_ms=2000' > "$dir/follow"
      printf 'EPDKIT-STANDBY probe token=s3cret' > "$dir/probe"
      printf 'EPDKIT-STANDBY yield epoch=3 token=s3cret' > "$dir/yield"
      printf 'C 17' > "$dir/commit"; printf 'A 3' > "$dir/ack"; printf 'J {"t":"start","game":0}' > "$dir/entry" ;;
    journal)
      # Frames of real entries: length, CRC-32 left for the fuzzer to find.
      printf '\x2e\x00\x00\x00\x00\x00\x00\x00{"t":"begin","epoch":1,"event":"e","games":12,"date":"d"}' > "$dir/begin" ;;
    event_file)
      sed -n '/^```toml/,/^```/p' ../epd-referee/src/event.rs | sed 's#^//! ##; /```/d' > "$dir/example" ;;
    tuning_history)
      # A history of games and one of a suite, as epd tune writes them,
      # behind the window byte.
      printf '\x03iteration,k,wins,draws,losses,result,Margin,Margin+,Margin-,c(Margin),a(Margin),before(Margin),Skill Level,Skill Level+,Skill Level-,c(Skill Level),a(Skill Level),before(Skill Level)\n1,2,2,1,1,1,110,120,80,20,0.5,100,5,6,4,1,0.1,5\n2,4,0,2,2,-2,100,90,130,19,0.5,110,4.5,4,6,1,0.1,5\n' > "$dir/games"
      printf '\x02iteration,k,solved_percent+,solved_percent-,result,X,X+,X-,c(X),a(X),before(X)\n1,1,50,40,10,12,15,5,5,0.2,10\n2,2,45,55,-10,10,7,17,5,0.2,12\n' > "$dir/suite" ;;
    tuning_state)
      # A run's state as epd tune writes it.
      printf '{"params":[{"name":"Margin","value":102.4,"min":0.0,"max":400.0,"c_end":20.0,"r_end":0.002}],"schedule":{"iterations":40,"alpha":0.602,"gamma":0.101,"big_a":4.0},"k":40,"rng":7}' > "$dir/state" ;;
    token_redaction)
      # Spelling bytes, then a token.
      printf '\x00\x00s3cret' > "$dir/plain"; printf '\x31\x02a"b\\c;d' > "$dir/escaped" ;;
    supervisor_query)
      for q in 'action=pause&game=3' 'action=resume&game=all' 'action=adjudicate&game=2&result=1/2-1/2' \
               'action=abort&game=1' 'action=restart&player=alpha'; do printf '%s' "$q" > "$dir/$(echo "$q" | tr '&=/' '___')"; done ;;
  esac
}

targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fen record san_strict san_lenient pgn capi \
  referee_records referee_director standby_wire journal event_file supervisor_query tuning_history tuning_state \
  token_redaction)
mkdir -p logs
for t in "${targets[@]}"; do
  seed "$t"
  echo "== $t: $(ls "corpus/$t" | wc -l) seeds, -runs=$RUNS -max_total_time=$MAX_TIME"
  start=$(date +%s)
  san="${SANITIZER:-}"
  [ -n "$san" ] || { [ "$t" = capi ] && san=address || san=none; }
  max_len="${MAX_LEN:-}"
  [ -n "$max_len" ] || { [ "$t" = pgn ] && max_len=2048 || max_len=65536; }
  set +e
  nice -n 10 cargo +nightly fuzz run -s "$san" --target-dir "${CARGO_TARGET_DIR:-$PWD/target}" "$t" "corpus/$t" -- \
    -runs="$RUNS" -max_total_time="$MAX_TIME" -rss_limit_mb="$RSS_MB" -timeout="$TIMEOUT" \
    -max_len="$max_len" -print_final_stats=1 >"logs/$t.log" 2>&1
  rc=$?
  set -e
  grep -E "^(#[0-9]+ *DONE|==|SUMMARY|stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb))|panicked|ERROR" \
    "logs/$t.log" || true
  echo "== $t: exit $rc after $(( $(date +%s) - start )) s"
  [ "$rc" -eq 0 ] || exit "$rc"
done
