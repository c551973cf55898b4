package io.gpuremediator.demo;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;

/**
 * Waits for several things to happen, polling all of them together so that each is timed when it is
 * first seen (not when an earlier wait ended), with a deadline.
 */
final class Milestones {
  private static final long POLL_MILLIS = 50;

  /** Something to see: the probe answers a description once it is true. */
  record Milestone(String name, Callable<Optional<String>> probe) {}

  /** Reports each milestone when first seen. */
  interface Reached {
    void reached(Milestone m, String description, Duration sinceStart);
  }

  /** Thrown when a deadline passes; names what was not seen. */
  static final class Missed extends Exception {
    Missed(String message) {
      super(message);
    }
  }

  private Milestones() {}

  /** Polls until every milestone was seen once; returns when each was, measured from {@code startNanos}. */
  static Map<String, Duration> await(long startNanos, Duration timeout, List<Milestone> milestones, Reached reached, Runnable tick)
      throws Missed, InterruptedException {
    Map<String, Duration> seen = new LinkedHashMap<>();
    Map<String, String> lastError = new LinkedHashMap<>();
    long deadline = System.nanoTime() + timeout.toNanos();
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
        if (System.nanoTime() > deadline) {
          StringBuilder missing = new StringBuilder();
          milestones.stream().filter(m -> !seen.containsKey(m.name())).forEach(m -> missing.append(missing.isEmpty() ? "" : "; ")
              .append(m.name()).append(lastError.containsKey(m.name()) ? " (last error: " + lastError.get(m.name()) + ")" : ""));
          throw new Missed("not seen within " + timeout.toSeconds() + " s: " + missing);
        }
        tick.run();
        Thread.sleep(POLL_MILLIS);
      }
    }
    return seen;
  }
}
