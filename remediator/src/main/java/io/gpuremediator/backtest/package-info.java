/**
 * The shadow report ({@code backtest}): the {@code ALERTS} history of a Prometheus, read by range queries paged by time,
 * turned back into the webhooks Alertmanager would have sent (each alert once when it began firing and once when it
 * resolved, the alerts of one instant in one webhook), and replayed in order, on a clock set to each webhook's time,
 * through the same decision path as the service in dry-run over a copy of the current nodes. What comes out is, per
 * day, what would have been quarantined, drained, repaired or replaced, what each limit would have refused, and the
 * storms the breaker would have stopped. Nothing here writes to Kubernetes.
 *
 * <p>Uses: {@code action}, {@code alert}, {@code config}, {@code decision}, {@code episode}, {@code node},
 * {@code playbook}, {@code safety}; libraries: {@code com.fasterxml.jackson}.
 */
package io.gpuremediator.backtest;
