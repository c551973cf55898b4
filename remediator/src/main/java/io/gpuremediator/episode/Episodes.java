package io.gpuremediator.episode;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import java.util.List;
import java.util.Optional;

/** How far an episode has come in its playbook: the questions both the webhook and the loop ask. */
public final class Episodes {
  private Episodes() {}

  /** The index of the first long step of a list, or its size when it has none. */
  public static int firstLongStep(List<ActionSpec> specs) {
    for (int i = 0; i < specs.size(); i++) {
      if (specs.get(i).isLongStep()) {
        return i;
      }
    }
    return specs.size();
  }

  /** Whether any step of the playbook runs in the background (so the alert's context must be kept). */
  public static boolean hasBackgroundSteps(Playbook p) {
    return p.actions().stream().anyMatch(ActionSpec::runsInBackground)
        || p.onResolved().stream().anyMatch(ActionSpec::runsInBackground);
  }

  /** The list the episode's cursor is in. */
  public static List<ActionSpec> currentList(Episode e, Playbook p) {
    return e.progress().releasing() ? p.onResolved() : p.actions();
  }

  /** Whether the firing steps are all done (a long step finished, nothing left to run). */
  public static boolean firingDone(Episode e, Playbook p) {
    Progress pr = e.progress();
    return !pr.releasing() && pr.task().isEmpty() && pr.next() >= p.actions().size();
  }

  /** What a resolution must wait for before the release may start, or empty when it may start now. */
  public static Optional<String> releaseWaitsFor(Episode e, Playbook p) {
    Progress pr = e.progress();
    if (pr.releasing()) {
      return Optional.of("the release is already under way");
    }
    if (pr.stage().isFailed()) {
      return Optional.of("stage " + pr.stage().code() + " needs a human (retry or release)");
    }
    if (!firingDone(e, p)) {
      int next = Math.min(pr.next(), p.actions().size() - 1);
      return Optional.of("step " + (next + 1) + " of " + p.actions().size() + " (" + p.actions().get(next).kind()
          + ") has not finished");
    }
    if (!e.fenced().isEmpty()) {
      return Optional.of("the GPUs it fenced are given back first (DeviceTaintRules deleted by the loop)");
    }
    return Optional.empty();
  }

  /** Whether the episode has something to do now or soon (not waiting for its alert, and not for a human). */
  static boolean hasWork(Episode e, PlaybookSet set) {
    Progress p = e.progress();
    if (p.stage().isFailed()) {
      return false;
    }
    Optional<Playbook> pb = set.named(e.playbook());
    if (pb.isEmpty()) {
      return true;
    }
    return p.task().isPresent() || p.releasing() || p.resolved() || p.next() < pb.get().actions().size();
  }
}
