#!/usr/bin/env bash
# The windowed packet executor on 2 threads against 1 and against the serial run, on the
# WebSearch-like 30% load over the HPCC fixture's fat320 fabric (20 racks as LPs, lookahead 1 us;
# flows starting for 3 ms, a few seconds serial: LOAD=websearch30_fat320 for 500 us), back to back:
# prints each run's wall and user time, events, windows (synchronisation rounds), events handed
# to another LP, the threads' window imbalance and rebalances, the load average beside each wall
# time, and the ratios of events per second of wall time. Wall times mean something only on an
# idle machine (a load average under the core count).
#
# Then the same for `loom run` of a 128-GPU training iteration in packet mode
# (bench/scenarios/windowed/gpt13b_128_packet.yaml, minutes per run): serial, then each thread
# count over its LPs, with windows (and those cut at a possible completion), handed-over events,
# imbalance and rebalances from each summary, the wall and user ratios against the serial run and
# one thread, and a check that every windowed run wrote the serial run's CSV files
# (TRAINING=0 skips it).
#
# FAST_FORWARD=1 runs only the training, each run with packet fast-forward on and DCQCN's window
# (network.packet.fast_forward.enabled, network.packet.window: rate-only DCQCN's training traffic
# is not skipped, src/loom/network/packet/fastforward/README.md), prints each run's skips, skipped
# packets and simulated events, and checks that every windowed run's fast-forward statistics and
# CSV files are the serial fast-forward run's.
#
#   bench/run_windowed_threads.sh            # DCQCN
#   CC=hpcc bench/run_windowed_threads.sh
#   THREADS="1 2 4" bench/run_windowed_threads.sh
#   FAST_FORWARD=1 bench/run_windowed_threads.sh
#
# BENCH defaults to build/bench/loom_bench, LOOM to build/apps/loom/loom.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
bench="${BENCH:-$root/build/bench/loom_bench}"
cc="${CC:-dcqcn}"
load="${LOAD:-websearch30_fat320_3ms}"
threads="${THREADS:-1 2}"
fast_forward="${FAST_FORWARD:-0}"
cores="$(nproc)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

# Runs the command after NAME (its output in $out/NAME.log), noting the load average before and
# after it in $out/NAME.load.
timed() {
  local name="$1" before
  shift
  before="$(cut -d' ' -f1 /proc/loadavg)"
  "$@" > "$out/$name.log" 2> "$out/$name.err" ||
    { echo "run_windowed_threads: $name failed:" >&2; tail -5 "$out/$name.err" >&2; exit 1; }
  echo "$before $(cut -d' ' -f1 /proc/loadavg)" > "$out/$name.load"
}

if [[ "$fast_forward" != 1 ]]; then
[[ -x "$bench" ]] || { echo "run_windowed_threads: no $bench (build the loom_bench target)" >&2; exit 2; }
names=(serial)
for t in $threads; do
  if [[ "$t" == 1 ]]; then names+=(racks_1_thread); else names+=("racks_${t}_threads"); fi
done
for name in "${names[@]}"; do
  timed "$name" "$bench" --benchmark_filter="packet/windowed/$load/$cc/$name/" \
    --benchmark_out="$out/$name.json" --benchmark_out_format=json
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
fi

[[ "${TRAINING:-1}" == 0 ]] && exit 0
loom="${LOOM:-$root/build/apps/loom/loom}"
[[ -x "$loom" ]] || { echo "run_windowed_threads: no $loom (build the loom target)" >&2; exit 2; }
scenario="$root/bench/scenarios/windowed/gpt13b_128_packet.yaml"
echo "training: $(basename "$scenario")"
runs=(serial)
for t in $threads; do runs+=("$t"); done
ff_args=()
[[ "$fast_forward" == 1 ]] && ff_args=(--set network.packet.fast_forward.enabled=true --set network.packet.window=true)
for run in "${runs[@]}"; do
  if [[ "$run" == serial ]]; then set_args=(--set network.packet.lp_delay_threshold=0s); else set_args=(--set "network.packet.threads=$run"); fi
  timed "train_$run" /usr/bin/time -f "%U %e" -o "$out/train_$run.time" "$loom" run "$scenario" --out "$out/train_$run" \
    --quiet "${set_args[@]}" "${ff_args[@]}"
done
python3 - "$out" "$cores" "${runs[@]}" <<'PY'
import json, sys
out, cores, runs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
res = {}
for run in runs:
    user, wall = map(float, open(f"{out}/train_{run}.time").read().split()[-2:])
    before, after = open(f"{out}/train_{run}.load").read().split()
    s = json.load(open(f"{out}/train_{run}/summary.json"))
    w = s["network"].get("windows", {})
    res[run] = (user, wall, s["totals"]["makespan_ps"])
    line = f"{run:8} wall {wall:8.2f} s (load {before} -> {after} on {cores} cores)  user {user:8.2f} s"
    if w:
        t = w["threads"]
        line += (f"  LPs {w['lps']}  lp events {w['lp_events']:,}  windows {w['windows']:,}  global steps "
                 f"{w['global_steps']:,}  handed over {w['handed_over']:,} ({w['handed_over'] / w['lp_events']:.3f}/event)  "
                 f"cut {w['cut']:,}  threads {t['count']}  window imbalance "
                 f"{t['imbalance_permille'] / 1000:.3f}  rebalances {t['rebalances']}")
    else:
        line += f"  events {s['totals']['events']:,}"
    ff = s["network"].get("fast_forward")
    if ff:
        line += (f"  fast-forward: skips {ff['skips']:,}  skipped packets {ff['skipped_data_packets']:,}  "
                 f"events simulated {ff['events_simulated']:,}  memo hits {ff['memo_hits']:,}")
        if ff != json.load(open(f"{out}/train_serial/summary.json"))["network"]["fast_forward"]:
            sys.exit(f"run_windowed_threads: {run} thread(s) reported other fast-forward statistics than the serial run")
    print(line)
windowed = [r for r in runs if r != "serial"]
for r in windowed:
    for csv in ("collectives.csv", "flows.csv", "ranks.csv"):
        if open(f"{out}/train_{r}/{csv}", "rb").read() != open(f"{out}/train_serial/{csv}", "rb").read():
            sys.exit(f"run_windowed_threads: {r} thread(s) wrote another {csv} than the serial run")
for r in windowed:
    line = (f"training {r} thread(s): wall speed-up {res['serial'][1] / res[r][1]:.2f}x over serial, user time "
            f"{res[r][0] / res['serial'][0]:.2f}x of serial")
    if r != windowed[0]:
        line += (f"; {res[windowed[0]][1] / res[r][1]:.2f}x over {windowed[0]} thread(s), user time "
                 f"{res[r][0] / res[windowed[0]][0]:.2f}x of {windowed[0]} thread(s)")
    print(line)
PY
