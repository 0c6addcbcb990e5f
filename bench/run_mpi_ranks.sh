#!/usr/bin/env bash
# One packet simulation split over MPI ranks against one process: `loom hpcc` on the HPCC
# fat320 fixture's fabric (the DCQCN config) under a WebSearch-like 30% load
# (bench/websearch_flows.py), racks as LPs (56 LPs, lookahead 1 us): serial, windowed in one
# process, then `mpirun -np K` for each K of RANKS, back to back. Prints each run's wall and user
# time (mpirun's children included), the load average beside it, events, windows, exchange
# rounds, events and megabytes sent between ranks, checks that every run wrote the serial run's
# fct.txt and pfc.txt byte for byte, and prints the wall and user ratios over one rank. Wall times
# mean something only on an idle machine (a load average under the core count): a rank waiting
# in an exchange round needs the other ranks scheduled.
#
#   bench/run_mpi_ranks.sh                 # RANKS="1 2"
#   RANKS="1 2 4" bench/run_mpi_ranks.sh
#   MPIRUN_ARGS="--mca mpi_yield_when_idle 1" bench/run_mpi_ranks.sh   # ranks waiting yield their core
#
# LOOM defaults to build/apps/loom/loom; MPIRUN to mpirun.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
mpirun="${MPIRUN:-mpirun}"
ranks="${RANKS:-1 2}"
fixture="$root/../shared/fixtures/hpcc/inputs/fat320"
[[ -x "$loom" ]] || { echo "run_mpi_ranks: no $loom (build the loom target)" >&2; exit 2; }
[[ -f "$fixture/fat.txt" ]] || { echo "run_mpi_ranks: no fixture $fixture" >&2; exit 2; }
command -v "$mpirun" > /dev/null || { echo "run_mpi_ranks: no $mpirun (install openmpi-bin)" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

"$root/bench/websearch_flows.py" "$fixture/fat.txt" > "$out/flows.txt"
sed -e "s|^TOPOLOGY_FILE .*|TOPOLOGY_FILE $fixture/fat.txt|" -e "s|^FLOW_FILE .*|FLOW_FILE $out/flows.txt|" \
    -e "s|^FCT_OUTPUT_FILE .*|FCT_OUTPUT_FILE fct.txt|" -e "s|^PFC_OUTPUT_FILE .*|PFC_OUTPUT_FILE pfc.txt|" \
    "$fixture/config_fat_incast60_fat320_dcqcn.txt" > "$out/config.txt"
windowed=(--lp-delay-threshold 1ps --lp-racks --windowed)

# Runs NAME's command: its output in $out/NAME.log, "wall user load_before load_after" in $out/NAME.time.
timed() {
  local name="$1" before
  shift
  before="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "%e %U" -o "$out/$name.rusage" "$@" --out "$out/$name" > "$out/$name.log" 2> "$out/$name.err" ||
    { echo "run_mpi_ranks: $name failed:" >&2; tail -5 "$out/$name.err" >&2; exit 1; }
  echo "$(cat "$out/$name.rusage") $before $(cut -d' ' -f1 /proc/loadavg)" > "$out/$name.time"
}

names=(serial one_process)
timed serial "$loom" hpcc "$out/config.txt"
timed one_process "$loom" hpcc "$out/config.txt" "${windowed[@]}"
for k in $ranks; do
  names+=("ranks_$k")
  # shellcheck disable=SC2086  # MPIRUN_ARGS: several words
  timed "ranks_$k" "$mpirun" --allow-run-as-root --oversubscribe ${MPIRUN_ARGS:-} -np "$k" "$loom" hpcc "$out/config.txt" \
    "${windowed[@]}"
done

python3 - "$out" "$(nproc)" "${names[@]}" <<'PY'
import re, sys
out, cores, names = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
def read(path):
    with open(path) as f:
        return f.read()
runs = {}
for name in names:
    wall, user, before, after = (float(x) for x in read(f"{out}/{name}.time").split())
    log = read(f"{out}/{name}.log")
    events = int(re.search(r"(\d+) events, ", log).group(1))
    windows = re.search(r"; (\d+) windows", log)
    mpi = re.search(r"MPI ranks: \d+; (\d+) exchange rounds, (\d+) events and ([\d.]+) MB sent between ranks; ([\d.]+)-([\d.]+) s", log)
    runs[name] = (wall, user)
    line = f"{name:12} wall {wall:7.2f} s (load {before:.1f} -> {after:.1f} on {cores} cores)  user {user:7.2f} s  events {events:,}"
    if windows:
        line += f"  windows {int(windows.group(1)):,}"
    if mpi:
        line += (f"  rounds {int(mpi.group(1)):,}  sent {int(mpi.group(2)):,} events, {float(mpi.group(3)):.1f} MB"
                 f"  in exchanges {mpi.group(4)}-{mpi.group(5)} s per rank")
    print(line)
    for output in ("fct.txt", "pfc.txt"):
        if read(f"{out}/{name}/{output}") != read(f"{out}/serial/{output}"):
            sys.exit(f"run_mpi_ranks: {name}'s {output} differs from the serial run's")
one = runs.get("ranks_1")
for name in names:
    if name.startswith("ranks_") and name != "ranks_1" and one:
        wall, user = runs[name]
        print(f"{name}: wall {one[0] / wall:.2f}x faster than 1 rank ({runs['one_process'][0] / wall:.2f}x than one "
              f"process, {runs['serial'][0] / wall:.2f}x than serial); user time {user / one[1]:.2f}x 1 rank's")
print("every run wrote the serial run's fct.txt and pfc.txt")
PY
