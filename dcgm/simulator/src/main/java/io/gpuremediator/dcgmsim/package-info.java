/**
 * A dcgm-exporter simulator for demos and tests: serves, in the Prometheus text format and with the
 * labels dcgm-exporter really emits, the fields enabled by {@code dcgm/counters.csv} for simulated
 * 8-GPU nodes (and Trainium nodes' NPD and neuron-monitor series), plus the kube-state-metrics series
 * the rules read; an HTTP API injects and clears faults per node and GPU.
 */
package io.gpuremediator.dcgmsim;
