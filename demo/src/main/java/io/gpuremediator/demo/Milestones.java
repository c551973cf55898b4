package io.gpuremediator.demo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.function.LongSupplier;

/**
 * Waits for several things to happen, polling all of them together so that each is timed when it is
 * first seen (not when an earlier wait ended), until a deadline. The deadline may move with live state
 * (a pending alert whose {@code for:} restarted is given its new due time); when it passes, the failure
 * names what was not seen and what each missing milestone's explanation saw.
 */
final class Milestones {
  /** A poll every 200 ms times a milestone well enough, and costs a busy 2-core machine little. */
  private static final long POLL_MILLIS = 200;

  /** Something to see: the probe answers a description once it is true; {@code explain} says what it saw when it is not. */
  record Milestone(String name, Callable<Optional<String>> probe, Callable<String> explain) {
    Milestone(String name, Callable<Optional<String>> probe) {
      this(name, probe, () -> "");
    }
  }

  /** Reports each milestone when first seen. */
  interface Reached {
    void reached(Milestone m, String description, Duration sinceStart);
  }

  /** Thrown when a deadline passes; names what was not seen and why. */
  static final class Missed extends Exception {
    Missed(String message) {
      super(message);
    }
  }

  private Milestones() {}

  /** Polls until every milestone was seen once or {@code timeout} passed. */
  static Map<String, Duration> await(long startNanos, Duration timeout, List<Milestone> milestones, Reached reached, Runnable tick)
      throws Missed, InterruptedException {
    long deadline = System.nanoTime() + timeout.toNanos();
    return await(startNanos, () -> deadline, milestones, reached, tick);
  }

  /** Polls until every milestone was seen once or the deadline (read anew at every poll) passed. */
  static Map<String, Duration> await(long startNanos, LongSupplier deadlineNanos, List<Milestone> milestones, Reached reached,
      Runnable tick) throws Missed, InterruptedException {
    Map<String, Duration> seen = new LinkedHashMap<>();
    Map<String, String> lastError = new LinkedHashMap<>();
    long waitStarted = System.nanoTime();
    while (seen.size() < milestones.size()) {
      for (Milestone m : milestones) {
        if (seen.containsKey(m.name())) {
          continue;
        }
        try {
          Optional<String> d = m.probe().call();
          if (d.isPresent()) {
            Duration at = Duration.ofNanos(System.nanoTime() - startNanos);
            seen.put(m.name(), at);
            reached.reached(m, d.get(), at);
          }
        } catch (InterruptedException e) {
          throw e;
        } catch (Exception e) {
          lastError.put(m.name(), e.toString());
        }
      }
      if (seen.size() < milestones.size()) {
        if (System.nanoTime() > deadlineNanos.getAsLong()) {
          throw new Missed(missing(milestones, seen, lastError, Duration.ofNanos(System.nanoTime() - waitStarted)));
        }
        tick.run();
        Thread.sleep(POLL_MILLIS);
      }
    }
    return seen;
  }

  private static String missing(List<Milestone> milestones, Map<String, Duration> seen, Map<String, String> lastError, Duration waited) {
    StringBuilder out = new StringBuilder("not seen within " + waited.toSeconds() + " s: ");
    StringBuilder why = new StringBuilder();
    boolean first = true;
    for (Milestone m : milestones) {
      if (seen.containsKey(m.name())) {
        continue;
      }
      out.append(first ? "" : "; ").append(m.name());
      first = false;
      if (lastError.containsKey(m.name())) {
        out.append(" (last error: ").append(lastError.get(m.name())).append(')');
      }
      String explanation;
      try {
        explanation = m.explain().call();
      } catch (Exception e) {
        explanation = "(could not look: " + e + ")";
      }
      if (!explanation.isBlank()) {
        why.append("\n  ").append(m.name()).append(": ").append(explanation.replace("\n", "\n    "));
      }
    }
    return out.append(why).toString();
  }
}
