#!/usr/bin/env bash
# Runs Loom scenario files and prints, per file: wall and CPU time, peak RSS, transfers
# (flows; jobs for a cluster scenario), events, and flows (jobs) per wall-clock second.
#
#   bench/run_scenarios.sh                          # every bench/scenarios/*.yaml
#   bench/run_scenarios.sh bench/scenarios/gpt175b_1024_flow.yaml
#   LOOM=/tmp/build/apps/loom/loom bench/run_scenarios.sh FILE...
#
# LOOM defaults to build/apps/loom/loom (build it first: `make build`). Each run writes into a
# temporary directory that is removed afterwards. Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
if [[ ! -x "$loom" ]]; then
  echo "run_scenarios: no loom binary at $loom (build it, or set LOOM)" >&2
  exit 2
fi
if [[ $# -eq 0 ]]; then
  set -- "$root"/bench/scenarios/*.yaml
fi

printf '%-24s %9s %9s %9s %10s %12s %13s %11s\n' scenario wall_s user_s sys_s peak_MiB flows events flows/s
for file in "$@"; do
  out="$(mktemp -d)"
  if ! /usr/bin/time -f '%e %U %S %M' -o "$out/time" "$loom" run "$file" --out "$out/results" > "$out/log" 2>&1; then
    echo "run_scenarios: $file failed:" >&2
    tail -5 "$out/log" >&2
    rm -rf "$out"
    exit 1
  fi
  read -r wall user sys rss_kb < <(tail -1 "$out/time")
  python3 - "$file" "$out/results/summary.json" "$wall" "$user" "$sys" "$rss_kb" <<'PY'
import json, os, sys
name, summary, wall, user, sys_s, rss_kb = sys.argv[1:]
record = json.load(open(summary))
wall = float(wall)
# A cluster run counts jobs where a network run counts flows.
totals = record["totals"] if "totals" in record else {"transfers": record["jobs"]["count"], "events": record["events"]}
flows = totals["transfers"]
print(f"{os.path.basename(name).removesuffix('.yaml'):<24} {wall:9.2f} {float(user):9.2f} {float(sys_s):9.2f} "
      f"{int(rss_kb) / 1024:10.0f} {flows:12d} {totals['events']:13d} {flows / max(wall, 1e-9):11.0f}")
PY
  rm -rf "$out"
done
