/**
 * Fleet safety: the limits that can refuse a remediation (pause, storm breaker, max_unavailable,
 * rate limits, cooldown) and the fleet state they need (kept in a {@link io.gpuremediator.safety.FleetStore},
 * a ConfigMap in production). Every refusal is a {@link io.gpuremediator.decision.Refusal} with a
 * stable reason code. Fails closed. See DESIGN.md.
 *
 * <p>Depends on {@code node}, {@code state}, {@code decision}, {@code value}; JDK only otherwise.
 */
package io.gpuremediator.safety;
