package io.gpuremediator.state;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * Where an episode is in its playbook: the stage, which list runs ({@code actions}, or {@code on_resolved}
 * once releasing), the index of the next step of that list, and the long step under way. Kept in the
 * node's ledger, so a restart or a new leader carries on from here and never starts a step twice.
 *
 * @param resolved the alert resolved; the release starts once every firing step is done
 * @param releasing the cursor is in {@code on_resolved}
 * @param next index of the next step to run in the current list; at or past its end the list is done
 * @param task the long step under way, if any
 * @param note the latest progress or failure, for people
 */
public record Progress(Stage stage, Instant stageSince, boolean resolved, boolean releasing, int next,
    Optional<Task> task, String note) {

  /** Every step of the list ran (episodes recorded before the closed loop read this way). */
  public static final int DONE = Integer.MAX_VALUE;

  /** Validates presence. */
  public Progress {
    Objects.requireNonNull(stage, "stage");
    Objects.requireNonNull(stageSince, "stageSince");
    Objects.requireNonNull(task, "task");
    note = note == null ? "" : note;
    if (next < 0) {
      throw new IllegalArgumentException("next step index " + next + " is negative");
    }
  }

  /** A new start in {@code stage}: firing, at step {@code next} of {@code actions}, no step under way. */
  public static Progress startingIn(Stage stage, Instant now, int next, String note) {
    return new Progress(stage, now, false, false, next, Optional.empty(), note);
  }

  /** An episode whose firing steps all ran. */
  public static Progress settled(Instant since) {
    return startingIn(Stage.QUARANTINED, since, DONE, "");
  }

  /** The same progress in another stage since {@code now} (unchanged when the stage is the same). */
  public Progress inStage(Stage s, Instant now) {
    return s == stage ? this : new Progress(s, now, resolved, releasing, next, task, note);
  }

  /** With the cursor at {@code index} and no task. */
  public Progress at(int index) {
    return new Progress(stage, stageSince, resolved, releasing, index, Optional.empty(), note);
  }

  /** With this long step under way. */
  public Progress running(Task t) {
    return new Progress(stage, stageSince, resolved, releasing, next, Optional.of(t), note);
  }

  /** With the alert resolved. */
  public Progress resolvedNow() {
    return new Progress(stage, stageSince, true, releasing, next, task, note);
  }

  /** Moving into {@code on_resolved}, at its first step. */
  public Progress releasingFromStart() {
    return new Progress(stage, stageSince, true, true, 0, Optional.empty(), note);
  }

  /** With a new note. */
  public Progress noted(String text) {
    return new Progress(stage, stageSince, resolved, releasing, next, task, text);
  }

  /**
   * A long step under way.
   *
   * @param kind the action kind, e.g. {@code drain}
   * @param step its index in the current list
   * @param started when it started (timeouts count from here)
   * @param attempt 1 for the first run, more after a human's retry
   * @param handle what it created to do its work (a Job's name), or empty
   * @param retryAt when to try again after a refusal (a PDB block, throttling), or empty
   */
  public record Task(String kind, int step, Instant started, int attempt, String handle, Optional<Instant> retryAt) {
    /** Validates presence. */
    public Task {
      Objects.requireNonNull(kind, "kind");
      Objects.requireNonNull(started, "started");
      handle = handle == null ? "" : handle;
      Objects.requireNonNull(retryAt, "retryAt");
    }

    /** The same task, to be tried again not before {@code at}. */
    public Task retryAt(Instant at) {
      return new Task(kind, step, started, attempt, handle, Optional.of(at));
    }

    /** The same task with this handle. */
    public Task withHandle(String h) {
      return new Task(kind, step, started, attempt, h, retryAt);
    }
  }
}
