/**
 * Fleet safety: the limits that can refuse a remediation (pause, storm breaker, max_unavailable, rate limits,
 * cooldown, the replacement limit) and the fleet state they need (kept in a
 * {@link io.gpuremediator.safety.FleetStore}, a ConfigMap in production). The gate has three parts: admission, the
 * breaker and the pause, and the state writer. Every refusal is a {@link io.gpuremediator.decision.Refusal} with a stable
 * reason code. Fails closed. See docs/safety.md.
 *
 * <p>Uses: {@code decision}, {@code node}, {@code state}, {@code value}; libraries:
 * {@code org.slf4j}.
 */
package io.gpuremediator.safety;
