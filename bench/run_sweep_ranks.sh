#!/usr/bin/env bash
# A sweep's throughput over MPI ranks: the same sweep (VARIANTS variants of the GPT-13B flow
# example, default 8: global batch 16..128 by 16) run by `loom sweep -j 1` in one process, then
# by `mpirun -np K loom sweep -j 1` for each K of RANKS (one variant at a time per rank, so the
# ranks are the only parallelism), back to back. Prints each run's wall and user time (mpirun's
# children included), the load average beside it, variants per minute of wall time and the ratio
# over one rank, and checks that every run's sweep.csv equals the serial sweep's row for row.
# Wall times mean something only on an idle machine (a load average under the core count); on
# this 2-core machine 4 ranks share 2 cores.
#
#   bench/run_sweep_ranks.sh                   # RANKS="1 2 4"
#   RANKS="1 2" VARIANTS=4 bench/run_sweep_ranks.sh
#
# LOOM defaults to build/apps/loom/loom; MPIRUN to mpirun.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
mpirun="${MPIRUN:-mpirun}"
ranks="${RANKS:-1 2 4}"
variants="${VARIANTS:-8}"
[[ -x "$loom" ]] || { echo "run_sweep_ranks: no $loom (build the loom target)" >&2; exit 2; }
command -v "$mpirun" > /dev/null || { echo "run_sweep_ranks: no $mpirun (install openmpi-bin)" >&2; exit 2; }
[[ "$variants" =~ ^[1-9][0-9]*$ ]] || { echo "run_sweep_ranks: VARIANTS must be a positive whole number" >&2; exit 2; }
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT

batches="$(seq -s, 16 16 $((16 * variants)))"
sweep=(sweep "$root/examples/gpt13b_training_flow.yaml" --vary "workload.global_batch=$batches" -j 1)

# Runs NAME's command into $out/NAME: "wall user load_before load_after" in $out/NAME.time.
timed() {
  local name="$1" before
  shift
  before="$(cut -d' ' -f1 /proc/loadavg)"
  /usr/bin/time -f "%e %U" -o "$out/$name.rusage" "$@" --out "$out/$name" > "$out/$name.log" 2>&1 ||
    { echo "run_sweep_ranks: $name failed:" >&2; tail -5 "$out/$name.log" >&2; exit 1; }
  echo "$(cat "$out/$name.rusage") $before $(cut -d' ' -f1 /proc/loadavg)" > "$out/$name.time"
}

names=(serial)
timed serial "$loom" "${sweep[@]}"
for k in $ranks; do
  names+=("ranks_$k")
  timed "ranks_$k" "$mpirun" --allow-run-as-root --oversubscribe -np "$k" "$loom" "${sweep[@]}"
done

python3 - "$out" "$(nproc)" "$variants" "${names[@]}" <<'PY'
import sys
out, cores, variants, names = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
def read(path):
    with open(path) as f:
        return f.read()
serial_table = read(f"{out}/serial/sweep.csv")
walls = {}
for name in names:
    wall, user, before, after = (float(x) for x in read(f"{out}/{name}.time").split())
    walls[name] = wall
    print(f"{name:9} wall {wall:7.2f} s (load {before:.1f} -> {after:.1f} on {cores} cores)  user {user:7.2f} s  "
          f"{variants / wall * 60:6.1f} variants per minute")
    if read(f"{out}/{name}/sweep.csv") != serial_table:
        sys.exit(f"run_sweep_ranks: {name}'s sweep.csv differs from the serial sweep's")
one = walls.get("ranks_1")
for name in names:
    if name.startswith("ranks_") and name != "ranks_1" and one:
        print(f"{name}: {one / walls[name]:.2f}x the throughput of 1 rank ({walls['serial'] / walls[name]:.2f}x the "
              f"serial sweep's)")
print(f"every run's sweep.csv equals the serial sweep's ({variants} rows)")
PY
