package io.gpuremediator.episode;

import io.gpuremediator.decision.Decision;
import io.gpuremediator.threads.DaemonThreads;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.function.Function;

/**
 * Decides the alerts of one webhook node by node, up to {@code parallel} nodes at once: a multi-node event's nodes are
 * written side by side rather than one after another (the API client's budget, not our loop, is then what paces them),
 * and the alerts of one node keep their order.
 */
public final class NodeFanOut implements AutoCloseable {
  /** One node after another, on the caller's thread. */
  public static final NodeFanOut SEQUENTIAL = new NodeFanOut(1);

  private final ExecutorService pool;

  /** A fan-out over {@code parallel} threads of its own (1: none, the caller's). */
  public NodeFanOut(int parallel) {
    if (parallel < 1) {
      throw new IllegalArgumentException("parallel must be at least 1");
    }
    this.pool = parallel == 1 ? null : Executors.newFixedThreadPool(parallel, DaemonThreads.numbered("remediator-node-writes"));
  }

  /**
   * Decides each item, grouped by {@code node}; the decisions in the items' order are added to {@code out} (those
   * decided before a failure too, then the first failure is thrown).
   */
  <C> void decide(List<C> items, Function<C, String> node, Function<C, Decision> decide, List<Decision> out) {
    Map<String, List<Integer>> groups = new LinkedHashMap<>();
    for (int i = 0; i < items.size(); i++) {
      groups.computeIfAbsent(node.apply(items.get(i)), k -> new ArrayList<>()).add(i);
    }
    if (pool == null || groups.size() < 2) {
      items.forEach(c -> out.add(decide.apply(c)));
      return;
    }
    Decision[] decided = new Decision[items.size()];
    List<Future<?>> running = new ArrayList<>(groups.size());
    for (List<Integer> group : groups.values()) {
      running.add(pool.submit(() -> group.forEach(i -> decided[i] = decide.apply(items.get(i)))));
    }
    RuntimeException failure = null;
    for (Future<?> f : running) {
      try {
        f.get();
      } catch (ExecutionException e) {
        failure = failure != null ? failure : e.getCause() instanceof RuntimeException r ? r
            : new IllegalStateException(e.getCause());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        failure = failure != null ? failure : new IllegalStateException("interrupted while deciding a webhook", e);
      }
    }
    for (Decision d : decided) {
      if (d != null) {
        out.add(d);
      }
    }
    if (failure != null) {
      throw failure;
    }
  }

  @Override
  public void close() {
    if (pool != null) {
      pool.shutdownNow();
    }
  }
}
