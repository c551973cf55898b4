/**
 * The Kubernetes adapter: the only package that imports the fabric8 client. Implements the
 * {@link io.gpuremediator.node.Cluster}, {@link io.gpuremediator.workload.Workloads} and
 * {@link io.gpuremediator.device.Devices} ports with a watch-fed node cache, optimistic-concurrency node writes, Events,
 * evictions and Jobs, DRA's slices, claims and DeviceTaintRules, the fleet state's ConfigMap, leader election, and the
 * JSON form of the node ledger annotation. Retriable versus permanent failures are decided from HTTP status codes, never
 * from message text.
 *
 * <p>Uses: {@code bounded}, {@code device}, {@code node}, {@code safety}, {@code state}, {@code threads}, {@code workload};
 * libraries: {@code com.fasterxml.jackson}, {@code io.fabric8}, {@code org.slf4j}.
 */
package io.gpuremediator.kube;
