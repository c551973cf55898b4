package io.gpuremediator.episode;

import io.gpuremediator.playbook.ActionSpec;
import io.gpuremediator.playbook.Phase;
import io.gpuremediator.playbook.Playbook;
import io.gpuremediator.playbook.PlaybookSet;
import io.gpuremediator.state.Episode;
import io.gpuremediator.state.Progress;
import java.util.List;
import java.util.Optional;

/** How far an episode has come in its playbook: the questions both the webhook and the loop ask. */
public final class Episodes {
  private Episodes() {}

  /**
   * Where a webhook's part of a list ends and the loop's begins: at the first long step; while the alert fires, at the
   * first step that writes the node's status when a long step follows anyway, so the answer waits for one write a
   * node, the one that makes it safe (a burst of a thousand nodes is answered within Alertmanager's deadline), and the
   * loop, which carries the episode on in any case, writes the status. A list of immediate steps alone is the webhook's.
   */
  public static int loopTakesOver(List<ActionSpec> specs, Phase phase) {
    int firstLong = specs.size();
    int firstStatus = specs.size();
    for (int i = specs.size() - 1; i >= 0; i--) {
      firstLong = specs.get(i).isLongStep() ? i : firstLong;
      firstStatus = specs.get(i).writesNodeStatus() ? i : firstStatus;
    }
    return phase == Phase.FIRING && firstLong < specs.size() ? Math.min(firstLong, firstStatus) : firstLong;
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
