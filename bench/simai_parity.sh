#!/usr/bin/env bash
# Prints the "SimAI analytical parity" table of src/loom/workload/README.md: for each SimAI
# analytical output in the shared fixtures, SimAI's EndToEnd.csv (exposed DP (with DP_EP), TP,
# EP and PP communication, compute, total; us) beside `loom run` in analytical mode on the same workload
# file with SimAI's parameters matched (8 GPUs and 8 NICs per server on one switch, NVLink 360
# and NICs 48.5 or 50 GiB/s, which is what SimAI's -nv / -nic "GB/s" mean; no latency; ring,
# Simple, no NCCL hop latency). tests/experiment/simai_parity_test.cc proves the differences.
#
#   bench/simai_parity.sh          every run but SimAI's 9,216-GPU example (~12 CPU seconds)
#   bench/simai_parity.sh --all    with it (~110 CPU seconds more and 4.6 GiB)
#
# LOOM defaults to build/apps/loom/loom; FIXTURES to ../shared/fixtures beside the checkout.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
fixtures="${FIXTURES:-$root/../shared/fixtures}/simai"
[[ -d "$fixtures/outputs/analytical" ]] || { echo "simai_parity: no fixtures in $fixtures" >&2; exit 2; }

# outputs csv | workload | GPUs | NIC GiB/s
cases=(
  "micro8/micro8-EndToEnd.csv|simai_example_microAllReduce.txt|8|48.5"
  "G13B_hdrfix_g64/G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100_hdrfix_g64-EndToEnd.csv|derived_G13B-M1-C01_GPT13B_megatron_tp8_pp1_mbs1_A100_hdrfix_g64.txt|64|48.5"
  "L7B_hdrfix_g64/L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100_hdrfix_g64-EndToEnd.csv|derived_L7B-M1-C04_Llama7B_megatron_tp2_pp1_mbs1_A100_hdrfix_g64.txt|64|48.5"
  "G175B_hdrfix_g128/G175B-M1-C03_GPT175B_megatron_tp8_pp1_mbs1_A100_hdrfix_g128-EndToEnd.csv|derived_G175B-M1-C03_GPT175B_megatron_tp8_pp1_mbs1_A100_hdrfix_g128.txt|128|48.5"
  "ana_dp_allreduce_1MB_tp1_g16/ana_dp_allreduce_1MB_tp1_g16-EndToEnd.csv|authored_dp_allreduce_1MB_tp1_g16.txt|16|50"
  "ana_dp_allreduce_64MB_tp1_g16/ana_dp_allreduce_64MB_tp1_g16-EndToEnd.csv|authored_dp_allreduce_64MB_tp1_g16.txt|16|50"
  "ana_dp_allreduce_64MB_tp1_g128/ana_dp_allreduce_64MB_tp1_g128-EndToEnd.csv|authored_dp_allreduce_64MB_tp1_g128.txt|128|50"
  "ana_dp_allreduce_64MB_tp8_g128/ana_dp_allreduce_64MB_tp8_g128-EndToEnd.csv|authored_dp_allreduce_64MB_tp8_g128.txt|128|50"
  "small_msg_quirks/disc_1048575-EndToEnd.csv|authored_disc_1048575.txt|16|50"
  "small_msg_quirks/disc_1048576-EndToEnd.csv|authored_disc_1048576.txt|16|50"
  "small_msg_quirks/disc_24r-EndToEnd.csv|authored_disc_24r.txt|24|50"
  "aicbgen_gpt13B_g128/aicbgen_gpt_13B-tp8-pp2-dp8-ga16-ep1-NVL8-388.0G-DP0.0-EndToEnd.csv|aicb_generated_gpt_13B-world_size128-tp8-pp2-ep1-gbs128-mbs1-seq4096.txt|128|48.5"
)
if [[ "${1:-}" == "--all" ]]; then
  cases+=("example9216/example-EndToEnd.csv|simai_example_workload_analytical.txt|9216|48.5")
elif [[ $# -gt 0 ]]; then
  echo "simai_parity: unknown argument '$1'; expected --all or nothing" >&2
  exit 2
fi

out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
echo "| workload | GPUs | DP SimAI / Loom | TP SimAI / Loom | EP SimAI / Loom | PP SimAI / Loom | compute SimAI / Loom | total SimAI / Loom |"
echo "|---|---|---|---|---|---|---|---|"
for case in "${cases[@]}"; do
  IFS='|' read -r csv workload gpus nic <<< "$case"
  bps() { python3 -c "print(round($1 * 8 * 2**30))"; }
  cat > "$out/exp.yaml" <<EOF
topology: {blueprint: single-switch, hosts: $(( (gpus + 7) / 8 )), gpus_per_host: 8, nvlink_bandwidth: $(bps 360)bps, nic_bandwidth: $(bps "$nic")bps, link_latency: 0ns, switch_latency: 0ns, nvlink_latency: 0ns, nvswitch_latency: 0ns, pcie_latency: 0ns, nic_latency: 0ns}
workload: {type: trace, file: $fixtures/inputs/workloads/$workload}
collective: {algorithm: ring, protocol: simple, hop_latency: none}
network: {mode: analytical}
output: {collectives: false, flows: false, ranks: false, timeline: false}
EOF
  if ! "$loom" run "$out/exp.yaml" --quiet --out "$out/run" > "$out/log" 2>&1; then
    echo "simai_parity: $workload failed:" >&2
    tail -3 "$out/log" >&2
    exit 1
  fi
  python3 - "$fixtures/outputs/analytical/$csv" "$out/run/summary.json" "$workload" "$gpus" <<'PY'
import json, sys
csv, summary, workload, gpus = sys.argv[1:]
simai = [float(cell.split()[0]) for cell in open(csv).read().splitlines()[1].split(",")[1:]]
dp, dp_ep, tp, ep, pp, bubble, compute, exposed, total = simai
s = json.load(open(summary))
ranks = s["metrics"]["ranks"]
def exposed_of(kind):
    k = ranks["by_comm_kind"].get(kind)
    return k["exposed_us"]["mean"] if k else 0.0
loom = [exposed_of("dp"), exposed_of("tp"), exposed_of("ep"), exposed_of("p2p"), ranks["compute_us"]["mean"],
        max(s["metrics"]["iteration_us"])]
ours = [dp + dp_ep, tp, ep, pp, compute, total]
cells = " | ".join(f"{a:,.0f} / {b:,.1f}" for a, b in zip(ours, loom))
folder, name = csv.split("/")[-2:]
run = name.removesuffix("-EndToEnd.csv") if folder == "small_msg_quirks" else folder
print(f"| {run} | {gpus} | {cells} |")
PY
done
