#!/usr/bin/env python3
"""Builds the DCGM 4 `dcgmi diag -j` documents of tests/real/dcgm from the recorded real ones (SOURCES.md, "dcgm/").

The `diagnostic` test is the real 8-GPU run (diag-v4-diagnostic-8-gpus-pass.json, NVIDIA/DCGM #215); the `pcie` test's
passing results carry the info lines of DCGM's own test data (testing/TestDiagManagerStrings.h, "pcie"), one result per
GPU as DCGM 4 writes them (entity_group, entity_group_id, entity_id). A fault replaces one GPU's result as the DCGM
plugin that reports it does (the error id, severity and category of dcgmlib/src/dcgm_errors.c, the message format of
dcgmlib/dcgm_errors.h). Run it from the repository root; it rewrites the diag-v4-*.json documents it names.
"""
import copy
import json
import pathlib

HERE = pathlib.Path(__file__).parent
DIAGNOSTIC = json.loads(HERE.joinpath("diag-v4-diagnostic-8-gpus-pass.json").read_text())
PCIE_INFO = [  # TestDiagManagerStrings.h, GPU 0's pcie result, renumbered per GPU
    "GPU {g} GPU to Host bandwidth:\t\t13.08 GB/s",
    "GPU {g} Host to GPU bandwidth:\t\t12.13 GB/s",
    "GPU {g} bidirectional bandwidth:\t22.42 GB/s",
]


def pcie_pass():
    results = [{"entity_group": "GPU", "entity_group_id": 1, "entity_id": g,
                "info": [line.format(g=g) for line in PCIE_INFO], "status": "Pass"} for g in range(8)]
    return {"name": "pcie", "results": results, "test_summary": {"status": "Pass"}}


def fail(test, gpu, error_id, severity, category, *warnings):
    out = copy.deepcopy(test)
    out["results"][gpu] = {"entity_group": "GPU", "entity_group_id": 1, "entity_id": gpu, "status": "Fail",
                           "warnings": [{"error_category": category, "error_id": error_id,
                                         "error_severity": severity, "warning": w} for w in warnings]}
    out["test_summary"] = {"status": "Fail"}
    return out


def document(diagnostic, pcie):
    return {"DCGM Diagnostic": {"test_categories": [
        {"category": "Hardware", "tests": [diagnostic]},
        {"category": "Integration", "tests": [pcie]}]}}


def write(name, doc):
    HERE.joinpath(name).write_text(json.dumps(doc, indent=8) + "\n")


write("diag-v4-pass.json", document(DIAGNOSTIC, pcie_pass()))
# GpuBurnPlugin.cpp: DCGM_FR_FAULTY_MEMORY (52), ISOLATE (2), HARDWARE_MEMORY (10)
write("diag-v4-memory-fail.json", document(fail(DIAGNOSTIC, 3, 52, 2, 10,
      "Found 4 faulty memory elements on GPU 3"), pcie_pass()))
# Pcie.cpp: DCGM_FR_PCIE_H_REPLAY_VIOLATION (98), ISOLATE (2), HARDWARE_PCIE (13)
write("diag-v4-pcie-replay-fail.json", document(DIAGNOSTIC, fail(pcie_pass(), 5, 98, 2, 13,
      "GPU 5 host-side PCIe replay violation, see dmesg for more information")))
# The pcie test's NVLink check: DCGM_FR_NVLINK_DOWN (14), TRIAGE (4), HARDWARE_NVLINK (11), "GPU %u's NvLink link %d is
# currently down", one warning per link, as a real run printed them (NVIDIA/DCGM #49: "GPU 0's NvLink link 0 is
# currently down", links 0 to 4, in the PCIe test's warnings)
write("diag-v4-nvlink-down-fail.json", document(DIAGNOSTIC, fail(pcie_pass(), 0, 14, 4, 11,
      *[f"GPU 0's NvLink link {link} is currently down" for link in range(5)])))
