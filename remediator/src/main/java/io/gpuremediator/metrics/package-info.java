/**
 * Every Prometheus collector of the service, registered in one place with intention-revealing methods. Labels
 * come from closed sets only (status, outcome, reason, action, code): never a node name or a fingerprint.
 *
 * <p>Uses: no other package of ours; libraries: {@code io.prometheus}.
 */
package io.gpuremediator.metrics;
