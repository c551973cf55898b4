/**
 * Every Prometheus collector of the service, registered in one place with intention-revealing
 * methods. Labels come from closed sets only (status, outcome, reason, action, code): never a node
 * name or a fingerprint. Depends on the Prometheus simpleclient only.
 */
package io.gpuremediator.metrics;
