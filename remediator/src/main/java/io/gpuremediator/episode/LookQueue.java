package io.gpuremediator.episode;

import io.gpuremediator.threads.DaemonThreads;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.Consumer;

/**
 * The loop's worker threads and the nodes they look at next: a node whose step ended outside it (a Job finished, the last
 * pod of a drain left, a rule was deleted) before the nodes queued for anything else (a new episode, the timer). In a
 * burst of a hundred episodes every worker has a queue of first looks; a step that ended waits behind none of them.
 */
final class LookQueue implements AutoCloseable {
  private final Queue<String> stepEnded = new ConcurrentLinkedQueue<>();
  private final Queue<String> rest = new ConcurrentLinkedQueue<>();
  private final ExecutorService workers;
  private final Consumer<String> look;

  /** {@code look}: looks at a node the caller of {@link #add} holds, and lets it go. */
  LookQueue(int threads, Consumer<String> look) {
    this.workers = Executors.newFixedThreadPool(threads, DaemonThreads.named("remediator-loop"));
    this.look = look;
  }


  /** Queues a look at a node the caller holds; false when the workers have stopped (the caller lets it go). */
  boolean add(String node, boolean afterStepEnded) {
    Queue<String> queue = afterStepEnded ? stepEnded : rest;
    queue.add(node);
    try {
      workers.execute(this::lookAtNext);
      return true;
    } catch (RejectedExecutionException e) {
      queue.remove(node);
      return false;
    }
  }

  /** One task a node: each takes the first node queued after a step's end, else the first of the rest. */
  private void lookAtNext() {
    String node = stepEnded.poll();
    if (node == null) {
      node = rest.poll();
    }
    if (node != null) {
      look.accept(node);
    }
  }

  boolean stopped() {
    return workers.isShutdown();
  }

  @Override
  public void close() {
    workers.shutdownNow();
  }
}
