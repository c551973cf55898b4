package io.gpuremediator.playbook;

import io.gpuremediator.value.Rate;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * One playbook: the alerts it matches (all matchers must hold), what it does while an alert fires,
 * and what it undoes when the alert resolves.
 *
 * @param matchNode matchers over the labels of the alert's Node, all of which must hold too (a node group: bare-metal
 *     pools, an EKS pool, an observe-only pool); empty: any node
 * @param escalate what to run instead for a repeat offender
 * @param source where it was defined, {@code file:line}
 */
public record Playbook(
    String name,
    String description,
    List<Matcher> match,
    List<Matcher> matchNode,
    boolean dryRun,
    Optional<Rate> rateLimit,
    Optional<Duration> cooldown,
    List<ActionSpec> actions,
    List<ActionSpec> onResolved,
    Optional<Escalation> escalate,
    String source) {

  /** Validates presence and copies lists. */
  public Playbook {
    Objects.requireNonNull(name, "name");
    description = description == null ? "" : description;
    match = List.copyOf(match);
    matchNode = List.copyOf(matchNode);
    Objects.requireNonNull(rateLimit, "rateLimit");
    Objects.requireNonNull(cooldown, "cooldown");
    actions = List.copyOf(actions);
    onResolved = List.copyOf(onResolved);
    Objects.requireNonNull(escalate, "escalate");
    source = source == null ? "" : source;
  }

  /** The Nth episode on the same node within {@code within} runs playbook {@code to} instead (repeat offenders). */
  public record Escalation(int after, Duration within, String to) {}

  /** Whether the playbook's firing actions take the node out of service (see {@link ActionSpec#takesNodeOutOfService}). */
  public boolean takesNodeOutOfService() {
    for (int i = 0; i < actions.size(); i++) { // asked for every new episode: no stream
      if (actions.get(i).takesNodeOutOfService()) {
        return true;
      }
    }
    return false;
  }

  /** Whether the playbook's firing actions fence a GPU (see {@link ActionSpec#fencesGpu}). */
  public boolean fencesGpu() {
    return actions.stream().anyMatch(ActionSpec::fencesGpu);
  }

  /** Whether every alert matcher holds for these labels (and, when it has node matchers, for a node not known yet). */
  public boolean matches(Map<String, String> labels) {
    return all(match, labels);
  }

  /** Whether every alert matcher holds for the alert's labels and every node matcher for its Node's labels. */
  public boolean matches(Map<String, String> labels, Map<String, String> nodeLabels) {
    return all(match, labels) && all(matchNode, nodeLabels);
  }

  private static boolean all(List<Matcher> matchers, Map<String, String> labels) {
    for (Matcher m : matchers) {
      if (!m.matches(labels)) {
        return false;
      }
    }
    return true;
  }
}
