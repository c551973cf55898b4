package io.gpuremediator.playbook;

import io.gpuremediator.node.TaintEffect;
import java.util.Optional;

/** One action of a playbook, as written. One record per action kind; {@code dryRun} is the action-level switch. */
public sealed interface ActionSpec {
  /** The action kind as written in a playbook, e.g. {@code taint}. */
  String kind();

  /** Whether this action only records what it would do. */
  boolean dryRun();

  /**
   * Whether running this action takes the node out of service (no new work lands on it): the one place
   * that says so, for the safety gate's budget. A dry-run action changes nothing, so it never does.
   */
  default boolean takesNodeOutOfService() {
    return false;
  }

  /** Adds (or updates the value of) a taint. */
  record TaintSpec(String key, Template value, TaintEffect effect, boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "taint";
    }

    /** NoSchedule and NoExecute keep work off the node; PreferNoSchedule only discourages it. */
    @Override
    public boolean takesNodeOutOfService() {
      return !dryRun && effect != TaintEffect.PREFER_NO_SCHEDULE;
    }
  }

  /** Removes a taint we added; with no effect, every effect of the key. */
  record UntaintSpec(String key, Optional<TaintEffect> effect, boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "untaint";
    }
  }

  /** Marks the node unschedulable. */
  record CordonSpec(boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "cordon";
    }

    @Override
    public boolean takesNodeOutOfService() {
      return !dryRun;
    }
  }

  /** Makes the node schedulable again, if we cordoned it. */
  record UncordonSpec(boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "uncordon";
    }
  }

  /** Sets a label. */
  record LabelSpec(String key, Template value, boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "label";
    }
  }

  /** Removes a label we set. */
  record UnlabelSpec(String key, boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "unlabel";
    }
  }

  /** Sets an annotation. */
  record AnnotateSpec(String key, Template value, boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "annotate";
    }
  }

  /** Sets a node status condition. */
  record ConditionSpec(String type, String status, Template reason, Template message, boolean dryRun)
      implements ActionSpec {
    @Override
    public String kind() {
      return "condition";
    }
  }

  /** Records a core/v1 Event on the node. */
  record EventSpec(String type, Template reason, Template message, boolean dryRun) implements ActionSpec {
    @Override
    public String kind() {
      return "event";
    }
  }
}
