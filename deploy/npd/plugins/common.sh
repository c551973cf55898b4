#!/bin/bash
# Shared by the GPU custom-plugin checks of node-problem-detector. NPD's custom-plugin protocol:
# exit 0 = OK, 1 = the problem is present (NonOK), 2 = cannot tell (Unknown); the first line of
# stdout is the condition's message.
# shellcheck shell=bash

# shellcheck disable=SC2034 # used by the checks that source this file
readonly OK=0 NONOK=1 UNKNOWN=2
# Each nvidia-smi call may take at most this long: a GPU that hangs the driver hangs nvidia-smi too.
readonly NVSMI_TIMEOUT="${NVSMI_TIMEOUT:-15}"

# nvidia_smi ARGS...: runs nvidia-smi with a timeout; on a timeout or a missing binary it reports
# Unknown and exits, because a check that cannot run must not claim the GPUs are fine or broken.
nvidia_smi() {
  local out rc
  if ! command -v nvidia-smi >/dev/null 2>&1; then
    echo "nvidia-smi not found"
    exit "$UNKNOWN"
  fi
  out="$(timeout "$NVSMI_TIMEOUT" nvidia-smi "$@" 2>&1)"
  rc=$?
  if [ "$rc" -eq 124 ]; then
    echo "nvidia-smi $* timed out after ${NVSMI_TIMEOUT}s"
    exit "$UNKNOWN"
  fi
  printf '%s\n' "$out"
  return "$rc"
}
