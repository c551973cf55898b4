#!/bin/bash
# GpuXid: the kernel log holds a hardware-class XID (NVRM: Xid (PCI:...): <code>, ...). Application
# XIDs (13, 31, 43, 45, 68) are the workload's and are ignored; the codes are those of
# rules/gpu-xid.rules.yml. The kernel log holds the XID until reboot, which is the repair, so the
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
echo "GpuXidGood: no hardware XID in the kernel log"
exit "$OK"
