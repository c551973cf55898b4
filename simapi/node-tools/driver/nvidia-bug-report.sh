#!/bin/sh
# A fake nvidia-bug-report.sh, installed where an emulated node's driver puts it (the GPU Operator's driver root, or the
# host's /usr/bin). It does what the recorded R580 script does with these options (tests/real/nvidia-bug-report): for
# `--output-file FILE` it writes FILE.gz, starting with the script's prologue, and prints its start message to stdout.
# Run through the fake chroot, FILE is under $FAKE_CHROOT. FAKE_BUG_REPORT=fail makes it exit 1 having written nothing.
set -u
recorded="${FAKE_RECORDED:?}/nvidia-bug-report/r580-excerpt.sh.txt"
base="nvidia-bug-report.log"
flags="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    -o | --output-file) base="$2"; shift ;;
    --safe-mode) ;;
    *) echo "Error: Unknown option \"$1\"."; exit 1 ;;
  esac
  shift
done
log="${FAKE_CHROOT:-}$base.gz"
if [ "${FAKE_BUG_REPORT:-}" = fail ]; then
  echo "ERROR: Working directory is not writable; please cd to a directory"
  exit 1
fi
# The echo lines of the recorded start message, as they print.
sed -n '/^# print a start message/,/^# print prologue/p' "$recorded" | sed -n 's/^ *echo "\(.*\)" *$/\1/p' \
  | sed "s|\$LOG_FILENAME|$base.gz|"
sed -n '/^# print prologue/,/^)/p' "$recorded" | sed -n 's/^ *echo "\(.*\)" *$/\1/p' \
  | sed "s|\$NVIDIA_BUG_REPORT_VERSION|37062940|; s|\`date\`|$(date)|; s|\`uname -a\`|$(uname -a)|; s|\$SAVED_FLAGS|$flags|" \
  | gzip -c >"$log"
