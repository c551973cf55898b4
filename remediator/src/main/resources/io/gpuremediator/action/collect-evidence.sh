#!/bin/sh
# collect-evidence.sh: the default `collect`. Runs nvidia-bug-report.sh where the node's driver put it, and writes the
# gzipped report to $EVIDENCE_FILE when it is stored on a claim, else to stdout as base64 between BEGIN and END lines
# (a pod log is text, and the kubelet rotates it at 10 MiB: the report compressed fits), for the service to store.
# The NVIDIA container runtime injects nvidia-smi, nvidia-debugdump and nvidia-persistenced into a container, never
# nvidia-bug-report.sh (libnvidia-container src/nvc_info.c, utility_bins). The node's root is mounted at $HOST_ROOT:
# on a GPU Operator node the script lives in the driver container's root, $HOST_ROOT/run/nvidia/driver (NVIDIA/NVSentinel
# #1675, #1677); with a driver installed on the host, in $HOST_ROOT/usr/bin. It runs chrooted there, so that it reads
# the node's logs, modules and devices, not the container's.
set -u
host="${HOST_ROOT:-/host}"
root=""
for candidate in "$host/run/nvidia/driver" "$host"; do
  if [ -x "$candidate/usr/bin/nvidia-bug-report.sh" ]; then
    root="$candidate"
    break
  fi
done
if [ -z "$root" ]; then
  echo "collect-evidence: nvidia-bug-report.sh is neither in $host/run/nvidia/driver/usr/bin (the GPU Operator's driver" \
    "container) nor in $host/usr/bin (a driver installed on the host)" >&2
  exit 127
fi
echo "collect-evidence: running nvidia-bug-report.sh from ${root#"$host"}/usr/bin" >&2
name="/tmp/gpu-remediator-evidence-$$"
# nvidia-bug-report.sh writes FILE.gz for --output-file FILE, and its progress to stdout: kept off our output.
chroot "$root" nvidia-bug-report.sh --safe-mode --output-file "$name.log" >&2
rc=$?
report="$root$name.log.gz"
if [ ! -s "$report" ]; then
  echo "collect-evidence: nvidia-bug-report.sh exited $rc and wrote no $name.log.gz" >&2
  exit "$(( rc == 0 ? 1 : rc ))"
fi
if [ -n "${EVIDENCE_FILE:-}" ]; then
  mkdir -p "$(dirname "$EVIDENCE_FILE")" && cp "$report" "$EVIDENCE_FILE.partial" \
    && mv "$EVIDENCE_FILE.partial" "$EVIDENCE_FILE"
  stored=$?
  rm -f "$report"
  [ "$stored" -eq 0 ] || { echo "collect-evidence: could not write $EVIDENCE_FILE" >&2; exit 1; }
  echo "collect-evidence: stored $(wc -c <"$EVIDENCE_FILE") bytes of nvidia-bug-report.log.gz in $EVIDENCE_FILE" >&2
else
  echo "-----BEGIN nvidia-bug-report.log.gz base64-----"
  base64 "$report"
  echo "-----END nvidia-bug-report.log.gz base64-----"
  rm -f "$report"
fi
exit "$rc"
