#!/usr/bin/env bash
# How one training iteration's cost grows with the cluster: Llama 3 405B as Meta ran it
# (bench/scenarios/llama405b_16k_flow.yaml: TP8 x PP16, 16 sequences per data-parallel replica)
# at each data-parallel width given, the global batch growing with it, on 16 DGX-H100 hosts per
# replica. Prints per point: GPUs, nodes in the workload, user seconds, peak RSS, simulated
# iteration and TF/s per GPU. Extra arguments after `--` go to every run.
#
#   bench/run_scale_growth.sh                                   # 1K 4K 16K 64K GPUs, analytical
#   bench/run_scale_growth.sh 8 32 -- --set network.mode=flow   # 1K and 4K GPUs in flow mode
#
# LOOM defaults to build/apps/loom/loom. Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
scenario="$root/bench/scenarios/llama405b_16k_flow.yaml"
widths=()
while [[ $# -gt 0 && "$1" != "--" ]]; do widths+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
[[ ${#widths[@]} -gt 0 ]] || widths=(8 32 128 512)
extra=("$@")
[[ " ${extra[*]} " == *"network.mode="* ]] || extra=(--set network.mode=analytical "${extra[@]}")
printf '%7s %12s %9s %9s %12s %9s\n' GPUs nodes user_s peak_MiB iteration_s TF/s/GPU
for dp in "${widths[@]}"; do
  out="$(mktemp -d)"
  sizes=(--set workload.dp="$dp" --set workload.global_batch=$((16 * dp)) --set topology.hosts=$((16 * dp)))
  if ! /usr/bin/time -f '%U %M' -o "$out/time" "$loom" run "$scenario" --quiet --out "$out/run" \
      "${sizes[@]}" "${extra[@]}" > "$out/log" 2>&1; then
    echo "run_scale_growth: dp $dp failed:" >&2
    tail -3 "$out/log" >&2
    rm -rf "$out"
    exit 1
  fi
  python3 - "$out" "$dp" <<'PY'
import json, sys
out, dp = sys.argv[1], int(sys.argv[2])
user, rss = open(f"{out}/time").read().split()[-2:]
s = json.load(open(f"{out}/run/summary.json"))
gpus = 128 * dp
iteration = max(s["metrics"]["iteration_us"]) * 1e-6
# Model FLOPs of one batch: 6 x parameters x tokens plus attention's 12 x layers x hidden x
# sequence per token (Llama 3 405B: 126 layers, hidden 16,384; 8,192-token sequences).
tokens = 16 * dp * 8192
flops = 6 * 405e9 * tokens + 12 * 126 * 16384 * 8192 * tokens
print(f"{gpus:7d} {s['totals']['nodes']:12d} {float(user):9.2f} {int(rss) / 1024:9.0f} "
      f"{iteration:12.3f} {flops / iteration / gpus / 1e12:9.1f}")
PY
  rm -rf "$out"
done
