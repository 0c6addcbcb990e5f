#!/usr/bin/env bash
# Runs Loom scenario files with rank symmetry on (system.symmetry true) and off, back to back,
# and prints per file: user seconds and peak RSS of each run, their ratios, and the classes the
# reduced run simulated (or why it declined). Extra arguments after `--` go to both runs.
#
#   bench/run_symmetry.sh bench/scenarios/gpt175b_1024_analytical.yaml
#   bench/run_symmetry.sh FILE... -- --set workload.dp=64 --set topology.hosts=512
#
# LOOM defaults to build/apps/loom/loom. Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
files=()
while [[ $# -gt 0 && "$1" != "--" ]]; do files+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
printf '%-28s %9s %9s %9s %9s %8s %8s  %s\n' scenario user_on user_off MiB_on MiB_off user_x rss_x symmetry
for file in "${files[@]}"; do
  out="$(mktemp -d)"
  for mode in true false; do
    if ! /usr/bin/time -f '%U %M' -o "$out/time_$mode" "$loom" run "$file" --quiet --out "$out/$mode" \
        --set system.symmetry=$mode "$@" > "$out/log_$mode" 2>&1; then
      echo "run_symmetry: $file (symmetry $mode) failed:" >&2
      tail -3 "$out/log_$mode" >&2
      rm -rf "$out"
      exit 1
    fi
  done
  python3 - "$file" "$out" <<'PY'
import json, os, sys
name, out = sys.argv[1:]
def timing(mode):
    user, rss = open(f"{out}/time_{mode}").read().split()[-2:]
    return float(user), int(rss) / 1024
(u_on, m_on), (u_off, m_off) = timing("true"), timing("false")
s = json.load(open(f"{out}/true/summary.json"))["symmetry"]
what = (f"{s['classes']} classes of {s['ranks']} ranks, {s['mirrored_nodes']} of {s['nodes']} nodes mirrored"
        if s["applied"] else "declined: " + s["declined"][:80])
print(f"{os.path.basename(name).removesuffix('.yaml'):<28} {u_on:9.2f} {u_off:9.2f} {m_on:9.0f} {m_off:9.0f} "
      f"{u_off / max(u_on, 1e-9):8.2f} {m_off / max(m_on, 1e-9):8.2f}  {what}")
PY
  rm -rf "$out"
done
