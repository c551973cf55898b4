package io.gpuremediator.episode;

import io.gpuremediator.action.NodeDraft;
import io.gpuremediator.action.PreparedAction;
import io.gpuremediator.action.RenderException;
import io.gpuremediator.decision.ActionRecord;
import io.gpuremediator.node.Cluster;
import io.gpuremediator.node.Cluster.Edited;
import io.gpuremediator.node.ClusterException;
import io.gpuremediator.node.NodeEvent;
import io.gpuremediator.node.NodeInfo;
import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.TemplateContext;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.NodeLedger;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Function;

/**
 * Every write the loop makes to a node, fenced twice: the episode on the freshly read node must be the one
 * the loop last saw (else another instance moved it, and this one stops), and this instance must still
 * lead. Inside one write the resourceVersion makes the read and the write one step.
 */
final class EpisodeWriter {
  private final Cluster cluster;
  private final BooleanSupplier leading;
  private final Clock clock;

  EpisodeWriter(Cluster cluster, BooleanSupplier leading, Clock clock) {
    this.cluster = cluster;
    this.leading = leading;
    this.clock = clock;
  }

  /** What a write did: the episode now (empty when it ended), the step records and the Events to record. */
  record Written(Optional<Episode> episode, List<ActionRecord> records, List<NodeEvent> events) {}

  /**
   * Whether the episode on the freshly read node is still {@code expected} and this instance still leads: asked
   * before a step acts outside the node (an eviction, a Job), since the cache the look started from may be behind.
   */
  boolean stillCurrent(String node, Episode expected) throws ClusterException {
    Optional<NodeInfo> fresh = cluster.freshNode(node);
    return fresh.isPresent() && expected.equals(fresh.get().ledger().episodes().get(expected.fingerprint()))
        && leading.getAsBoolean();
  }

  /** Replaces the episode with {@code next}; empty when fenced out. */
  Optional<Written> replace(String node, Episode expected, Episode next) throws ClusterException {
    return edit(node, expected, expected.progress().releasing() ? Phase.RESOLVED : Phase.FIRING,
        (draft, current) -> new Written(Optional.of(next), List.of(), List.of()), next);
  }

  /**
   * Runs immediate steps of the episode's playbook for its alert (with the alert's kept labels and annotations),
   * then records the episode as {@code after}, or ends it (moves it to history) when {@code after} is empty.
   */
  Optional<Written> runSteps(String node, Episode expected, List<ActionSpec> specs, Phase phase, Optional<Episode> after,
      String skippedLongStep) throws ClusterException, RenderException {
    List<PreparedAction> steps = StepRecords.prepare(specs, context(node, expected));
    return edit(node, expected, phase, (draft, current) -> new Written(after,
        StepRecords.apply(draft, specs, steps, specs.size(), skippedLongStep, true), draft.events()), after.orElse(null));
  }

  /** The templates' view of an episode's alert (its kept labels and annotations) on this node. */
  static TemplateContext context(String node, Episode e) {
    return new TemplateContext(e.labels(), e.annotations(), node, e.alertname(), e.fingerprint());
  }

  private Optional<Written> edit(String node, Episode expected, Phase phase, StepsOnDraft work, Episode next)
      throws ClusterException {
    Function<NodeInfo, Edited<Optional<Written>>> edit = fresh -> {
      Episode current = fresh.ledger().episodes().get(expected.fingerprint());
      if (!expected.equals(current) || !leading.getAsBoolean()) {
        return new Edited<>(fresh, Optional.empty());
      }
      NodeDraft draft = new NodeDraft(fresh, expected.fingerprint(), phase, clock.instant());
      Written w = work.apply(draft, current);
      NodeLedger ledger = draft.ledger();
      draft.ledger(next == null ? ledger.released(expected.fingerprint(), clock.instant()) : ledger.withEpisode(next));
      return new Edited<>(draft.toNode(), Optional.of(w));
    };
    return cluster.modifyNode(node, edit);
  }

  /**
   * Records an episode the loop opens itself (the pre-flight gate): {@code open} gives the fresh node's ledger with
   * it (and what it claims), or empty to write nothing; {@code fingerprint} names it in that ledger. Empty when
   * nothing was written (fenced out, or no longer wanted).
   */
  Optional<Episode> open(String node, Function<NodeInfo, Optional<NodeLedger>> open,
      Function<NodeInfo, String> fingerprint) throws ClusterException {
    return cluster.modifyNode(node, fresh -> {
      Optional<NodeLedger> next = leading.getAsBoolean() ? open.apply(fresh) : Optional.empty();
      if (next.isEmpty()) {
        return new Edited<>(fresh, Optional.<Episode>empty());
      }
      NodeDraft draft = new NodeDraft(fresh, "", Phase.FIRING, clock.instant());
      draft.ledger(next.get());
      return new Edited<>(draft.toNode(), Optional.ofNullable(next.get().episodes().get(fingerprint.apply(fresh))));
    });
  }

  /** Forgets what was given back of ended episodes' holdings, by key; nothing when this instance no longer leads. */
  void dropUnheld(String node, List<String> keys) throws ClusterException {
    cluster.modifyNode(node, fresh -> {
      if (!leading.getAsBoolean()) {
        return new Edited<>(fresh, Boolean.FALSE);
      }
      NodeDraft draft = new NodeDraft(fresh, "", Phase.FIRING, clock.instant());
      draft.ledger(fresh.ledger().withoutUnheld(keys));
      return new Edited<>(draft.toNode(), Boolean.TRUE);
    });
  }

  Instant now() {
    return clock.instant();
  }

  @FunctionalInterface
  private interface StepsOnDraft {
    Written apply(NodeDraft draft, Episode current);
  }
}
