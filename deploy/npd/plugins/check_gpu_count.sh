#!/bin/bash
# GpuCount: fewer GPUs answer nvidia-smi than the node has. A GPU that fell off the bus often logs no XID at all;
# `nvidia-smi --list-gpus` simply lists fewer, or fails with "GPU is lost" / "Unable to determine the device handle".
# How many the node has: EXPECTED_GPUS when the DaemonSet sets it (one DaemonSet per node pool), else the NVIDIA
# display and 3D controllers on the PCI bus (vendor 0x10de, class 0x0300/0x0302; NVSwitches are bridges, 0x0680),
# which a GPU the driver lost stays on, bound to nvidia or to no driver at all (its probe failed); one bound to another
# driver (vfio-pci: passed through to a VM) is not this node's to count. Never one number for every node: a healthy
# 1- or 4-GPU node is not a lost GPU.
# MIG devices are listed indented under their GPU and are not GPUs.
# shellcheck source-path=SCRIPTDIR source=common.sh
. "$(dirname "$0")/common.sh"

readonly PCI_DEVICES_DIR="${PCI_DEVICES_DIR:-/sys/bus/pci/devices}"

# pci_gpus: the number of NVIDIA GPUs on the PCI bus.
pci_gpus() {
  local dev n=0
  for dev in "$PCI_DEVICES_DIR"/*; do
    if [ ! -r "$dev/vendor" ] || [ ! -r "$dev/class" ]; then
      continue
    fi
    if [ -L "$dev/driver" ] && [ "$(basename "$(readlink "$dev/driver")")" != nvidia ]; then
      continue
    fi
    if [ "$(cat "$dev/vendor")" = "0x10de" ] && [[ "$(cat "$dev/class")" =~ ^0x030[02] ]]; then
      n=$((n + 1))
    fi
  done
  echo "$n"
}

expected="${EXPECTED_GPUS:-}"
source="EXPECTED_GPUS"
if [ -z "$expected" ]; then
  expected="$(pci_gpus)"
  source="on the PCI bus"
  if [ "$expected" -eq 0 ]; then
    echo "no NVIDIA GPU found in $PCI_DEVICES_DIR and EXPECTED_GPUS is not set: cannot tell how many GPUs this node has"
    exit "$UNKNOWN"
  fi
fi
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
  echo "GpuCountBad: $count of $expected GPUs visible ($expected $source)"
  exit "$NONOK"
fi
echo "GpuCountGood: $count of $expected GPUs visible ($expected $source)"
exit "$OK"
