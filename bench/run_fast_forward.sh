#!/usr/bin/env bash
# Runs packet scenarios with fast-forward (as the file sets it) and as the full packet run
# (--set network.packet.fast_forward.enabled=false), and prints both runs' user time and peak
# RSS and the comparison of scripts/compare-runs.py (iteration time, per-flow FCT errors,
# events), plus the fast-forward counters.
#
#   bench/run_fast_forward.sh bench/scenarios/fast_forward/gpt7b_64_packet.yaml [--set KEY=VALUE ...]
#   OUT=/tmp/ff bench/run_fast_forward.sh FILE     # keep both runs' outputs in /tmp/ff/{full,fast}
#   FULL=/tmp/ff/full bench/run_fast_forward.sh FILE  # compare against an earlier full run
#
# Extra arguments go to both runs. LOOM defaults to build/apps/loom/loom. Full packet runs of
# these scenarios take minutes to hours: run them once, and not while timing anything else.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
if [[ $# -lt 1 || ! -f "$1" ]]; then
  echo "usage: bench/run_fast_forward.sh SCENARIO.yaml [loom run arguments...]" >&2
  exit 2
fi
file="$1"
shift
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"

run() {  # run NAME ARGS...: one loom run into $out/NAME, timed
  local name="$1"
  shift
  /usr/bin/time -f '%U %M' -o "$out/$name.time" "$loom" run "$file" --out "$out/$name" --quiet "$@" > "$out/$name.log" 2>&1 ||
    { echo "run_fast_forward: the $name run failed:" >&2; tail -5 "$out/$name.log" >&2; exit 1; }
  read -r user rss_kb < "$out/$name.time"
  printf '%-5s user %9.2f s, peak RSS %7d MiB\n' "$name" "$user" "$((rss_kb / 1024))"
}

full="${FULL:-}"
if [[ -z "$full" ]]; then
  run full "$@" --set network.packet.fast_forward.enabled=false
  full="$out/full"
fi
run fast "$@"
python3 "$root/scripts/compare-runs.py" "$full" "$out/fast"
python3 - "$out/fast/summary.json" <<'PY'
import json, sys
ff = json.load(open(sys.argv[1]))["network"]["fast_forward"]
skipped, simulated = ff["events_skipped_estimate"], ff["events_simulated"]
share = skipped / max(1, skipped + simulated)
print(f"fast-forward: {ff['skips']} skips, {ff['skipped_data_packets']:,} data packets credited, "
      f"events skipped (estimate) {skipped:,} = {100 * share:.2f}%, memo {ff['memo_size']} entries "
      f"({ff['memo_hits']} hits, {ff['memo_misses']} misses)")
PY
[[ -n "${OUT:-}" ]] || rm -rf "$out"
