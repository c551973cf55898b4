#!/bin/bash
# GpuXid: the kernel log holds a hardware-class XID (NVRM: Xid (PCI:...): <code>, ...), or says a GPU "fallen off the
# bus" without any Xid line (newer drivers log "The NVIDIA GPU <bdf> ... has fallen off the bus and is not responding
# to commands" over three lines, or "GPU <bdf>: GPU has fallen off the bus."): XID 79 either way. Application XIDs
# (13, 31, 43, 45, 68) are the workload's and are ignored, even when their text names an earlier hardware XID; the
# codes are those of rules/gpu-xid.rules.yml. The kernel log holds the XID until reboot, which is the repair, so the
# condition stays until then.
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

readonly HARDWARE_XIDS="46|48|57|61|62|64|74|79|95|109|119|120|140|143|14[4-9]|150|155|156|158|160"
if ! log="$(timeout "$NVSMI_TIMEOUT" dmesg 2>&1)"; then
  echo "cannot read the kernel log: $(head -n1 <<<"$log")"
  exit "$UNKNOWN"
fi
last="$(grep -E "NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): ($HARDWARE_XIDS)," <<<"$log" | tail -n1)"
if [ -n "$last" ]; then
  echo "GpuXidBad: $(sed -E 's/^.*NVRM: (Xid \(PCI:[^)]*\): [0-9]+),.*$/\1/' <<<"$last") in the kernel log"
  exit "$NONOK"
fi
# The GPU's PCI address is on the same line (single-line form) or on the "The NVIDIA GPU <bdf>" line before it.
fallen="$(awk '/NVRM: The NVIDIA GPU [0-9a-fA-F:.]+/ {match($0, /GPU [0-9a-fA-F:.]+/); bdf = substr($0, RSTART + 4, RLENGTH - 4)}
  /NVRM: GPU [0-9a-fA-F:.]+: GPU has fallen off the bus/ {match($0, /GPU [0-9a-fA-F:.]+:/); bdf = substr($0, RSTART + 4, RLENGTH - 5)}
  /fallen off the bus/ && !/NVRM: Xid/ {last = bdf} END {print last}' <<<"$log")"
if [ -n "$fallen" ]; then
  echo "GpuXidBad: GPU $fallen has fallen off the bus (XID 79, no Xid line) in the kernel log"
  exit "$NONOK"
fi
echo "GpuXidGood: no hardware XID in the kernel log"
exit "$OK"
