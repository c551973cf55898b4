/**
 * Small value types shared by the service config and the playbooks: Prometheus-style durations, rates
 * ({@code 10/1h}) and budgets ({@code 10%} or {@code 3}). Each parses strictly and says why it refused.
 *
 * <p>Uses: {@code yaml}; libraries: the JDK only.
 */
package io.gpuremediator.value;
