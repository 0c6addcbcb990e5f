#!/usr/bin/env bash
# Issue #21's figures for SimAI's 9,216-GPU example (bench/scenarios/simai_example_9216_analytical.yaml):
# user seconds and peak RSS in analytical mode with rank symmetry on and off (bench/run_symmetry.sh),
# then in flow mode, stopped as by Ctrl-C after FLOW_LIMIT seconds of wall time (default 900),
# with the simulated time and collective operations it had reached (the whole run: 8.076 s, 13.2 M).
#
#   bench/run_simai9216.sh
#   FLOW_LIMIT=0 bench/run_simai9216.sh     # analytical only
#
# LOOM defaults to build/apps/loom/loom. Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
scenario="$root/bench/scenarios/simai_example_9216_analytical.yaml"
limit="${FLOW_LIMIT:-900}"

LOOM="$loom" "$root/bench/run_symmetry.sh" "$scenario"
[[ "$limit" == 0 ]] && exit 0
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
status=0
/usr/bin/time -f '%U %M' -o "$out/time" timeout --foreground --preserve-status -s INT "$limit" "$loom" run "$scenario" --quiet --out "$out/flow" \
  --set network.mode=flow --set system.symmetry=false --set output.links=false > "$out/log" 2>&1 || status=$?
if [[ $status -ne 0 && $status -ne 130 ]]; then
  echo "run_simai9216: flow mode failed (exit $status):" >&2
  tail -3 "$out/log" >&2
  exit 1
fi
python3 - "$out" <<'PY'
import json, sys
out = sys.argv[1]
user, rss = open(f"{out}/time").read().split()[-2:]
s = json.load(open(f"{out}/flow/summary.json"))
t = s["totals"]
done = (("complete" if s.get("complete", True) else f"stopped ({s.get('stop_reason', '?')})")
        + f" at {t['makespan_us'] / 1e6:.4f} s simulated, {t['collectives']} collective operations")
print(f"flow mode: {float(user):.1f} s user, {int(rss) / 1024:.0f} MiB peak, {done}")
PY
