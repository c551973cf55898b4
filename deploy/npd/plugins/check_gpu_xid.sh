#!/bin/bash
# check_gpu_xid.sh [service|reset_gpu|reboot|quarantine]: is what the kernel log's XIDs ask for this repair? One
# condition a repair (gpu-custom-plugin-monitor.json: GpuXid for service, GpuXidReset, GpuXidReboot, GpuXidDrain), so
# that kube-state-metrics, which carries a condition's type but not its reason, still tells the rules which repair.
#
# What the log asks for, reading it in order:
# - Xid 154 ("GPU recovery action changed from 0xA (...) to 0xB (...)"; the words differ by driver, the hex code does
#   not) is the driver's own answer and wins: 0x0 nothing, 0x1 and 0x4 reset_gpu, 0x2, 0x6 and 0x7 reboot, 0x3
#   quarantine (drain peer-to-peer work, no reset), 0x5 and any other service. Once a driver has logged one, later XID
#   lines do not change the answer (the driver logs another 154 when the action changes).
# - Before any 154 (drivers before R565), the last hardware XID by NVIDIA's Xid catalog (rules/gpu-xid.rules.yml has
#   the same lists; XidCatalogRulesTest holds them to the catalog): reset_gpu, reboot or service. The NVLink5 XIDs
#   144-149 are decided by the driver's own word in the line, "Fatal" (reset_gpu) or "Nonfatal" (nothing): every
#   Non-fatal row of the catalog's decode sheet is IGNORE or left to Xid 154.
# - "fallen off the bus" without an Xid line (newer drivers: "The NVIDIA GPU <bdf> ... has fallen off the bus" over
#   three lines, or "GPU <bdf>: GPU has fallen off the bus.") is XID 79: reboot, whatever came before.
# Application XIDs (13, 31, 43, 45, 68) are the workload's and are ignored, even when their text names an earlier
# hardware XID. The kernel log holds its lines until reboot, which is the repair, so the condition stays until then
# (or until the driver logs 154 back to 0x0).
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

readonly WANT="${1:-service}"
case "$WANT" in
  service) readonly BAD=GpuXidBad ;;
  reset_gpu) readonly BAD=GpuXidResetRequired ;;
  reboot) readonly BAD=GpuXidRebootRequired ;;
  quarantine) readonly BAD=GpuXidDrainRequired ;;
  *) echo "unknown repair class: $WANT (service, reset_gpu, reboot or quarantine)"; exit "$UNKNOWN" ;;
esac
if ! log="$(timeout "$NVSMI_TIMEOUT" dmesg 2>&1)"; then
  echo "cannot read the kernel log: $(head -n1 <<<"$log")"
  exit "$UNKNOWN"
fi
# One line out: the class the log asks for and why, tab-separated; nothing when it asks for nothing.
verdict="$(awk '
  function set(c, why) { class = c; reason = why }
  /NVRM: Xid \(PCI:[0-9a-fA-F:.]+\): [0-9]+,/ {
    match($0, /Xid \(PCI:[^)]*\): [0-9]+/); xid = substr($0, RSTART, RLENGTH); code = xid; sub(/.*: /, "", code)
    if (code == 154) {
      if (match($0, / to 0x[0-9a-fA-F]+/)) {
        hex = tolower(substr($0, RSTART + 4, RLENGTH - 4)); driver = 1
        if (hex ~ /^0x0+$/) set("", "")
        else if (hex ~ /^0x0*[14]$/) set("reset_gpu", xid ", recovery action " hex)
        else if (hex ~ /^0x0*[267]$/) set("reboot", xid ", recovery action " hex)
        else if (hex ~ /^0x0*3$/) set("quarantine", xid ", recovery action " hex)
        else set("service", xid ", recovery action " hex)
      }
      next
    }
    if (driver) next
    if (code ~ /^(46|48|62|64|74|95|109|110|119|120|136|140|143|150|155|156|158)$/) set("reset_gpu", xid)
    else if (code ~ /^(79|151)$/) set("reboot", xid)
    else if (code ~ /^(1|2|3|4|5|6|7|9|10|12|15|16|17|18|19|20|21|22|23|24|26|27|28|29|30|33|34|35|36|42|47|49|50|51|52|53|54|55|56|57|58|59|61|65|73|78|81|87|90|91|111|112|113|114|115|116|117|118|122|123|124|125|138|142|159)$/) set("service", xid)
    else if (code ~ /^14[4-9]$/ && $0 ~ /[ ,]Fatal /) set("reset_gpu", xid " (Fatal)")
    next
  }
  /NVRM: The NVIDIA GPU [0-9a-fA-F:.]+/ { match($0, /GPU [0-9a-fA-F:.]+/); bdf = substr($0, RSTART + 4, RLENGTH - 4) }
  /NVRM: GPU [0-9a-fA-F:.]+: GPU has fallen off the bus/ { match($0, /GPU [0-9a-fA-F:.]+:/); bdf = substr($0, RSTART + 4, RLENGTH - 5) }
  /fallen off the bus/ && !/NVRM: Xid/ && class != "reboot" { set("reboot", "GPU " bdf " has fallen off the bus (XID 79, no Xid line)") }
  END { if (class != "") printf "%s\t%s\n", class, reason }' <<<"$log")"
class="${verdict%%$'\t'*}"
if [ -n "$verdict" ] && [ "$class" = "$WANT" ]; then
  echo "$BAD: ${verdict#*$'\t'} in the kernel log"
  exit "$NONOK"
fi
if [ -n "$verdict" ]; then
  echo "GpuXidGood: the kernel log's XID asks for $class, not $WANT"
else
  echo "GpuXidGood: no hardware XID in the kernel log"
fi
exit "$OK"
