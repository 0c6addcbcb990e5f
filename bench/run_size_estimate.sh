#!/usr/bin/env bash
# Checks the pre-run size estimate against the peak RSS it predicts: for each scenario file
# (extra `--set` arguments after `--` go to every run), the estimate `loom run` prints when
# refused under `--max-memory 1MiB`, then a real run's user seconds and peak RSS, and their
# ratio. Exits 1 when an estimate is below its peak or more than 1.5 times it.
#
#   bench/run_size_estimate.sh                      # the compute- and collective-heavy defaults
#   bench/run_size_estimate.sh FILE... -- --set system.compact=false
#
# LOOM defaults to build/apps/loom/loom. Needs GNU time (/usr/bin/time) and python3.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
loom="${LOOM:-$root/build/apps/loom/loom}"
files=()
while [[ $# -gt 0 && "$1" != "--" ]]; do files+=("$1"); shift; done
[[ $# -gt 0 ]] && shift
if [[ ${#files[@]} -eq 0 ]]; then
  files=("$root/bench/scenarios/gpt175b_1024_analytical.yaml" "$root/bench/scenarios/simai_example_384_analytical.yaml")
fi
status=0
printf '%-36s %12s %12s %7s %8s\n' scenario estimate_MiB peak_MiB ratio user_s
for file in "${files[@]}"; do
  out="$(mktemp -d)"
  "$loom" run "$file" --max-memory 1MiB "$@" > /dev/null 2> "$out/refusal" || true
  if ! /usr/bin/time -f '%U %M' -o "$out/time" "$loom" run "$file" --quiet --out "$out/run" "$@" > "$out/log" 2>&1; then
    echo "run_size_estimate: $file failed:" >&2
    tail -3 "$out/log" >&2
    rm -rf "$out"
    exit 1
  fi
  if ! python3 - "$file" "$out" <<'PY'
import os, re, sys
name, out = sys.argv[1:]
refusal = open(f"{out}/refusal").read()
m = re.search(r"needs about ([0-9.]+) (B|KiB|MiB|GiB|TiB)", refusal)
if not m:
    sys.exit(f"run_size_estimate: {name}: no estimate in: {refusal.strip()[:200]}")
scale = {"B": 2**-20, "KiB": 2**-10, "MiB": 1, "GiB": 2**10, "TiB": 2**20}[m.group(2)]
estimate = float(m.group(1)) * scale
user, rss = open(f"{out}/time").read().split()[-2:]
peak = int(rss) / 1024
ratio = estimate / peak
print(f"{os.path.basename(name).removesuffix('.yaml'):<36} {estimate:12.1f} {peak:12.1f} {ratio:7.2f} {float(user):8.2f}")
sys.exit(0 if 1.0 <= ratio <= 1.5 else 1)
PY
  then status=1; fi
  rm -rf "$out"
done
exit $status
