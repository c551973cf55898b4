package io.gpuremediator.playbook;

import io.gpuremediator.node.TaintEffect;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Pattern;

/** One action of a playbook, as written. One record per action kind; {@code dryRun} is the action-level switch. */
public sealed interface ActionSpec {
  /** The action kind as written in a playbook, e.g. {@code taint}: {@link #kindOf} its record. */
  default String kind() {
    return KINDS.get(getClass());
  }

  /** The names of the kinds, one per spec record (computed once per record). */
  ClassValue<String> KINDS = new ClassValue<>() {
    @Override
    protected String computeValue(Class<?> type) {
      return kindOf(type);
    }
  };

  /**
   * A kind's name, derived from its spec record's: {@code DrainSpec} is {@code drain}, a {@code GpuResetSpec} would be
   * {@code gpu_reset}. The one place a kind's name is made.
   */
  static String kindOf(Class<?> specType) {
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

  /** Adds (or updates the value of) a taint. */
  record TaintSpec(String key, Template value, TaintEffect effect, boolean dryRun) implements ActionSpec {

    /** NoSchedule and NoExecute keep work off the node; PreferNoSchedule only discourages it. */
    @Override
    public boolean takesNodeOutOfService() {
      return !dryRun && effect != TaintEffect.PREFER_NO_SCHEDULE;
    }
  }

  /** Removes a taint we added; with no effect, every effect of the key. */
  record UntaintSpec(String key, Optional<TaintEffect> effect, boolean dryRun) implements ActionSpec {
  }

  /** Marks the node unschedulable. */
  record CordonSpec(boolean dryRun) implements ActionSpec {
    @Override
    public boolean takesNodeOutOfService() {
      return !dryRun;
    }
  }

  /** Makes the node schedulable again, if we cordoned it. */
  record UncordonSpec(boolean dryRun) implements ActionSpec {
  }

  /** Sets a label. */
  record LabelSpec(String key, Template value, boolean dryRun) implements ActionSpec {
  }

  /** Removes a label we set. */
  record UnlabelSpec(String key, boolean dryRun) implements ActionSpec {
  }

  /** Sets an annotation. */
  record AnnotateSpec(String key, Template value, boolean dryRun) implements ActionSpec {
  }

  /** Sets a node status condition. */
  record ConditionSpec(String type, String status, Template reason, Template message, boolean dryRun)
      implements ActionSpec {
  }

  /** Records a core/v1 Event on the node. */
  record EventSpec(String type, Template reason, Template message, boolean dryRun) implements ActionSpec {
  }

  /** How a drain treats the pods it finds. */
  enum DrainMode {
    /** Evict through the Eviction API (PodDisruptionBudgets respected); at timeout the step fails. */
    EVICT,
    /** Evict nothing: wait for the pods to finish; at timeout the step fails. */
    WAIT,
    /** Evict; at timeout delete what is left (a checkpointing job gets until then). */
    EVICT_THEN_DELETE;

    /** The mode as written in playbooks. */
    public String code() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /**
   * Moves the workload off the node: PodDisruptionBudget-aware eviction (policy/v1).
   *
   * @param gracePeriod the most a pod gets to terminate, whatever its own terminationGracePeriodSeconds
   * @param skipNamespaces pods in namespaces matching this regex are left alone (DaemonSet and mirror pods always are)
   */
  record DrainSpec(DrainMode mode, Duration timeout, Duration gracePeriod,
      Pattern skipNamespaces, boolean dryRun) implements ActionSpec {
    @Override
    public boolean isLongStep() {
      return true;
    }
  }

  /**
   * Runs a diagnostic Job pinned to the node; passes when the Job completes.
   *
   * @param onFail the playbook an episode escalates to when diagnostics fail; empty: stay out for a human
   */
  record DiagnoseSpec(String image, List<String> command, Duration timeout,
      Optional<String> onFail, boolean dryRun) implements ActionSpec {
    /** Copies the command. */
    public DiagnoseSpec {
      command = List.copyOf(command);
    }

    @Override
    public Optional<String> escalatesTo() {
      return onFail;
    }


    @Override
    public boolean isLongStep() {
      return true;
    }
  }

  /**
   * Has the node's cloud instance replaced: AWS Auto Scaling {@code SetInstanceHealth(Unhealthy)} for the node's
   * providerID; the step ends when the Node object is gone, or fails at {@code timeout}.
   */
  record ReplaceSpec(String provider, Duration timeout, boolean dryRun) implements ActionSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.CLOUD, provider));
    }

    @Override
    public boolean isLongStep() {
      return true;
    }
  }

  /**
   * Holds an Alertmanager silence while the episode lasts: created when the step is reached, renewed before it
   * ends, expired when the episode ends. Never a gate: the steps after it do not wait for Alertmanager.
   *
   * @param matchers what to silence; values may be templates (never a regex's)
   * @param duration how long each silence lasts; renewed while the episode lasts
   */
  record SilenceSpec(List<SilenceMatcher> matchers, Duration duration, Template comment,
      boolean dryRun) implements ActionSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.ALERTMANAGER, ""));
    }

    /** Copies the matchers. */
    public SilenceSpec {
      matchers = List.copyOf(matchers);
    }


    @Override
    public boolean runsInBackground() {
      return true;
    }
  }

  /**
   * Sends a message to a configured receiver when the step is reached.
   *
   * @param stageChanges whether every later stage change of the episode also notifies this receiver
   */
  record NotifySpec(String receiver, Template message, boolean stageChanges, boolean dryRun) implements ActionSpec {
    @Override
    public Optional<Needs> needs() {
      return Optional.of(new Needs(Port.RECEIVER, receiver));
    }

    @Override
    public boolean runsInBackground() {
      return true;
    }
  }
}
