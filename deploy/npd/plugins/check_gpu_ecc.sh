#!/bin/bash
# GpuEcc: a GPU has uncorrectable volatile ECC errors, or a row-remap failure (the GPU could not
# remap a bad row: it needs replacing), or a row remap pending (it needs a GPU reset).
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

fields=index,ecc.errors.uncorrected.volatile.total,remapped_rows.pending,remapped_rows.failure
if ! out="$(nvidia_smi --query-gpu="$fields" --format=csv,noheader)"; then
  echo "nvidia-smi --query-gpu failed: $(head -n1 <<<"$out")"
  exit "$UNKNOWN"
fi
bad="$(awk -F', *' '
  $2 ~ /^[0-9]+$/ && $2 > 0 { p = p s "GPU " $1 " " $2 " uncorrectable ECC errors"; s = "; " }
  $3 == "Yes" { p = p s "GPU " $1 " row remap pending"; s = "; " }
  $4 == "Yes" { p = p s "GPU " $1 " row remap failure"; s = "; " }
  END { print p }' <<<"$out")"
if [ -n "$bad" ]; then
  echo "GpuEccBad: $bad"
  exit "$NONOK"
fi
echo "GpuEccGood: no uncorrectable ECC error or row-remap problem"
exit "$OK"
