/**
 * The port to Dynamic Resource Allocation ({@code resource.k8s.io/v1}) for fencing one GPU instead of its node: the
 * devices a node publishes in its driver's ResourceSlices, the DeviceTaintRules we write on them, and the pods whose
 * ResourceClaims hold a device. The records say what the episode engine needs and nothing of fabric8; {@code kube}
 * implements the port.
 *
 * <p>Uses: {@code node} (its exception); libraries: the JDK only.
 */
package io.gpuremediator.device;
