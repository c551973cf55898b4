/**
 * The port to the Kubernetes API for what runs on a node: listing its pods, evicting and deleting them,
 * and the diagnostic Jobs. The records say what the closed loop needs to know and nothing of fabric8;
 * {@code kube} implements the port. Depends only on {@code node} (for {@link io.gpuremediator.node.ClusterException}).
 */
package io.gpuremediator.workload;
