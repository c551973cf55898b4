package io.gpuremediator.sweep;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One sweep as the last look saw it, for the page and {@code GET /api/v1/fleet}.
 *
 * @param running its Jobs under way, the oldest first
 * @param due the selected nodes due a sweep, in service, without an episode and not known to hold GPU work, that it has
 *     not started on (a node's pods are read only when a slot is free for it)
 * @param blockedBy why no more started at the last look (a budget's reason code and detail, the playbook); empty: none
 */
public record SweepStatus(String name, String playbook, int maxConcurrent, List<Running> running, int due,
    String blockedBy) {
  /** Copies the list. */
  public SweepStatus {
    Objects.requireNonNull(name, "name");
    running = List.copyOf(running);
    blockedBy = blockedBy == null ? "" : blockedBy;
  }

  /** A sweep Job under way: on which node, its name, since when. */
  public record Running(String node, String job, Instant since) {}
}
