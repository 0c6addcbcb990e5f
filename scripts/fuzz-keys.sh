#!/usr/bin/env bash
# Structure-aware fuzzing of the experiment file's numeric keys: every parameter `loom list`
# prints (blueprint, flow and packet tables) and the workload keys below are pushed to 0, -1,
# 2^31, 2^64 and 1e30 (with the key's unit), each run under a memory limit and a time limit.
# A run must end in success (0) or in one clear line and exit 2: a hang (time limit), a crash,
# exit 3 ("a Loom bug") or a multi-line error fails the sweep.
#
#   scripts/fuzz-keys.sh LOOM [quick|full]
# quick (make test): -1, 2^64 and 1e30 of every key; full (make fuzz): all five values.
set -uo pipefail
loom=${1:?usage: fuzz-keys.sh LOOM [quick|full]}
depth=${2:-quick}
here=$(cd "$(dirname "$0")/fuzz" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
memory_kib=${LOOM_FUZZ_MEMORY_KIB:-4000000}
seconds=${LOOM_FUZZ_SECONDS:-60}

if [ "$depth" = full ]; then numbers=(0 -1 2147483648 18446744073709551616 1e30); else numbers=(-1 18446744073709551616 1e30); fi

values_of() {  # type -> values with the type's unit
  local unit=""
  case $1 in
    count|real) unit="" ;;
    size) unit="B" ;;
    time) unit="us" ;;
    bandwidth) unit="Gbps" ;;
    *) return ;;
  esac
  for n in "${numbers[@]}"; do echo "$n$unit"; done
}

# (base experiment, key prefix, list section) for each table `loom list` prints.
keys_of_section() {  # the heading that starts the section -> "key type" lines
  "$loom" list | awk -v heading="$1" '
    index($0, heading) == 1 { on = 1; next }
    on && /^[^ ]/ { on = 0 }
    on && /^    [a-z]/ { print $1, $2 }'
}

failures=0 runs=0
try() {  # base key value
  local base=$1 key=$2 value=$3 out="$work/out" err="$work/err"
  rm -rf "$out"
  runs=$((runs + 1))
  (ulimit -v "$memory_kib"; timeout "$seconds" "$loom" run "$base" --out "$out" --set "$key=$value") \
    > /dev/null 2> "$err"
  local code=$? lines
  lines=$(grep -vc "^loom: warning" "$err")
  if [ $code -eq 0 ] || { [ $code -eq 2 ] && [ "$lines" -eq 1 ]; }; then return; fi
  failures=$((failures + 1))
  echo "FAIL: $(basename "$base") --set $key=$value: exit $code; stderr: $(head -c 300 "$err" | tr '\n' ' ')"
}

# Each base must run as it is, or every mutation would be refused for the base's sake.
for base in "$here"/base_*.yaml; do
  if ! "$loom" run "$base" --out "$work/base" > /dev/null 2> "$work/err"; then
    echo "fuzz-keys: the base $base does not run: $(head -c 300 "$work/err")"
    exit 1
  fi
  rm -rf "$work/base"
done

sweep() {  # base prefix heading
  [ -n "$(keys_of_section "$3")" ] || { echo "fuzz-keys: loom list has no section '$3'"; exit 1; }
  while read -r name type; do
    for v in $(values_of "$type"); do try "$1" "$2$name" "$v"; done
  done < <(keys_of_section "$3")
}

sweep "$here/base_leaf_spine.yaml" topology. "  leaf-spine"
sweep "$here/base_flow.yaml" network.flow. "Network parameters of flow mode"
sweep "$here/base_packet.yaml" network.packet. "Network parameters of packet mode"
while read -r key type; do
  for v in $(values_of "$type"); do try "$here/base_training.yaml" "$key" "$v"; done
done < "$here/training_keys.txt"

echo "fuzz-keys ($depth): $runs runs, $failures failed"
[ $failures -eq 0 ]
