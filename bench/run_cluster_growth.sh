#!/usr/bin/env bash
# How the packed cluster week grows with jobs and with cluster size (issue #14): runs
# bench/scenarios/cluster_week_flow.yaml with packed placement and fast_forward.groups pairs at
# each point HOSTS:F, where F scales every synthetic class's job count by F (rounded) and its
# mean inter-arrival time by 1/F, so the jobs still span the week. With HOSTS fixed, F sets the
# jobs (and the offered load); with HOSTS scaled by F too, the load per GPU stays the same.
# Prints user and system seconds, wall, peak RSS, simulations, events and jobs done per point.
#
#   bench/run_cluster_growth.sh                     # jobs 125/250/500 on 512 hosts; 128/256/512 hosts at 60% load
#   bench/run_cluster_growth.sh 128:0.25 256:0.5    # chosen points
#   OUT=/tmp/growth bench/run_cluster_growth.sh     # keep the runs' outputs
#
# LOOM defaults to build/apps/loom/loom; SCENARIO to the week. Needs GNU time and python3. The
# default points take ~13 CPU minutes (the 500-job week 5.4); wall time depends on the
# machine's load, so compare user times. Results: bench/README.md.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
scenario="${SCENARIO:-$root/bench/scenarios/cluster_week_flow.yaml}"
points=("$@")
[[ ${#points[@]} -gt 0 ]] || points=(512:0.25 512:0.5 512:1 128:0.25 256:0.5)
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"

printf '%6s %6s %5s %9s %8s %9s %8s %6s %11s %10s\n' hosts GPUs jobs user_s sys_s wall_s peak_MiB sims events jobs_done
for point in "${points[@]}"; do
  hosts="${point%%:*}"
  fraction="${point#*:}"
  if ! [[ "$hosts" =~ ^[0-9]+$ && "$fraction" =~ ^[0-9]*\.?[0-9]+$ ]]; then
    echo "run_cluster_growth: point '$point' is not HOSTS:FRACTION (e.g. 256:0.5)" >&2
    exit 2
  fi
  name="h${hosts}_f${fraction}"
  # The scenario with every class's count scaled by F and its arrival mean by 1/F.
  python3 - "$scenario" "$fraction" > "$out/$name.yaml" <<'PY'
import re, sys
text, f = open(sys.argv[1]).read(), float(sys.argv[2])
def scale(m):
    count = max(1, round(int(m.group(1)) * f))
    return f"count: {count}, arrivals: {{dist: exponential, mean: {float(m.group(2)) / f:g}{m.group(3)}}}"
text, n = re.subn(r"count: (\d+), arrivals: \{dist: exponential, mean: ([\d.]+)(min|h|s)\}", scale, text)
if n == 0:
    sys.exit("run_cluster_growth: no 'count: N, arrivals: {dist: exponential, mean: M}' classes in the scenario")
print(text, end="")
PY
  if ! /usr/bin/time -f '%U %S %e %M' -o "$out/$name.time" "$loom" run "$out/$name.yaml" --out "$out/$name" --quiet \
      --set topology.hosts="$hosts" --set cluster.placement=packed --set cluster.fast_forward.groups=pairs \
      > "$out/$name.log" 2>&1; then
    echo "run_cluster_growth: point $point failed:" >&2
    tail -5 "$out/$name.log" >&2
    exit 1
  fi
  python3 - "$out/$name.time" "$out/$name/summary.json" "$hosts" <<'PY'
import json, sys
user, system, wall, rss_kb = open(sys.argv[1]).read().split()[-4:]
s = json.load(open(sys.argv[2]))
sim, jobs = s["simulation"], s["jobs"]
print(f"{int(sys.argv[3]):6d} {s['cluster']['gpus']:6d} {jobs['count']:5d} {float(user):9.1f} {float(system):8.1f} "
      f"{float(wall):9.1f} {int(rss_kb) / 1024:8.0f} {sim['simulations']:6d} {sim['events']:11d} {jobs['finished']:10d}")
PY
done
