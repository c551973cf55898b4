/**
 * The benchmarks behind {@code make bench}: decision throughput over HTTP beside a bare JSON-parsing
 * Vert.x endpoint (each server alone on one pinned core), webhook-to-taint latency against the
 * fabric8 mock API server, and the service's idle resident memory. Prints what it measured.
 */
package io.gpuremediator.bench;
