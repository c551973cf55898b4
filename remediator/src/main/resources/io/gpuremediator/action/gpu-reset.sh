#!/bin/sh
# gpu-reset.sh GPUS: resets the GPUs (comma-separated indices or UUIDs; empty: every GPU of the node) as `nvidia-smi -r`
# needs it. Persistence mode counts as a client of the GPU: while it is on (nvidia-persistenced of the GPU Operator's
# driver pod, or the host's), the reset is refused "In use by another client" (NVIDIA/NVSentinel #1690,
# NVIDIA/gpu-operator #118). It is turned off for each GPU that has it on, and back on after, whatever the reset did.
# Any other client (DCGM, an exporter, a workload) still refuses it: nvidia-smi's words are the Job's log, and its
# exit status the Job's.
gpus="${1:-}"
if [ -n "$gpus" ]; then
  set -- -i "$gpus"
else
  set --
fi
on="$(nvidia-smi "$@" --query-gpu=uuid,persistence_mode --format=csv,noheader 2>/dev/null \
  | awk -F', *' '$2 == "Enabled" {print $1}')"
for gpu in $on; do
  echo "persistence mode off for $gpu for the reset"
  nvidia-smi -i "$gpu" -pm 0
done
nvidia-smi -r "$@"
rc=$?
for gpu in $on; do
  echo "persistence mode back on for $gpu"
  nvidia-smi -i "$gpu" -pm 1
done
exit "$rc"
