#!/bin/bash
# GpuNvlink: an NVLink of any GPU is inactive (`nvidia-smi nvlink --status` prints "<inactive>"
# instead of a speed). A GPU without NVLink prints no links and is not a problem.
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

if ! out="$(nvidia_smi nvlink --status)"; then
  echo "nvidia-smi nvlink --status failed: $(head -n1 <<<"$out")"
  exit "$UNKNOWN"
fi
inactive="$(awk '/^GPU [0-9]+:/ {gpu = $2; sub(":", "", gpu)} /<inactive>/ {links = links sep "GPU " gpu " " $1 " " $2; sep = ", "} END {print links}' <<<"$out")"
inactive="${inactive//:/}"
if [ -n "$inactive" ]; then
  echo "GpuNvlinkBad: inactive NVLink: $inactive"
  exit "$NONOK"
fi
echo "GpuNvlinkGood: every NVLink is active"
exit "$OK"
