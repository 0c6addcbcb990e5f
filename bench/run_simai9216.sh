#!/usr/bin/env bash
# Issue #21's figures for SimAI's 9,216-GPU example (bench/scenarios/simai_example_9216_analytical.yaml):
# user seconds and peak RSS in analytical mode with rank symmetry on and off (bench/run_symmetry.sh),
# then in flow mode with symmetry on and off, each stopped as by Ctrl-C after FLOW_LIMIT seconds
# of wall time (default 900), with the simulated time and collective operations it had reached
# (the whole run: 8.076 s, 13.2 M) and, with symmetry, the classes and operations skipped.
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
# One flow-mode run with system.symmetry=$1, stopped after $limit s of wall time.
flow_run() {
  local symmetry="$1" status=0
  /usr/bin/time -f '%U %M' -o "$out/time_$symmetry" timeout --foreground --preserve-status -s INT "$limit" \
    "$loom" run "$scenario" --quiet --out "$out/flow_$symmetry" \
    --set network.mode=flow --set system.symmetry="$symmetry" --set output.links=false > "$out/log_$symmetry" 2>&1 || status=$?
  if [[ $status -ne 0 && $status -ne 130 ]]; then
    echo "run_simai9216: flow mode (symmetry $symmetry) failed (exit $status):" >&2
    tail -3 "$out/log_$symmetry" >&2
    exit 1
  fi
  python3 - "$out" "$symmetry" <<'PY'
import json, sys
out, symmetry = sys.argv[1:]
user, rss = open(f"{out}/time_{symmetry}").read().split()[-2:]
s = json.load(open(f"{out}/flow_{symmetry}/summary.json"))
t = s["totals"]
done = (("complete" if s.get("complete", True) else f"stopped ({s.get('stop_reason', '?')})")
        + f" at {t['makespan_us'] / 1e6:.6f} s simulated, {t['collectives']} collective operations")
sym = s.get("symmetry", {})
if sym.get("applied"):
    done += (f"; {sym['classes']} classes, {sym['skipped_operations']} operations skipped, "
             f"{sym.get('twin_operations_run', 0)} twins run")
elif symmetry == "true":
    done += f"; symmetry declined: {sym.get('declined', '?')}"
print(f"flow mode, symmetry {symmetry}: {float(user):.1f} s user, {int(rss) / 1024:.0f} MiB peak, {done}")
PY
}
flow_run true
flow_run false
