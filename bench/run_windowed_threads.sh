#!/usr/bin/env bash
# The windowed packet executor on 2 threads against 1, on the WebSearch-like 30% load over the
# HPCC fat320 fixture's fabric (20 racks as LPs, lookahead 1 us), back to back in one process:
# prints each run's wall and user time, events, windows (synchronisation rounds), events handed
# to another LP, the threads' window imbalance and rebalances, the load average beside each wall
# time, and the ratios of events per second of wall time. Wall times mean something only on an
# idle machine (a load average under the core count).
#
#   bench/run_windowed_threads.sh            # DCQCN
#   CC=hpcc bench/run_windowed_threads.sh
#   THREADS="1 2 4" bench/run_windowed_threads.sh
#
# BENCH defaults to build/bench/loom_bench.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bench="${BENCH:-$root/build/bench/loom_bench}"
cc="${CC:-dcqcn}"
threads="${THREADS:-1 2}"
[[ -x "$bench" ]] || { echo "run_windowed_threads: no $bench (build the loom_bench target)" >&2; exit 2; }
cores="$(nproc)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

names=(serial)
for t in $threads; do
  if [[ "$t" == 1 ]]; then names+=(racks_1_thread); else names+=("racks_${t}_threads"); fi
done
for name in "${names[@]}"; do
  load_before="$(cut -d' ' -f1 /proc/loadavg)"
  "$bench" --benchmark_filter="packet/windowed/websearch30_fat320/$cc/$name/" --benchmark_out="$out/$name.json" \
    --benchmark_out_format=json > "$out/$name.log" 2> "$out/$name.err" ||
    { echo "run_windowed_threads: $name failed:" >&2; tail -5 "$out/$name.err" >&2; exit 1; }
  load_after="$(cut -d' ' -f1 /proc/loadavg)"
  echo "$load_before $load_after" > "$out/$name.load"
done

python3 - "$out" "$cores" "${names[@]}" <<'PY'
import json, sys
out, cores, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
runs = {}
for name in names:
    b = json.load(open(f"{out}/{name}.json"))["benchmarks"][0]
    before, after = open(f"{out}/{name}.load").read().split()
    runs[name] = b
    print(f"{name:16} wall {b['wall_s']:7.3f} s (load {before} -> {after} on {cores} cores)  user {b['user_s']:7.3f} s  "
          f"events {b['events']:,.0f}  windows {b['windows']:,.0f}  handed over {b['handed_over']:,.0f} "
          f"({b['handed_over'] / b['events']:.3f}/event)  threads {b['threads']:.0f}  "
          f"window imbalance {b['window_imbalance']:.3f}  rebalances {b['rebalances']:.0f}")
    if b["events"] != runs[names[0]]["events"]:
        sys.exit(f"run_windowed_threads: {name} ran {b['events']} events, the serial run {runs[names[0]]['events']}")
one = runs.get("racks_1_thread")
for name in names:
    if not name.startswith("racks_") or name == "racks_1_thread":
        continue
    b = runs[name]
    line = f"{name}: wall speed-up {runs['serial']['wall_s'] / b['wall_s']:.2f}x over serial"
    if one:
        line += (f", {one['wall_s'] / b['wall_s']:.2f}x over 1 thread; user time "
                 f"{b['user_s'] / one['user_s']:.2f}x of 1 thread's")
    print(line)
PY
