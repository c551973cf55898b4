#!/bin/bash
# GpuNvlink: an NVLink of a GPU is down. `nvidia-smi nvlink --status` prints "<inactive>" instead of a link's speed,
# or, when every link of a GPU is down, "Unable to retrieve NVLink information as all links are inactive" ("inActive"
# on newer drivers). That second message is also what GPUs with nothing to link to print (an A100 PCIe without a
# bridge, a lone GH200), so it is a fault only where NVLink is expected: NVLINK_EXPECTED=true (set it on NVLink node
# pools: HGX, GB200), never with false, and with auto (the default) when another GPU of the node has an active link.
# A GPU without NVLink hardware prints no links and is not a problem.
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

readonly NVLINK_EXPECTED="${NVLINK_EXPECTED:-auto}"
if ! out="$(nvidia_smi nvlink --status)"; then
  echo "nvidia-smi nvlink --status failed: $(head -n1 <<<"$out")"
  exit "$UNKNOWN"
fi
inactive="$(awk '/^GPU [0-9]+:/ {gpu = $2; sub(":", "", gpu)} /<inactive>/ {links = links sep "GPU " gpu " " $1 " " $2; sep = ", "} END {print links}' <<<"$out")"
inactive="${inactive//:/}"
all_down="$(awk '/^GPU [0-9]+:/ {gpu = $2; sub(":", "", gpu)}
  tolower($0) ~ /all links are inactive/ {gpus = gpus sep "GPU " gpu; sep = ", "} END {print gpus}' <<<"$out")"
any_active="$(grep -cE '^[[:space:]]*Link [0-9]+: [0-9.]+ GB/s' <<<"$out")"
if [ -n "$all_down" ]; then
  case "$NVLINK_EXPECTED" in
    true) expected=1 ;;
    false) expected=0 ;;
    *) expected=$((any_active > 0)) ;;
  esac
  if [ "$expected" -eq 1 ]; then
    inactive="${inactive:+$inactive, }$all_down: all links"
  fi
fi
if [ -n "$inactive" ]; then
  echo "GpuNvlinkBad: inactive NVLink: $inactive"
  exit "$NONOK"
fi
if [ -n "$all_down" ]; then
  echo "GpuNvlinkGood: no GPU has an active NVLink ($all_down: all links inactive); no NVLink expected here (NVLINK_EXPECTED=$NVLINK_EXPECTED)"
  exit "$OK"
fi
echo "GpuNvlinkGood: every NVLink is active"
exit "$OK"
