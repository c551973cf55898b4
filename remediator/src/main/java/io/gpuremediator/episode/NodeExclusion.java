package io.gpuremediator.episode;

import io.gpuremediator.node.Foreground;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One node is changed by one thread at a time, whoever changes it: the webhook's write, the background loop's look, a
 * human's release or retry. Nothing is shared between nodes but this short-held monitor. A look asked for while the
 * node is held is not lost: it is run once the holder lets go ({@code again}), so the loop's steps for a new episode
 * start after its webhook's own writes, never against them.
 */
final class NodeExclusion {
  private final Set<String> held = new HashSet<>();
  private final Set<String> again = new HashSet<>();
  private final Consumer<String> lookAgain;

  /** {@code lookAgain}: asked for a node whose look was asked for while it was held, once it is let go. */
  NodeExclusion(Consumer<String> lookAgain) {
    this.lookAgain = lookAgain;
  }

  /** Takes the node if it is free; otherwise remembers that a look was asked for, and says no. */
  synchronized boolean tryEnter(String node) {
    if (held.add(node)) {
      return true;
    }
    again.add(node);
    return false;
  }

  /** Takes the node, waiting up to {@code wait} for its holder to let go; false when the wait ran out. */
  synchronized boolean enter(String node, Duration wait) throws InterruptedException {
    if (held.add(node)) {
      return true;
    }
    long deadline = System.nanoTime() + wait.toNanos();
    // The holder may be the loop, whose API calls give way while a webhook is decided: not while one waits for it.
    try (Foreground.Awaiting waiting = Foreground.awaitingBackground()) {
      while (!held.add(node)) {
        long left = deadline - System.nanoTime();
        if (left <= 0) {
          return false;
        }
        wait(Math.max(1, left / 1_000_000));
      }
    }
    return true;
  }

  /** Lets the node go; a look asked for meanwhile is asked for again now. */
  void exit(String node) {
    boolean rerun;
    synchronized (this) {
      held.remove(node);
      rerun = again.remove(node);
      notifyAll();
    }
    if (rerun) {
      lookAgain.accept(node);
    }
  }

  /**
   * Runs {@code look} on the node this thread holds, and again at once while a look was asked for meanwhile, up to
   * {@code most} looks (a further one is asked for again, behind the other nodes: a node kicked without end never holds
   * a thread); then lets the node go. A step that ended during a look (the last pod of a drain left) is handed on by
   * this thread, not after every node queued behind it: a burst of a hundred episodes queued them for seconds.
   */
  void lookAndLetGo(String node, int most, Runnable look) {
    boolean released = false;
    try {
      for (int n = 1; !released; n++) {
        look.run();
        if (n == most) {
          break;
        }
        released = exitUnlessAsked(node);
      }
    } finally {
      if (!released) {
        exit(node);
      }
    }
  }

  /** Lets the node go unless a look was asked for while it was held; then keeps it. Whether it was let go. */
  private synchronized boolean exitUnlessAsked(String node) {
    if (again.remove(node)) {
      return false;
    }
    held.remove(node);
    notifyAll();
    return true;
  }

  /** Runs {@code work} holding the node, waiting up to {@code wait}; false when the node stayed busy. */
  boolean holding(String node, Duration wait, Runnable work) {
    try {
      if (!enter(node, wait)) {
        return false;
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
    try {
      work.run();
      return true;
    } finally {
      exit(node);
    }
  }
}
