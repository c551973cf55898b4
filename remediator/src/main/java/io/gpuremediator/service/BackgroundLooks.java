package io.gpuremediator.service;

import io.vertx.core.Vertx;
import io.vertx.core.WorkerExecutor;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.BooleanSupplier;

/**
 * The service's own periodic looks (cloud maintenance, sweeps): each every {@code every} on a worker of its own (its
 * reads never hold up a webhook's), only while {@code ready} (the leader, the node watch and the fleet state in); a look
 * still under way when the next is due is not doubled.
 */
final class BackgroundLooks {
  private final Vertx vertx;
  private final BooleanSupplier ready;

  BackgroundLooks(Vertx vertx, BooleanSupplier ready) {
    this.vertx = vertx;
    this.ready = ready;
  }

  void every(Duration every, String worker, Runnable look) {
    WorkerExecutor executor = vertx.createSharedWorkerExecutor(worker, 1);
    AtomicBoolean looking = new AtomicBoolean();
    vertx.setPeriodic(every.toMillis(), id -> {
      if (ready.getAsBoolean() && looking.compareAndSet(false, true)) {
        executor.executeBlocking(() -> {
          look.run();
          return null;
        }, false).onComplete(done -> looking.set(false));
      }
    });
  }
}
