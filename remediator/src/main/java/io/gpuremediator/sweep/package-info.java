/**
 * Health sweeps of idle nodes ({@code sweeps}): a diagnostic playbook's diagnose step run as a Job of the lowest
 * PriorityClass on selected nodes no GPU work holds, each node once every {@code every}, a few at a time and inside the
 * fleet's and the domains' budgets; deleted as soon as GPU work comes to its node, and a failed diagnostic raised to
 * the engine as the alert {@code GpuSweepFailed}, which opens an episode like any alert.
 *
 * <p>Uses: {@code action}, {@code alert}, {@code decision}, {@code episode}, {@code node}, {@code playbook},
 * {@code safety}, {@code state}, {@code workload}; libraries: {@code org.slf4j}.
 */
package io.gpuremediator.sweep;
