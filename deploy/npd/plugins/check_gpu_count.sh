#!/bin/bash
# GpuCount: fewer GPUs on the bus than the node should have (EXPECTED_GPUS, default 8). A GPU that
# fell off the bus often logs no XID at all; `nvidia-smi --list-gpus` simply lists fewer, or fails
# with "GPU is lost" / "Unable to determine the device handle".
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

expected="${EXPECTED_GPUS:-8}"
if ! out="$(nvidia_smi --list-gpus)"; then
  if grep -qiE "GPU is lost|Unable to determine the device handle|No devices were found" <<<"$out"; then
    echo "GpuCountBad: nvidia-smi lost a GPU: $(head -n1 <<<"$out")"
    exit "$NONOK"
  fi
  echo "nvidia-smi --list-gpus failed: $(head -n1 <<<"$out")"
  exit "$UNKNOWN"
fi
count="$(grep -c '^GPU [0-9]' <<<"$out")"
if [ "$count" -lt "$expected" ]; then
  echo "GpuCountBad: $count of $expected GPUs visible"
  exit "$NONOK"
fi
echo "GpuCountGood: $count of $expected GPUs visible"
exit "$OK"
