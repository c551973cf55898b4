/**
 * The port to the Kubernetes API for what runs on a node: listing its pods, evicting and deleting them, and
 * the Jobs of long steps. The records say what the episode engine needs to know and nothing of fabric8; {@code kube}
 * implements the port.
 *
 * <p>Uses: {@code node}; libraries: the JDK only.
 */
package io.gpuremediator.workload;
