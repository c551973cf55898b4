package io.gpuremediator.playbook;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * One action of a playbook, as written: each kind's spec record lives with its kind (in {@code action}), so a new kind
 * is one class there and one row of its registry. {@code dryRun} is the action-level switch.
 */
public interface ActionSpec {
  /** The action kind as written in a playbook, e.g. {@code taint}: {@link #kindOf} its record. */
  default String kind() {
    return kindOf(getClass());
  }

  /**
   * A kind's name, derived from its spec record's: {@code DrainSpec} is {@code drain}, a {@code GpuResetSpec} would be
   * {@code gpu_reset}. The one place a kind's name is made; computed once per record.
   */
  static String kindOf(Class<?> specType) {
    return KindNames.NAMES.get(specType);
  }

  /** The names of the kinds, computed once per spec record. */
  final class KindNames {
    private static final ClassValue<String> NAMES = new ClassValue<>() {
      @Override
      protected String computeValue(Class<?> type) {
        return derive(type);
      }
    };

    private KindNames() {}
  }

  private static String derive(Class<?> specType) {
    String simple = specType.getSimpleName();
    String stem = simple.endsWith("Spec") ? simple.substring(0, simple.length() - "Spec".length()) : simple;
    return stem.replaceAll("([a-z0-9])([A-Z])", "$1_$2").toLowerCase(Locale.ROOT);
  }

  /** What outside Kubernetes a step calls, to be configured in the service config. */
  enum Port {
    /** Alertmanager's silences API ({@code alertmanager}). */
    ALERTMANAGER,
    /** A notification receiver ({@code notify.receivers}), by name. */
    RECEIVER,
    /** A cloud's API ({@code cloud}), by provider. */
    CLOUD
  }

  /** A port outside Kubernetes a step needs, and which one (a receiver's or a provider's name; empty for Alertmanager). */
  record Needs(Port port, String name) {}

  /** What this step needs configured outside Kubernetes; empty when it acts on Kubernetes alone. */
  default Optional<Needs> needs() {
    return Optional.empty();
  }

  /** The playbook a failure of this step escalates the episode to; empty: it stays out for a human. */
  default Optional<String> escalatesTo() {
    return Optional.empty();
  }

  /** Every playbook a failure of this step may escalate to: its on_fail and those its verdicts choose. */
  default List<String> escalationTargets() {
    return escalatesTo().stream().toList();
  }

  /**
   * How long a reboot or replacement after this step waits, at most, for the evidence Job it leaves running (a
   * {@code collect}); empty for every other step.
   */
  default Optional<Duration> evidenceTimeout() {
    return Optional.empty();
  }

  /** Where the report of the evidence Job this step leaves running is stored ({@code collect.store}); else empty. */
  default Optional<EvidenceStore> evidenceStore() {
    return Optional.empty();
  }

  /** Whether this action only records what it would do. */
  boolean dryRun();

  /**
   * Whether running this action takes the node out of service (no new work lands on it): the one place
   * that says so, for the safety gate's budget. A dry-run action changes nothing, so it never does.
   */
  default boolean takesNodeOutOfService() {
    return false;
  }

  /**
   * Whether running this action fences a GPU of the node ({@code fence_gpu}): the node stays in service, one GPU does
   * not; the episode gives it back at its end. A dry-run action fences nothing.
   */
  default boolean fencesGpu() {
    return false;
  }

  /**
   * Whether this step passing proves the node healthy (a diagnose): in {@code actions}, release steps may follow it,
   * and the node returns to service without waiting for its alert to resolve.
   */
  default boolean provesHealthy() {
    return false;
  }

  /**
   * Whether this step writes the node's status (a condition), a write of its own beside the one that takes the node
   * out (taints, cordon, labels, the ledger). A firing webhook whose list goes on to a long step answers once that one
   * is written: from the first status write on, the loop carries the list on.
   */
  default boolean writesNodeStatus() {
    return false;
  }

  /**
   * Whether this is a long step (drain, diagnose): carried on in the background after the webhook is
   * answered, resumed from the ledger after a restart. Steps after it wait for it to succeed.
   */
  default boolean isLongStep() {
    return false;
  }

  /**
   * Whether the loop does this step's work after the node write (a long step, a silence, a notification), so the
   * episode keeps its alert's labels and annotations to render it.
   */
  default boolean runsInBackground() {
    return isLongStep();
  }

  /**
   * The key of the taint this step sets or removes, which a Job of its episode must tolerate (a taint the playbook
   * removes later is on the node now, as the pre-flight gate's is while its Job runs); empty for every other step.
   */
  default Optional<String> taintKey() {
    return Optional.empty();
  }

}
