/**
 * The benchmarks behind {@code make bench}: decision throughput over HTTP beside a bare JSON-parsing
 * Vert.x endpoint (each server alone on one pinned core), webhook-to-taint latency against the
 * fabric8 mock API server, the storm breaker's answer time, fault to quarantine hop by hop on the demo's
 * whole loop, what the shipped rules cost a real Prometheus over a synthetic 1,000-node fleet, and the
 * service's idle resident memory. Prints what it measured.
 */
package io.gpuremediator.bench;
